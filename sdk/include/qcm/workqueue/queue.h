// SPDX-License-Identifier: Apache-2.0
// Queue: a work queue of keys (client-go's workqueue.Typed[T]).
//
// Guarantees, as in client-go:
//   * Fair: items are handed out in the order they were added.
//   * Stingy: an item added many times before it is processed is processed once.
//   * Never concurrent: an item is never handed to two workers at once. If it is added while
//     being processed, it is queued again only when done() is called for it.
// State is a queue (the order), a dirty set (needs processing) and a processing set.
// Invariant: every item in the queue is dirty and not processing.
//
// T needs qHash() and operator==; QString keys ("namespace/name") are the common case.
//
// add() never waits for the lock: when the lock is free it adds under it; when another
// thread holds it, it pushes the item onto a lock-free inbox (one compare-and-swap), and the
// next thread that takes the lock (any method here) applies the inbox in the order of the
// pushes before it does anything else. Producers then do not queue up behind consumers, and
// the state's cache lines stay with the threads that hold the lock. A named queue (one with
// metrics) waits for the lock in add(), so that its metrics count the add when add()
// returns, as client-go's do.
//
// Thread safety: every method is safe from any thread. get() and shutDownWithDrain() block.
#pragma once

#include <qcm/detail/inbox.h>
#include <qcm/detail/mutex.h>
#include <qcm/workqueue/queuemetrics.h>
#include <qcm/workqueue/queuestate.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace qcm::workqueue {

template<typename T>
class Queue
{
public:
    explicit Queue(const QueueConfig &config = {});
    virtual ~Queue();
    Q_DISABLE_COPY_MOVE(Queue)

    // Marks `item` as needing processing. Does nothing after shutdown or if it is already
    // dirty. An item being processed is queued again when done() is called for it.
    void add(const T &item);
    // The number of queued items; items being processed are not counted.
    int len() const;
    // Blocks until an item can be processed, and returns it. Returns nothing once the queue
    // is shutting down and empty: items queued before shutDown() are still handed out.
    // Every item returned must be given back with done().
    std::optional<T> get();
    // Marks `item` as processed. If it was added again meanwhile, it is queued again.
    void done(const T &item);
    // Makes get() return nothing once the queue is empty, and ignores later adds.
    virtual void shutDown();
    // shutDown(), then waits until every item handed out has been given back with done().
    // Queued items that nobody took are not waited for. Blocks forever if done() is never
    // called, unless shutDown() is called meanwhile.
    virtual void shutDownWithDrain();
    bool shuttingDown() const;

protected:
    Clock *clock() const { return m_clock; }
    // add() for each item, in order, under one lock (the delaying queue's due items, with
    // the hashes it already computed: ItemTable::hashOf).
    void addAll(const std::vector<std::pair<T, size_t>> &items);

private:
    using State = detail::QueueState<T>;
    static constexpr Duration UnfinishedWorkUpdatePeriod = std::chrono::milliseconds(500);

    // An add() not yet applied: a node of the inbox, a stack linked through `next`.
    struct Pending
    {
        Pending *next;
        T item;
        size_t hash;
        TimePoint addedAt; // for the metrics only
    };
    // Applied nodes, freed after unlocking (declared before the lock).
    using Applied = qcm::detail::InboxNodes<Pending>;

    // With `lock` held: applies the inbox, then adds `item` unless the queue is shutting
    // down; unlocks, and wakes a waiter if something was queued.
    void finishAdd(
        std::unique_lock<qcm::detail::Mutex> &lock, const T &item, size_t hash, TimePoint addedAt);
    // Applies the inbox, oldest push first; returns whether it queued an item.
    bool applyInboxLocked(Applied &applied);
    // An add with the lock held; returns whether it queued the item. A new entry takes
    // `item` by move when it is an rvalue.
    template<typename U>
    bool addLocked(U &&item, size_t hash, TimePoint addedAt);
    void startShutdown(bool drain);
    void updateUnfinishedWork();

    // The lock word, the wait queue's words and the state each start a cache line of their
    // own: waiters spinning on the lock or on the wait queue then do not pull the line that
    // the lock holder is writing the state to. With the three on one line, queue case (b)
    // took 8.0 ms instead of 7.2 when the two vCPUs are far apart, and 3.2 instead of 3.05
    // when near (tests/bench/RESULTS.md, run 12).
    alignas(64) mutable qcm::detail::Mutex m_mutex;
    alignas(64) qcm::detail::WaitQueue m_cond;
    alignas(64) State m_state; // the dirty and processing sets, and the order; guarded by m_mutex
    qsizetype m_processing = 0; // items with the Processing flag; guarded by m_mutex
    // Written with the lock held; add() reads it without.
    std::atomic<bool> m_shuttingDown {false};
    bool m_drain = false; // guarded by m_mutex
    // The inbox and the waiter count each on a cache line of their own: producers write the
    // first and read the second, consumers the other way round.
    qcm::detail::Inbox<Pending> m_inbox;
    // Threads blocked in get() or in a drain; written with the lock held.
    alignas(64) std::atomic<int> m_waiters {0};
    Clock *m_clock;
    std::unique_ptr<detail::QueueMetrics<T>> m_metrics; // null: no metrics; guarded by m_mutex
    std::unique_ptr<Timer> m_metricsTimer;
};

