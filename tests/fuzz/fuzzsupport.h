// SPDX-License-Identifier: Apache-2.0
// What the fuzz harnesses share (tests/fuzz, docs/fuzzing.md). Each harness defines
// LLVMFuzzerTestOneInput: built with -DQCM_FUZZ=ON under clang it is a libFuzzer target; in
// every build it is linked with replaymain.cpp and run over its corpus by ctest.
//
// FUZZ_CHECK is an invariant of the parser under test: when it does not hold, the harness
// prints it and aborts, which libFuzzer reports as a crash and saves the input.
#pragma once

#include <QtCore/QByteArray>
#include <QtCore/QString>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition, what)                                                                \
    do {                                                                                           \
        if (!(condition)) {                                                                        \
            std::fprintf(stderr, "%s:%d: invariant broken: %s (%s)\n", __FILE__, __LINE__,         \
                #condition, qPrintable(QString(what)));                                            \
            std::abort();                                                                          \
        }                                                                                          \
    } while (false)

namespace qcm::fuzz {

inline QByteArray bytes(const uint8_t *data, size_t size)
{
    return QByteArray(reinterpret_cast<const char *>(data), qsizetype(size));
}

} // namespace qcm::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
