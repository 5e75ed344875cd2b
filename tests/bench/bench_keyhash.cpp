// SPDX-License-Identifier: Apache-2.0
// The work queues' and DeltaFifo's string-key hash (detail::keyHash) beside the one it
// replaced, Qt's seeded qHash, for three key shapes: client-go's benchmark keys ("key-N", under
// 16 bytes of UTF-16), "namespace/object-N" and a long "namespace/name". Both sides are qcm's
// options, so there is no client-go twin; RESULTS.md runs 20 and 21 say why it exists (Qt's
// short-key path costs ~110 ns on a VAES/AVX-512 Xeon). Run it on a new CPU type first.
#include <qcm/detail/keyhash.h>

#include <QtCore/QHash>
#include <QtCore/QString>

#include <benchmark/benchmark.h>

#include <vector>

namespace {

constexpr size_t KeyCount = 1024; // distinct keys, all in the cache

std::vector<QString> makeKeys(const char *prefix)
{
    std::vector<QString> keys;
    keys.reserve(KeyCount);
    for (size_t i = 0; i < KeyCount; ++i)
        keys.push_back(QString::fromLatin1(prefix) + QString::number(i));
    return keys;
}

void BM_QHashSeeded(benchmark::State &state, const char *prefix)
{
    const std::vector<QString> keys = makeKeys(prefix);
    const size_t seed = QHashSeed::globalSeed();
    size_t i = 0;
    for (auto _ : state)
        benchmark::DoNotOptimize(qHash(keys[i++ % KeyCount], seed));
}

void BM_KeyHash(benchmark::State &state, const char *prefix)
{
    const std::vector<QString> keys = makeKeys(prefix);
    size_t i = 0;
    for (auto _ : state)
        benchmark::DoNotOptimize(qcm::detail::keyHash(keys[i++ % KeyCount]));
}

} // namespace

BENCHMARK_CAPTURE(BM_QHashSeeded, short, "key-");
BENCHMARK_CAPTURE(BM_KeyHash, short, "key-");
BENCHMARK_CAPTURE(BM_QHashSeeded, namespaced, "namespace/object-");
BENCHMARK_CAPTURE(BM_KeyHash, namespaced, "namespace/object-");
BENCHMARK_CAPTURE(BM_QHashSeeded, long, "kube-system/some-deployment-name-abcdef-");
BENCHMARK_CAPTURE(BM_KeyHash, long, "kube-system/some-deployment-name-abcdef-");

BENCHMARK_MAIN();
