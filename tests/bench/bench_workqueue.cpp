// SPDX-License-Identifier: Apache-2.0
// Work-queue benchmarks, each the same shape as its client-go twin in go/workqueue_test.go.
// run_bench.py runs both and prints the ratio table; RESULTS.md records the figures.
//
//   BM_Queue                  (a) client-go's BenchmarkQueue: a fresh queue per iteration
//                                 (not timed), then 100 x add -> get -> done of string keys.
//   BM_ParallelQueue          (b) 2 producers x 2 consumers over 10k keys with duplicates:
//                                 each producer adds 10k keys; consumers get/done until
//                                 shutdown. One iteration = one fresh queue, 20k adds.
//   BM_DelayingQueueAddAfter  (c) client-go's BenchmarkDelayingQueue_AddAfter: N addAfter with
//                                 a random delay up to 10 min on a fake clock, step 11 min,
//                                 N gets. N = 200000 on both sides; reported per item.
//   BM_AddRateLimited         (d) addRateLimited with the default controller rate limiter on
//                                 the real clock, cycling over 1000 keys.
#include <qcm/fakeclock.h>
#include <qcm/workqueue/ratelimitingqueue.h>

#include <benchmark/benchmark.h>

#include <random>
#include <thread>

using namespace qcm::workqueue;
using namespace std::chrono_literals;

namespace {

QStringList makeKeys(int n, const char *format)
{
    QStringList keys;
    keys.reserve(n);
    for (int i = 0; i < n; ++i)
        keys << QString::fromLatin1(format).arg(i);
    return keys;
}

void BM_Queue(benchmark::State &state)
{
    const QStringList keys = makeKeys(100, "key-%1");
    // Manual timing around the 100 operations, as Go's StopTimer/StartTimer leave the queue's
    // construction out; PauseTiming() would cost more than what it hides.
    for (auto _ : state) {
        auto q = std::make_unique<Queue<QString>>();
        const auto start = std::chrono::steady_clock::now();
        for (const QString &key : keys) {
            q->add(key);
            auto item = q->get();
            q->done(*item);
        }
        const auto end = std::chrono::steady_clock::now();
        state.SetIterationTime(std::chrono::duration<double>(end - start).count());
    }
}
BENCHMARK(BM_Queue)->UseManualTime();

void BM_ParallelQueue(benchmark::State &state)
{
    constexpr int Keys = 10000;
    const QStringList keys = makeKeys(Keys, "namespace/object-%1");
    // Each producer's sequence of keys, fixed up front: duplicates within and across.
    std::vector<std::vector<int>> sequences(2);
    std::mt19937 rng(7);
    for (auto &sequence : sequences)
        for (int i = 0; i < Keys; ++i)
            sequence.push_back(int(rng() % Keys));
    for (auto _ : state) {
        Queue<QString> q;
        std::thread consumers[2];
        for (auto &c : consumers) {
            c = std::thread([&q] {
                while (auto item = q.get())
                    q.done(*item);
            });
        }
        std::thread producers[2];
        for (int p = 0; p < 2; ++p) {
            producers[p] = std::thread([&q, &keys, &sequence = sequences[size_t(p)]] {
                for (int k : sequence)
                    q.add(keys[k]);
            });
        }
        for (auto &p : producers)
            p.join();
        q.shutDown();
        for (auto &c : consumers)
            c.join();
    }
}
BENCHMARK(BM_ParallelQueue)->UseRealTime();

void BM_DelayingQueueAddAfter(benchmark::State &state)
{
    const int n = int(state.range(0));
    for (auto _ : state) {
        qcm::FakeClock clock;
        QueueConfig config;
        config.clock = &clock;
        DelayingQueue<QString> q(config);
        std::mt19937_64 rng(42);
        std::uniform_int_distribution<qint64> delay(0, std::chrono::nanoseconds(10min).count() - 1);
        for (int i = 0; i < n; ++i)
            q.addAfter(QString::number(i), qcm::Duration(delay(rng)));
        clock.step(11min);
        for (int i = 0; i < n; ++i)
            benchmark::DoNotOptimize(q.get());
    }
    state.counters["items"] = n;
}
BENCHMARK(BM_DelayingQueueAddAfter)->Arg(200000)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_AddRateLimited(benchmark::State &state)
{
    const QStringList keys = makeKeys(1000, "namespace/object-%1");
    RateLimitingQueue<QString> q(defaultControllerRateLimiter<QString>());
    qsizetype i = 0;
    for (auto _ : state) {
        q.addRateLimited(keys[i]);
        if (++i == keys.size())
            i = 0;
    }
    q.shutDown();
}
BENCHMARK(BM_AddRateLimited);

} // namespace

BENCHMARK_MAIN();
