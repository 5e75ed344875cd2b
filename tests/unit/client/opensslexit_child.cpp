// SPDX-License-Identifier: Apache-2.0
// tst_opensslexit's child: loads libqcm-sdk, has Qt load its TLS backend as a RestClient does
// (which initialises OpenSSL), registers an OpenSSL stop handler, and exits. OpenSSL runs its
// stop handlers in OPENSSL_cleanup(), so "OPENSSL_cleanup ran" is printed only if that cleanup
// still runs at exit.
#include <qcm/client/object.h>

#include <QtCore/QCoreApplication>
#include <QtNetwork/QSslSocket>

#include <openssl/crypto.h>

#include <cstdio>

namespace {

void cleanupRan()
{
    std::fputs("OPENSSL_cleanup ran\n", stdout);
    std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const qcm::client::Object object; // a use of libqcm-sdk, so that it is loaded
    if (!QSslSocket::supportsSsl()) {
        std::fputs("Qt has no TLS backend\n", stderr);
        return 2;
    }
    if (!OPENSSL_atexit(cleanupRan)) {
        std::fputs("OPENSSL_atexit failed\n", stderr);
        return 3;
    }
    std::printf("TLS backend %s loaded, object empty: %d\n",
        qPrintable(QSslSocket::activeBackend()), int(object.isEmpty()));
    return 0;
}
