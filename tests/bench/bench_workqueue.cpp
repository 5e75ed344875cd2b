// SPDX-License-Identifier: Apache-2.0
// Work-queue benchmarks, each the same shape as its client-go twin in go/workqueue_test.go.
// run_bench.py runs both and prints the ratio table; RESULTS.md records the figures.
//
//   BM_Queue                  (a) client-go's BenchmarkQueue: a fresh queue per iteration
//                                 (not timed), then 100 x add -> get -> done of string keys.
//   BM_ParallelQueue          (b) 2 producers x 2 consumers over 10k keys with duplicates:
//                                 each producer adds 10k keys; consumers get/done until
//                                 shutdown. One iteration = one fresh queue, 20k adds.
//   BM_ParallelQueueFloor     (b)'s lower bound: the same threads, sequences and semantics
//                                 (client-go's dirty and processing sets, one lock, a waiting
//                                 get) with integer keys, bit arrays and a deque, on qcm's
//                                 Mutex and WaitQueue: what the synchronisation alone costs.
//                                 No queue with one lock can beat it on this machine, so
//                                 client-go's (b) time over this one bounds the ratio.
//   BM_ParallelQueueStringFloor (b)'s lower bound for QString keys: the floor's threads,
//                                 sequences, lock and integer sets, plus only the reference
//                                 counting that handing out QString keys takes: a key is held
//                                 (one copy) from the add that makes it dirty until done()
//                                 finds it clean, as client-go's sets hold its keys, and get()
//                                 hands out a copy. No lookup by content, no hashing: no
//                                 one-lock queue of QString keys can beat it on this machine.
//   BM_ParallelQueueInboxFloor (b)'s lower bound for qcm's own design: the string floor
//                                 synchronised as Queue is (adds never wait for the lock: a
//                                 lock-free inbox), reading each key's characters once in add
//                                 and done, as any lookup by content must. What Queue<QString>
//                                 adds to it is its table; run_bench.py's (b) pairs run it
//                                 between qcm's and client-go's slices (RESULTS.md, run 14).
//   BM_ParallelQueueInt       (b) with Queue<int>: what the QString keys' shared reference
//                                 counts and characters add to (b) (RESULTS.md, run 8).
//   BM_ParallelQueueRaw       (b) with keys made by QString::fromRawData: copies touch no
//                                 reference count, so what (b) costs without that traffic.
//   BM_ParallelQueuePinned/N  (b) with its four threads pinned to two CPUs: N = 0 a producer
//                                 and a consumer on each, N = 1 the producers on one and the
//                                 consumers on the other (RESULTS.md, run 13).
//   BM_CacheLineRoundTrip     Not a queue: two threads pinned to two CPUs pass one cache line
//                                 back and forth; ns per round trip. On a VM it shows where
//                                 the host placed the two vCPUs at the time, which moves (b)
//                                 (RESULTS.md, run 8); run_bench.py measures it around each
//                                 (b) pair.
//   BM_DelayingQueueAddAfter  (c) client-go's BenchmarkDelayingQueue_AddAfter: N addAfter with
//                                 a random delay up to 10 min on a fake clock, step 11 min,
//                                 N gets. N = 200000 on both sides; reported per item.
//   BM_AddRateLimited         (d) addRateLimited with the default controller rate limiter on
//                                 the real clock, cycling over 1000 keys.
#include <qcm/detail/inbox.h>
#include <qcm/detail/mutex.h>
#include <qcm/fakeclock.h>
#include <qcm/workqueue/ratelimitingqueue.h>

#include <benchmark/benchmark.h>

#include <QtCore/QStringList>

#include <array>
#include <atomic>
#include <deque>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <random>
#include <sched.h>
#include <thread>
#include <type_traits>

using namespace qcm::workqueue;
using namespace std::chrono_literals;

