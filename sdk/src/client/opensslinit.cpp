// SPDX-License-Identifier: Apache-2.0
// OpenSSL, initialised without its exit-time cleanup, when this library is loaded.
//
// Qt's TLS backend (OpenSSL 3 on Debian) initialises OpenSSL on first use, and OpenSSL then
// registers OPENSSL_cleanup() with atexit(). That cleanup frees the OpenSSL state of every
// thread and assumes no other thread is still running (openssl/openssl#6214). But a
// RestClient's threads (its I/O thread, and its QNetworkAccessManager's HTTP thread) are
// QThreads, and QThread::wait() returns once run() has returned: each thread's OpenSSL state
// is freed after that, by a thread-specific-data destructor, as the thread ends. A process
// that exits right after destroying a RestClient (qcm on SIGTERM, any tool) could free the
// same block twice: glibc aborted with "double free or corruption (fasttop)" in 4 of 3,903
// exits of qcm_bench_informer in a loop (tests/bench/RESULTS.md, run 18). OpenSSL's remedy is
// OPENSSL_INIT_NO_ATEXIT at its first initialisation, as curl and libdatachannel do: the
// process's exit returns the memory instead. This runs before main(), so before Qt's first
// use of OpenSSL; a second initialisation (Qt's) no longer registers the handler.
//
// Thread safety: runs once, while the library is loaded.
#include <openssl/crypto.h>

namespace {

struct InitOpenSslWithoutAtExit
{
    InitOpenSslWithoutAtExit() { OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr); }
};

const InitOpenSslWithoutAtExit initOpenSslWithoutAtExit;

} // namespace