template<typename T>
Queue<T>::Queue(const QueueConfig &config) : m_clock(config.clock ? config.clock : Clock::system())
{
    if (MetricsProvider *provider = effectiveProvider(config)) {
        m_metrics = std::make_unique<detail::QueueMetrics<T>>(provider, config.name, m_clock);
        m_metricsTimer = m_clock->newTimer([this] { updateUnfinishedWork(); });
        m_metricsTimer->reset(m_clock->now() + UnfinishedWorkUpdatePeriod);
    }
}

template<typename T>
Queue<T>::~Queue()
{
    {
        std::lock_guard lock(m_mutex);
        m_shuttingDown.store(true, std::memory_order_relaxed);
    }
    if (m_metricsTimer)
        m_metricsTimer->stop();
}

template<typename T>
void Queue<T>::add(const T &item)
{
    // An add() that starts after shutDown() returned sees the flag; one that overlaps it may
    // still be applied, as if it had come first.
    if (m_shuttingDown.load(std::memory_order_acquire))
        return;
    const size_t hash = State::hashOf(item);
    const TimePoint addedAt = m_metrics ? m_metrics->now() : TimePoint {};
    // A named queue waits for the lock, so that its adds and depth count the add when add()
    // returns, as client-go's do; an unnamed one takes it only when it is free.
    std::unique_lock lock(m_mutex, std::defer_lock);
    if (m_metrics)
        lock.lock();
    if (lock.owns_lock() || lock.try_lock()) {
        finishAdd(lock, item, hash, addedAt);
        return;
    }
    const bool wasEmpty = m_inbox.push(new Pending {nullptr, item, hash, addedAt});
    // A push onto a non-empty inbox needs no wake-up: whoever pushed onto the empty one woke
    // a waiter, or no thread waited then, and a thread checks the inbox before it sleeps.
    if (wasEmpty && m_waiters.load(std::memory_order_seq_cst) > 0)
        m_cond.notifyOne();
}

template<typename T>
void Queue<T>::finishAdd(
    std::unique_lock<qcm::detail::Mutex> &lock, const T &item, size_t hash, TimePoint addedAt)
{
    Applied applied; // destroyed after the unlock below
    bool wake = applyInboxLocked(applied);
    if (!m_shuttingDown.load(std::memory_order_relaxed))
        wake |= addLocked(item, hash, addedAt);
    wake = wake && m_waiters.load(std::memory_order_relaxed) > 0;
    lock.unlock();
    if (wake)
        m_cond.notifyOne();
}

template<typename T>
void Queue<T>::addAll(const std::vector<std::pair<T, size_t>> &items)
{
    if (items.empty())
        return;
    Applied applied;
    std::unique_lock lock(m_mutex);
    bool wake = applyInboxLocked(applied);
    if (!m_shuttingDown.load(std::memory_order_relaxed)) {
        const TimePoint now = m_metrics ? m_metrics->now() : TimePoint {};
        for (const auto &[item, hash] : items)
            wake |= addLocked(item, hash, now);
    }
    wake = wake && m_waiters.load(std::memory_order_relaxed) > 0;
    lock.unlock();
    if (wake)
        m_cond.notifyAll();
}

template<typename T>
bool Queue<T>::applyInboxLocked(Applied &applied)
{
    Pending *last = nullptr;
    Pending *oldestFirst = m_inbox.takeAll(&last);
    if (!oldestFirst)
        return false;
    applied.adopt(oldestFirst, last); // freed after unlocking, even if an add throws
    // startShutdown() applies the inbox before it sets the flag, so only pushes of adds that
    // overlapped a shutdown are dropped here: an add() that returned before shutDown() was
    // called is kept, and no add is handed out after shutDown() returned.
    if (m_shuttingDown.load(std::memory_order_relaxed))
        return false;
    bool queued = false;
    for (Pending *p = oldestFirst; p; p = p->next)
        queued |= addLocked(std::move(p->item), p->hash, p->addedAt);
    return queued;
}

