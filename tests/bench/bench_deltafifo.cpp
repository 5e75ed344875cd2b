// SPDX-License-Identifier: Apache-2.0
// DeltaFifo micro-benchmarks, each the same shape as its client-go twin in
// go/deltafifo_test.go (client-go's DeltaFIFO). run_bench.py --qcm-deltafifo runs both and
// prints the ratio table.
//
// The objects are 1000 ConfigMaps of about 1 KB (deltaFifoObjectJson(): the same JSON on
// both sides), decoded once before timing: qcm Objects here, *corev1.ConfigMap (and
// Unstructured) on the Go side. Each FIFO has the default key function and no knownObjects.
//
//   BM_DeltaFifoAddPop             (a) add the 1000 objects, then pop the 1000 keys.
//   BM_DeltaFifoUpdatesPop         (b) per key: add, then 3 updates (4 deltas per key);
//                                      then pop the 1000 keys, 4 deltas each.
//   BM_DeltaFifoProducerConsumer   (c) one thread adds the 1000 objects 10 times over while
//                                      another pops until it has seen all 10,000 deltas
//                                      (client-go's informer's shape, reflector and
//                                      processLoop; qcm's informer drains on the reflector's
//                                      thread since issue 15).
//   BM_DeltaFifoProducerConsumerFloor  (c)'s lower bound: the same two threads and 10,000
//                                      deltas through client-go's DeltaFIFO bookkeeping (a
//                                      per-key delta list, a queue of keys, pop processing
//                                      under the lock) with integer keys and payloads, on
//                                      qcm's Mutex and WaitQueue: what the synchronisation
//                                      alone costs, and so the highest ratio any FIFO of this
//                                      shape reaches against client-go here.
//   BM_DeltaFifoProducerConsumerObjectFloor  the same floor with the objects as the deltas:
//                                      each add copies a qcm Object (a reference count the
//                                      consumer's release of the previous round's delta last
//                                      wrote). client-go's deltas are pointers under a garbage
//                                      collector; no FIFO that keeps its own reference to the
//                                      objects it is given can beat this floor here.
// One iteration is the whole batch; a fresh FIFO per iteration. The contended cases count
// their pops per iteration (counter `pops`; go/deltafifo_test.go reports pops/op): fewer
// pops than deltas means the consumer fell behind and took several deltas per key at once.
#include <qcm/cache/deltafifo.h>
#include <qcm/detail/mutex.h>

#include <benchmark/benchmark.h>

#include <QtCore/QJsonDocument>

#include <deque>
#include <mutex>
#include <thread>
#include <vector>

using namespace qcm::cache;

namespace {

constexpr int Objects = 1000;

// The JSON of ConfigMap i; go/deltafifo_test.go writes the same bytes.
QByteArray deltaFifoObjectJson(int i)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    QByteArray payload(640, Qt::Uninitialized);
    for (int j = 0; j < payload.size(); ++j)
        payload[j] = alphabet[(i * 7 + j * 13) % 62];
    return QStringLiteral(
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%1","namespace":"bench",)"
        R"("uid":"00000000-0000-4000-8000-%2","resourceVersion":"%3",)"
        R"("creationTimestamp":"2026-11-22T09:00:00Z","labels":{"app":"bench","shard":"%4"}},)"
        R"("data":{"payload":"%5","ts":"0"}})")
        .arg(i, 5, 10, QLatin1Char('0'))
        .arg(i, 12, 10, QLatin1Char('0'))
        .arg(100000 + i)
        .arg(i % 16)
        .arg(QString::fromLatin1(payload))
        .toUtf8();
}

const QList<Object> &objects()
{
    static const QList<Object> list = [] {
        QList<Object> out;
        for (int i = 0; i < Objects; ++i)
            out << Object(QJsonDocument::fromJson(deltaFifoObjectJson(i)).object());
        return out;
    }();
    return list;
}

int popAll(DeltaFifo &fifo, int keys)
{
    int deltas = 0;
    const DeltaFifo::Process process = [&](const Deltas &d, bool) {
        deltas += int(d.size());
        return std::optional<qcm::Error>();
    };
    for (int i = 0; i < keys; ++i)
        benchmark::DoNotOptimize(fifo.pop(process));
    return deltas;
}

void BM_DeltaFifoAddPop(benchmark::State &state)
{
    const QList<Object> &list = objects();
    for (auto _ : state) {
        DeltaFifo fifo;
        for (const Object &object : list)
            fifo.add(object);
        if (popAll(fifo, Objects) != Objects)
            state.SkipWithError("wrong number of deltas");
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * Objects);
}
BENCHMARK(BM_DeltaFifoAddPop);

