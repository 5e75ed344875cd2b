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
// Thread safety: every method is safe from any thread. get() and shutDownWithDrain() block.
#pragma once

#include <qcm/detail/mutex.h>
#include <qcm/workqueue/queuemetrics.h>
#include <qcm/workqueue/queuestate.h>

#include <mutex>
#include <optional>
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

    // add() with the lock held; returns whether a waiter should be woken.
    bool addLocked(const T &item, size_t hash);
    void startShutdown(bool drain);
    void updateUnfinishedWork();

    mutable qcm::detail::Mutex m_mutex;
    qcm::detail::WaitQueue m_cond;
    State m_state; // the dirty and processing sets, and the order; guarded by m_mutex
    qsizetype m_processing = 0; // items with the Processing flag; guarded by m_mutex
    int m_waiters = 0; // threads blocked in get() or in a drain; guarded by m_mutex
    bool m_shuttingDown = false; // guarded by m_mutex
    bool m_drain = false; // guarded by m_mutex
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
        m_shuttingDown = true;
    }
    if (m_metricsTimer)
        m_metricsTimer->stop();
}

template<typename T>
void Queue<T>::add(const T &item)
{
    const size_t hash = State::hashOf(item); // outside the lock
    m_state.prefetch(hash);
    std::unique_lock lock(m_mutex);
    const bool wake = addLocked(item, hash);
    lock.unlock();
    if (wake)
        m_cond.notifyOne();
}

template<typename T>
void Queue<T>::addAll(const std::vector<std::pair<T, size_t>> &items)
{
    if (items.empty())
        return;
    std::unique_lock lock(m_mutex);
    bool wake = false;
    for (const auto &[item, hash] : items)
        wake |= addLocked(item, hash);
    lock.unlock();
    if (wake)
        m_cond.notifyAll();
}

template<typename T>
bool Queue<T>::addLocked(const T &item, size_t hash)
{
    if (m_shuttingDown)
        return false;
    const int e = m_state.findOrInsert(item, hash);
    quint8 &flags = m_state.flags(e).flags;
    if (flags & State::Dirty)
        return false;
    if (m_metrics)
        m_metrics->add(item);
    flags |= State::Dirty;
    if (flags & State::Processing)
        return false;
    m_state.push(e);
    return m_waiters > 0;
}

template<typename T>
int Queue<T>::len() const
{
    std::lock_guard lock(m_mutex);
    return int(m_state.queued());
}

template<typename T>
std::optional<T> Queue<T>::get()
{
    std::unique_lock lock(m_mutex);
    while (m_state.queued() == 0 && !m_shuttingDown) {
        ++m_waiters;
        m_cond.wait(lock);
        --m_waiters;
    }
    if (m_state.queued() == 0)
        return std::nullopt; // shutting down
    std::optional<T> item(std::in_place);
    const int e = m_state.pop(*item);
    if (m_metrics)
        m_metrics->get(*item);
    // Normally the item is dirty and not processing. After a misused done() (client-go
    // queues the item twice then) it may be neither, or already processing.
    quint8 &flags = m_state.flags(e).flags;
    if (!(flags & State::Processing))
        ++m_processing;
    flags = State::Processing;
    return item;
}

template<typename T>
void Queue<T>::done(const T &item)
{
    const size_t hash = State::hashOf(item); // outside the lock
    m_state.prefetch(hash);
    std::unique_lock lock(m_mutex);
    if (m_metrics)
        m_metrics->done(item);
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
            wake = m_waiters > 0;
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
        std::lock_guard lock(m_mutex);
        m_drain = drain;
        m_shuttingDown = true; // also stops the metrics timer from re-arming
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
        ++m_waiters;
        m_cond.wait(lock);
        --m_waiters;
    }
}

template<typename T>
bool Queue<T>::shuttingDown() const
{
    std::lock_guard lock(m_mutex);
    return m_shuttingDown;
}

template<typename T>
void Queue<T>::updateUnfinishedWork()
{
    std::lock_guard lock(m_mutex);
    if (m_shuttingDown)
        return;
    m_metrics->updateUnfinishedWork();
    m_metricsTimer->reset(m_clock->now() + UnfinishedWorkUpdatePeriod);
}

} // namespace qcm::workqueue