template<typename T>
template<typename U>
bool Queue<T>::addLocked(U &&item, size_t hash, TimePoint addedAt)
{
    const int e = m_state.findOrInsert(std::forward<U>(item), hash);
    quint8 &flags = m_state.flags(e).flags;
    if (flags & State::Dirty)
        return false;
    if (m_metrics)
        m_metrics->add(m_state.entry(e).item, hash, addedAt);
    flags |= State::Dirty;
    if (flags & State::Processing)
        return false;
    m_state.push(e);
    return true;
}

template<typename T>
int Queue<T>::len() const
{
    auto *self = const_cast<Queue *>(this); // applying the inbox changes no observable state
    Applied applied;
    std::lock_guard lock(m_mutex);
    self->applyInboxLocked(applied);
    return int(m_state.queued());
}

template<typename T>
std::optional<T> Queue<T>::get()
{
    Applied applied;
    std::unique_lock lock(m_mutex);
    for (;;) {
        applyInboxLocked(applied);
        if (m_state.queued() != 0 || m_shuttingDown.load(std::memory_order_relaxed))
            break;
        // An add() that pushes after the last look at the inbox sees the waiter.
        m_cond.waitUnless(lock, m_waiters, [this] { return !m_inbox.empty(); });
    }
    if (m_state.queued() == 0)
        return std::nullopt; // shutting down
    std::optional<T> item(std::in_place);
    const int e = m_state.pop(*item);
    if (m_metrics)
        m_metrics->get(*item, m_state.entry(e).hash);
    // Normally the item is dirty and not processing. After a misused done() (client-go
    // queues the item twice then) it may be neither, or already processing.
    quint8 &flags = m_state.flags(e).flags;
    if (!(flags & State::Processing))
        ++m_processing;
    flags = State::Processing;
    // One push woke one waiter for a whole batch of adds: pass the rest on.
    const bool wakeAnother = m_state.queued() != 0 && m_waiters.load(std::memory_order_relaxed) > 0;
    lock.unlock();
    if (wakeAnother)
        m_cond.notifyOne();
    return item;
}

template<typename T>
void Queue<T>::done(const T &item)
{
    const size_t hash = State::hashOf(item); // outside the lock
    m_state.prefetch(hash);
    Applied applied;
    std::unique_lock lock(m_mutex);
    applyInboxLocked(applied);
    if (m_metrics)
        m_metrics->done(item, hash);
    const int e = m_state.find(item, hash);
    bool wake = false;
    std::optional<T> released; // destroyed after unlocking
    if (e >= 0) {
        auto &state = m_state.flags(e);
        if (state.flags & State::Processing) {
            state.flags &= ~State::Processing;
            --m_processing;
        }
        if (state.flags & State::Dirty) {
            m_state.push(e);
            wake = m_waiters.load(std::memory_order_relaxed) > 0;
        } else if (state.queued == 0) {
            released.emplace(m_state.erase(e));
        }
    }
    const bool wakeAll = m_processing == 0 && m_drain;
    lock.unlock();
    if (wakeAll)
        m_cond.notifyAll();
    else if (wake)
        m_cond.notifyOne();
}

template<typename T>
void Queue<T>::startShutdown(bool drain)
{
    // The drain flag and shuttingDown change together, as client-go's ShutDownWithDrain sets
    // them under one lock: a get() that returns nothing because of shutDownWithDrain() then
    // always sees the drain set, and a shutDown() after it always ends the drain.
    {
        Applied applied;
        std::lock_guard lock(m_mutex);
        applyInboxLocked(applied); // adds that returned before this call are kept
        m_drain = drain;
        m_shuttingDown.store(true, std::memory_order_release); // also stops the metrics timer
    }
    m_cond.notifyAll();
    if (m_metricsTimer)
        m_metricsTimer->stop();
}

template<typename T>
void Queue<T>::shutDown()
{
    startShutdown(false);
}

template<typename T>
void Queue<T>::shutDownWithDrain()
{
    startShutdown(true);
    // Until every item handed out is done, or a shutDown() ends the drain. The flag is not
    // set again here: a shutDown() that came in between must not be undone.
    std::unique_lock lock(m_mutex);
    while (m_processing != 0 && m_drain) {
        m_waiters.fetch_add(1, std::memory_order_relaxed);
        m_cond.wait(lock);
        m_waiters.fetch_sub(1, std::memory_order_relaxed);
    }
}

template<typename T>
bool Queue<T>::shuttingDown() const
{
    return m_shuttingDown.load(std::memory_order_acquire);
}

template<typename T>
void Queue<T>::updateUnfinishedWork()
{
    std::lock_guard lock(m_mutex);
    if (m_shuttingDown.load(std::memory_order_relaxed))
        return;
    m_metrics->updateUnfinishedWork();
    m_metricsTimer->reset(m_clock->now() + UnfinishedWorkUpdatePeriod);
}

} // namespace qcm::workqueue