void BM_DeltaFifoUpdatesPop(benchmark::State &state)
{
    const QList<Object> &list = objects();
    for (auto _ : state) {
        DeltaFifo fifo;
        for (const Object &object : list) {
            fifo.add(object);
            for (int u = 0; u < 3; ++u)
                fifo.update(object);
        }
        if (popAll(fifo, Objects) != 4 * Objects)
            state.SkipWithError("wrong number of deltas");
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * Objects * 4);
}
BENCHMARK(BM_DeltaFifoUpdatesPop);

void BM_DeltaFifoProducerConsumer(benchmark::State &state)
{
    const QList<Object> &list = objects();
    constexpr int Rounds = 10;
    int64_t pops = 0;
    for (auto _ : state) {
        DeltaFifo fifo;
        std::thread producer([&] {
            for (int r = 0; r < Rounds; ++r)
                for (const Object &object : list)
                    fifo.add(object);
        });
        int deltas = 0;
        const DeltaFifo::Process process = [&](const Deltas &d, bool) {
            deltas += int(d.size());
            return std::optional<qcm::Error>();
        };
        while (deltas < Rounds * Objects) {
            benchmark::DoNotOptimize(fifo.pop(process));
            ++pops;
        }
        producer.join();
    }
    state.counters["pops"] = double(pops) / double(state.iterations());
    state.SetItemsProcessed(int64_t(state.iterations()) * Objects * Rounds);
}
BENCHMARK(BM_DeltaFifoProducerConsumer)->UseRealTime();

// DeltaFIFO's add and pop with integer keys; deltas are round numbers (Delta = int) or the
// objects themselves (Delta = Object: a copy per add, as a FIFO that keeps what it is given
// must make of a reference-counted object).
template<typename Delta>
class FloorFifo
{
public:
    void add(int key, const Delta &delta)
    {
        {
            std::lock_guard lock(m_mutex);
            std::vector<Delta> &deltas = m_items[size_t(key)];
            if (deltas.empty())
                m_queue.push_back(key);
            deltas.push_back(delta);
        }
        m_wait.notifyOne();
    }
    // Pops the oldest key and runs `process` on its deltas under the lock, as DeltaFIFO.Pop.
    template<typename F>
    void pop(F &&process)
    {
        std::unique_lock lock(m_mutex);
        while (m_queue.empty())
            m_wait.wait(lock);
        const int key = m_queue.front();
        m_queue.pop_front();
        std::vector<Delta> deltas;
        deltas.swap(m_items[size_t(key)]);
        process(deltas);
    }

private:
    qcm::detail::Mutex m_mutex;
    qcm::detail::WaitQueue m_wait;
    std::vector<std::vector<Delta>> m_items = std::vector<std::vector<Delta>>(size_t(Objects));
    std::deque<int> m_queue;
};

// (c) through FloorFifo<Delta>; `delta(r, i)` is what round r adds for key i.
template<typename Delta, typename Make>
void runFloor(benchmark::State &state, Make delta)
{
    constexpr int Rounds = 10;
    int64_t pops = 0;
    for (auto _ : state) {
        FloorFifo<Delta> fifo;
        std::thread producer([&] {
            for (int r = 0; r < Rounds; ++r)
                for (int i = 0; i < Objects; ++i)
                    fifo.add(i, delta(r, i));
        });
        int deltas = 0;
        while (deltas < Rounds * Objects) {
            fifo.pop([&](const std::vector<Delta> &d) { deltas += int(d.size()); });
            ++pops;
        }
        producer.join();
    }
    state.counters["pops"] = double(pops) / double(state.iterations());
    state.SetItemsProcessed(int64_t(state.iterations()) * Objects * Rounds);
}

void BM_DeltaFifoProducerConsumerFloor(benchmark::State &state)
{
    runFloor<int>(state, [](int r, int) { return r; });
}
BENCHMARK(BM_DeltaFifoProducerConsumerFloor)->UseRealTime();

void BM_DeltaFifoProducerConsumerObjectFloor(benchmark::State &state)
{
    const QList<Object> &list = objects();
    runFloor<Object>(state, [&list](int, int i) -> const Object & { return list[i]; });
}
BENCHMARK(BM_DeltaFifoProducerConsumerObjectFloor)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