namespace {

// (b)'s sequences: each producer's keys, fixed up front, with duplicates within and across.
std::vector<std::vector<int>> parallelSequences(int keys)
{
    std::vector<std::vector<int>> sequences(2);
    std::mt19937 rng(7);
    for (auto &sequence : sequences)
        for (int i = 0; i < keys; ++i)
            sequence.push_back(int(rng() % unsigned(keys)));
    return sequences;
}

// The first two CPUs this process may run on, or {-1, -1} if it has only one.
std::array<int, 2> firstTwoCpus()
{
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    sched_getaffinity(0, sizeof allowed, &allowed);
    std::array<int, 2> cpus {-1, -1};
    for (int cpu = 0, found = 0; cpu < CPU_SETSIZE && found < 2; ++cpu)
        if (CPU_ISSET(cpu, &allowed))
            cpus[size_t(found++)] = cpu;
    return cpus[1] < 0 ? std::array<int, 2> {-1, -1} : cpus;
}

void pinTo(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// 2 consumers get/done until shut down while 2 producers add their sequences; `Q` has add,
// get (an optional, empty once shut down and drained), done and shutDown. With `cpus`, each
// thread is pinned: consumer c to cpus[c], producer p to cpus[2 + p].
template<typename Q, typename Key>
void runParallel(Q &q, const std::vector<std::vector<int>> &sequences, Key key,
    const std::array<int, 4> *cpus = nullptr)
{
    std::thread consumers[2];
    for (int c = 0; c < 2; ++c) {
        consumers[c] = std::thread([&q, cpus, c] {
            if (cpus)
                pinTo((*cpus)[size_t(c)]);
            while (auto item = q.get())
                q.done(*item);
        });
    }
    std::thread producers[2];
    for (int p = 0; p < 2; ++p) {
        producers[p] = std::thread([&q, &key, &sequence = sequences[size_t(p)], cpus, p] {
            if (cpus)
                pinTo((*cpus)[size_t(2 + p)]);
            for (int k : sequence)
                q.add(key(k));
        });
    }
    for (auto &p : producers)
        p.join();
    q.shutDown();
    for (auto &c : consumers)
        c.join();
}

// A key of the string floor as add() takes it (not copied) and as get() hands it out.
struct FloorKeyRef
{
    int index;
    const QString &key;
};
struct FloorKey
{
    int index;
    QString key;
};

// The floors' get(): takes the oldest key off `queue` and moves it from dirty to processing.
int popToProcessing(std::deque<int> &queue, std::vector<bool> &dirty, std::vector<bool> &processing)
{
    const int key = queue.front();
    queue.pop_front();
    processing[size_t(key)] = true;
    dirty[size_t(key)] = false;
    return key;
}

// client-go's queue (dirty set, processing set, FIFO, one lock) reduced to integer keys.
// With HoldsKeys, the keys are QStrings held as client-go's sets hold its string keys: slot i
// holds the key from the add that makes it dirty until done() finds it clean, and get()
// hands out a copy; the index stands in for the lookup by content a real queue does.
template<bool HoldsKeys>
class FloorQueue
{
public:
    using Item = std::conditional_t<HoldsKeys, FloorKey, int>;
    using Ref = std::conditional_t<HoldsKeys, FloorKeyRef, int>;

    explicit FloorQueue(int keys)
        : m_dirty(size_t(keys)), m_processing(size_t(keys)), m_held(HoldsKeys ? size_t(keys) : 0)
    { }
    void add(Ref ref)
    {
        const int key = indexOf(ref);
        {
            std::lock_guard lock(m_mutex);
            if (m_shutDown || m_dirty[size_t(key)])
                return;
            m_dirty[size_t(key)] = true;
            if constexpr (HoldsKeys) {
                if (!m_processing[size_t(key)])
                    m_held[size_t(key)] = ref.key; // a processing key is held already
            }
            if (m_processing[size_t(key)])
                return;
            m_queue.push_back(key);
        }
        m_wait.notifyOne();
    }
    std::optional<Item> get()
    {
        std::unique_lock lock(m_mutex);
        while (m_queue.empty() && !m_shutDown)
            m_wait.wait(lock);
        if (m_queue.empty())
            return std::nullopt;
        const int key = popToProcessing(m_queue, m_dirty, m_processing);
        if constexpr (HoldsKeys)
            return FloorKey {key, m_held[size_t(key)]};
        else
            return key;
    }
    void done(const Item &item)
    {
        const int key = indexOf(item);
        bool queued = false;
        QString released; // destroyed after unlocking
        {
            std::lock_guard lock(m_mutex);
            m_processing[size_t(key)] = false;
            if (m_dirty[size_t(key)]) {
                m_queue.push_back(key);
                queued = true;
            } else if constexpr (HoldsKeys) {
                released = std::move(m_held[size_t(key)]);
            }
        }
        if (queued)
            m_wait.notifyOne();
    }
    void shutDown()
    {
        {
            std::lock_guard lock(m_mutex);
            m_shutDown = true;
        }
        m_wait.notifyAll();
    }

private:
    static int indexOf(int key) { return key; }
    template<typename K>
    static int indexOf(const K &key)
    {
        return key.index;
    }

    qcm::detail::Mutex m_mutex;
    qcm::detail::WaitQueue m_wait;
    std::deque<int> m_queue;
    std::vector<bool> m_dirty;
    std::vector<bool> m_processing;
    std::vector<QString> m_held; // with HoldsKeys only
    bool m_shutDown = false;
};

// (b)'s floor for QString keys with qcm's own synchronisation: the string floor's sets, FIFO
// and held keys, synchronised as Queue is (add() takes the lock only when it is free and
// otherwise pushes onto a lock-free Inbox that the next holder of the lock applies first; a
// waiter is woken only when one waits; the lock, the wait queue and the state each on a cache
// line of their own), and each add() and done() reads its key's characters once before it
// locks, as Queue hashes them and as every queue that finds its keys by content must
// (client-go's maps hash in add, get and done). What Queue<QString> does beyond it is the
// table's probing and comparing, so no queue with this synchronisation and these keys can
// beat it here (RESULTS.md, run 14).
class InboxFloorQueue
{
public:
    explicit InboxFloorQueue(int keys)
        : m_dirty(size_t(keys)), m_processing(size_t(keys)), m_held(size_t(keys))
    { }
    void add(FloorKeyRef ref)
    {
        readEveryCharacter(ref.key);
        Applied applied; // freed after unlocking
        std::unique_lock lock(m_mutex, std::defer_lock);
        if (!lock.try_lock()) {
            if (m_inbox.push(new Pending {nullptr, ref.index, ref.key})
                && m_waiters.load(std::memory_order_seq_cst) > 0)
                m_wait.notifyOne();
            return;
        }
        bool wake = applyInboxLocked(applied);
        wake |= addLocked(ref.index, ref.key);
        unlockAndWake(lock, wake);
    }
    std::optional<FloorKey> get()
    {
        Applied applied;
        std::unique_lock lock(m_mutex);
        for (;;) {
            applyInboxLocked(applied);
            if (!m_queue.empty() || m_shutDown)
                break;
            m_wait.waitUnless(lock, m_waiters, [this] { return !m_inbox.empty(); });
        }
        if (m_queue.empty())
            return std::nullopt;
        const int key = popToProcessing(m_queue, m_dirty, m_processing);
        std::optional<FloorKey> item(FloorKey {key, m_held[size_t(key)]});
        unlockAndWake(lock, !m_queue.empty());
        return item;
    }
    void done(const FloorKey &item)
    {
        readEveryCharacter(item.key);
        Applied applied;
        QString released; // destroyed after unlocking
        std::unique_lock lock(m_mutex);
        bool wake = applyInboxLocked(applied);
        m_processing[size_t(item.index)] = false;
        if (m_dirty[size_t(item.index)]) {
            m_queue.push_back(item.index);
            wake = true;
        } else {
            released = std::move(m_held[size_t(item.index)]);
        }
        unlockAndWake(lock, wake);
    }
    void shutDown()
    {
        {
            Applied applied;
            std::lock_guard lock(m_mutex);
            applyInboxLocked(applied);
            m_shutDown = true;
        }
        m_wait.notifyAll();
    }

private:
    struct Pending
    {
        Pending *next;
        int index;
        QString key;
    };

    // What a lookup by content costs at least: reading each character once. A plain sum, so
    // that no hash function (Queue's is Qt's qHash) is cheaper.
    static void readEveryCharacter(const QString &key)
    {
        unsigned sum = 0;
        for (const QChar c : key)
            sum += c.unicode();
        benchmark::DoNotOptimize(sum);
    }
    using Applied = qcm::detail::InboxNodes<Pending>;

    template<typename K>
    bool addLocked(int key, K &&held)
    {
        if (m_shutDown || m_dirty[size_t(key)])
            return false;
        m_dirty[size_t(key)] = true;
        if (m_processing[size_t(key)])
            return false; // held already
        m_held[size_t(key)] = std::forward<K>(held);
        m_queue.push_back(key);
        return true;
    }
    bool applyInboxLocked(Applied &applied)
    {
        Pending *last = nullptr;
        Pending *first = m_inbox.takeAll(&last);
        if (!first)
            return false;
        applied.adopt(first, last);
        bool queued = false;
        for (Pending *p = first; p; p = p->next)
            queued |= addLocked(p->index, std::move(p->key));
        return queued;
    }
    void unlockAndWake(std::unique_lock<qcm::detail::Mutex> &lock, bool queued)
    {
        const bool wake = queued && m_waiters.load(std::memory_order_relaxed) > 0;
        lock.unlock();
        if (wake)
            m_wait.notifyOne();
    }

    alignas(64) qcm::detail::Mutex m_mutex;
    alignas(64) qcm::detail::WaitQueue m_wait;
    alignas(64) std::deque<int> m_queue;
    std::vector<bool> m_dirty;
    std::vector<bool> m_processing;
    std::vector<QString> m_held;
    bool m_shutDown = false;
    qcm::detail::Inbox<Pending> m_inbox;
    alignas(64) std::atomic<int> m_waiters {0};
};

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

// (b) through Queue<QString>, its threads pinned as runParallel() says when `cpus` is given.
void runParallelQueue(benchmark::State &state, const std::array<int, 4> *cpus)
{
    constexpr int Keys = 10000;
    const QStringList keys = makeKeys(Keys, "namespace/object-%1");
    const auto sequences = parallelSequences(Keys);
    for (auto _ : state) {
        Queue<QString> q;
        runParallel(
            q, sequences, [&keys](int k) -> const QString & { return keys[k]; }, cpus);
    }
}

void BM_ParallelQueue(benchmark::State &state)
{
    runParallelQueue(state, nullptr);
}
BENCHMARK(BM_ParallelQueue)->UseRealTime();

void BM_ParallelQueueInt(benchmark::State &state)
{
    constexpr int Keys = 10000;
    const auto sequences = parallelSequences(Keys);
    for (auto _ : state) {
        Queue<int> q;
        runParallel(q, sequences, [](int k) { return k; });
    }
}
BENCHMARK(BM_ParallelQueueInt)->UseRealTime();

void BM_ParallelQueueRaw(benchmark::State &state)
{
    constexpr int Keys = 10000;
    const QStringList owned = makeKeys(Keys, "namespace/object-%1"); // outlives `keys`
    QStringList keys;
    for (const QString &k : owned)
        keys << QString::fromRawData(k.constData(), k.size());
    const auto sequences = parallelSequences(Keys);
    for (auto _ : state) {
        Queue<QString> q;
        runParallel(q, sequences, [&keys](int k) -> const QString & { return keys[k]; });
    }
}
BENCHMARK(BM_ParallelQueueRaw)->UseRealTime();

// (b) with its four threads pinned to the first two CPUs: arrangement 0 puts a producer and a
// consumer on each CPU, arrangement 1 both producers on one and both consumers on the other.
void BM_ParallelQueuePinned(benchmark::State &state)
{
    const auto two = firstTwoCpus();
    if (two[0] < 0) {
        state.SkipWithError("needs two CPUs");
        return;
    }
    const std::array<int, 4> cpus = state.range(0) == 0
        ? std::array<int, 4> {two[0], two[1], two[0], two[1]}
        : std::array<int, 4> {two[1], two[1], two[0], two[0]};
    runParallelQueue(state, &cpus);
}
BENCHMARK(BM_ParallelQueuePinned)->Arg(0)->Arg(1)->UseRealTime();

void BM_ParallelQueueFloor(benchmark::State &state)
{
    constexpr int Keys = 10000;
    const auto sequences = parallelSequences(Keys);
    for (auto _ : state) {
        FloorQueue<false> q(Keys);
        runParallel(q, sequences, [](int k) { return k; });
    }
}
BENCHMARK(BM_ParallelQueueFloor)->UseRealTime();

void BM_ParallelQueueStringFloor(benchmark::State &state)
{
    constexpr int Keys = 10000;
    const QStringList keys = makeKeys(Keys, "namespace/object-%1");
    const auto sequences = parallelSequences(Keys);
    for (auto _ : state) {
        FloorQueue<true> q(Keys);
        runParallel(q, sequences, [&keys](int k) { return FloorKeyRef {k, keys[k]}; });
    }
}
BENCHMARK(BM_ParallelQueueStringFloor)->UseRealTime();

void BM_ParallelQueueInboxFloor(benchmark::State &state)
{
    constexpr int Keys = 10000;
    const QStringList keys = makeKeys(Keys, "namespace/object-%1");
    const auto sequences = parallelSequences(Keys);
    for (auto _ : state) {
        InboxFloorQueue q(Keys);
        runParallel(q, sequences, [&keys](int k) { return FloorKeyRef {k, keys[k]}; });
    }
}
BENCHMARK(BM_ParallelQueueInboxFloor)->UseRealTime();

void BM_CacheLineRoundTrip(benchmark::State &state)
{
    cpu_set_t allowed;
    sched_getaffinity(0, sizeof allowed, &allowed);
    const auto cpus = firstTwoCpus();
    if (cpus[0] < 0) {
        state.SkipWithError("needs two CPUs");
        return;
    }
    constexpr int RoundTrips = 100000;
    // A line of its own: nothing else the two threads touch shares it.
    struct alignas(64) Line
    {
        std::atomic<int> value {0};
    };
    const auto line = std::make_unique<Line>();
    for (auto _ : state) {
        line->value.store(-1);
        std::thread other([&] {
            pinTo(cpus[1]);
            line->value.store(0, std::memory_order_release); // pinned
            for (int i = 0; i < RoundTrips; ++i) {
                while (line->value.load(std::memory_order_acquire) != 2 * i + 1) { }
                line->value.store(2 * i + 2, std::memory_order_release);
            }
        });
        pinTo(cpus[0]);
        while (line->value.load(std::memory_order_acquire) != 0) { }
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < RoundTrips; ++i) {
            line->value.store(2 * i + 1, std::memory_order_release);
            while (line->value.load(std::memory_order_acquire) != 2 * i + 2) { }
        }
        const auto end = std::chrono::steady_clock::now();
        other.join();
        // Unpinned again, so that the next thread does not inherit cpus[0] alone.
        pthread_setaffinity_np(pthread_self(), sizeof allowed, &allowed);
        state.SetIterationTime(std::chrono::duration<double>(end - start).count() / RoundTrips);
    }
}
BENCHMARK(BM_CacheLineRoundTrip)->UseManualTime()->Iterations(5);

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
