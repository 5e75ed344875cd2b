// SPDX-License-Identifier: Apache-2.0
// DelayingQueue: a Queue that can add an item later (client-go's workqueue.TypedDelayingInterface).
//
// Waiting items sit in one min-heap ordered by ready time, served by one Timer from the
// queue's Clock: never a thread or a timer per item. Adding an item that is already waiting
// only ever moves its ready time earlier. The timer also fires every 10 s (client-go's
// heartbeat) so that a missed wake-up can never strand an item.
//
// Unlike client-go, addAfter() puts the item in the heap before it returns (client-go hands it
// to a goroutine through a channel), so with a FakeClock everything is deterministic.
//
// Thread safety: every method is safe from any thread.
#pragma once

#include <qcm/workqueue/queue.h>
#include <qcm/workqueue/retrymetrics.h>

#include <vector>

namespace qcm::workqueue {

template<typename T>
class DelayingQueue : public Queue<T>
{
public:
    explicit DelayingQueue(const QueueConfig &config = {});
    ~DelayingQueue() override;

    // Adds `item` once `duration` has passed; at once if duration <= 0. Ignored after
    // shutdown. Counts one retry in the metrics either way.
    void addAfter(const T &item, Duration duration);
    // Stops the timer; items still waiting are dropped.
    void shutDown() override;
    void shutDownWithDrain() override;

    // The number of items waiting for their ready time (not part of len()).
    int waitingLen() const;

private:
    static constexpr Duration MaxWait = std::chrono::seconds(10);

    // The heap holds slots with the ready time inline, so comparisons read contiguous
    // memory; the items live in m_waiting's entries, which know their slot for Fix.
    struct Slot
    {
        TimePoint readyAt;
        int node;
    };

    void stopWaiting();
    void onTimer();
    void armLocked(TimePoint now);
    // Go's container/heap, step for step, so that items due together are added in the
    // same order as client-go adds them.
    bool less(int i, int j) const { return m_heap[size_t(i)].readyAt < m_heap[size_t(j)].readyAt; }
    void swap(int i, int j);
    void up(int j);
    bool down(int i0, int n);
    void push(Slot slot);
    Slot pop();

    mutable std::mutex m_waitMutex;
    std::vector<Slot> m_heap; // guarded by m_waitMutex
    qcm::detail::ItemTable<T, int> m_waiting; // item -> its slot; guarded by m_waitMutex
    TimePoint m_armedAt = TimePoint::max(); // guarded by m_waitMutex
    bool m_stopped = false; // guarded by m_waitMutex
    RetryMetrics m_retries;
    std::unique_ptr<Timer> m_timer;
};

template<typename T>
DelayingQueue<T>::DelayingQueue(const QueueConfig &config)
    : Queue<T>(config), m_retries(config), m_timer(this->clock()->newTimer([this] { onTimer(); }))
{
    std::lock_guard lock(m_waitMutex);
    armLocked(this->clock()->now());
}

template<typename T>
DelayingQueue<T>::~DelayingQueue()
{
    stopWaiting();
}

template<typename T>
void DelayingQueue<T>::addAfter(const T &item, Duration duration)
{
    if (this->shuttingDown())
        return;
    m_retries.retry();
    if (duration <= Duration::zero()) {
        this->add(item);
        return;
    }
    const size_t hash = m_waiting.hashOf(item); // outside the lock
    const TimePoint now = this->clock()->now();
    const TimePoint readyAt = now + duration;
    std::lock_guard lock(m_waitMutex);
    if (m_stopped)
        return;
    bool created = false;
    const int node = m_waiting.findOrInsert(item, hash, &created);
    if (created) {
        push(Slot {readyAt, node});
    } else if (const int index = m_waiting.entry(node).value;
               readyAt < m_heap[size_t(index)].readyAt) {
        m_heap[size_t(index)].readyAt = readyAt;
        if (!down(index, int(m_heap.size())))
            up(index);
    }
    if (m_heap.front().readyAt < m_armedAt)
        armLocked(now);
}

template<typename T>
void DelayingQueue<T>::shutDown()
{
    Queue<T>::shutDown();
    stopWaiting();
}

template<typename T>
void DelayingQueue<T>::shutDownWithDrain()
{
    stopWaiting();
    Queue<T>::shutDownWithDrain();
}

template<typename T>
int DelayingQueue<T>::waitingLen() const
{
    std::lock_guard lock(m_waitMutex);
    return int(m_heap.size());
}

template<typename T>
void DelayingQueue<T>::stopWaiting()
{
    {
        std::lock_guard lock(m_waitMutex);
        m_stopped = true;
        m_heap.clear();
        m_waiting.clear();
    }
    m_timer->stop();
}

template<typename T>
void DelayingQueue<T>::onTimer()
{
    std::vector<std::pair<T, size_t>> due;
    {
        std::lock_guard lock(m_waitMutex);
        if (m_stopped)
            return;
        const TimePoint now = this->clock()->now();
        while (!m_heap.empty() && !(m_heap.front().readyAt > now)) {
            const int node = pop().node;
            const size_t hash = m_waiting.entry(node).hash;
            due.emplace_back(m_waiting.erase(node), hash);
        }
        armLocked(now);
    }
    // In heap order, under one lock of the queue.
    this->addAll(due);
}

template<typename T>
void DelayingQueue<T>::armLocked(TimePoint now)
{
    TimePoint at = now + MaxWait;
    if (!m_heap.empty() && m_heap.front().readyAt < at)
        at = m_heap.front().readyAt;
    m_armedAt = at;
    m_timer->reset(at);
}

template<typename T>
void DelayingQueue<T>::swap(int i, int j)
{
    std::swap(m_heap[size_t(i)], m_heap[size_t(j)]);
    m_waiting.entry(m_heap[size_t(i)].node).value = i;
    m_waiting.entry(m_heap[size_t(j)].node).value = j;
}

template<typename T>
void DelayingQueue<T>::up(int j)
{
    for (;;) {
        const int i = (j - 1) / 2; // parent
        if (i == j || !less(j, i))
            break;
        swap(i, j);
        j = i;
    }
}

template<typename T>
bool DelayingQueue<T>::down(int i0, int n)
{
    int i = i0;
    for (;;) {
        const int j1 = 2 * i + 1;
        if (j1 >= n || j1 < 0)
            break;
        int j = j1; // left child
        if (const int j2 = j1 + 1; j2 < n && less(j2, j1))
            j = j2; // right child
        if (!less(j, i))
            break;
        swap(i, j);
        i = j;
    }
    return i > i0;
}

template<typename T>
void DelayingQueue<T>::push(Slot slot)
{
    m_waiting.entry(slot.node).value = int(m_heap.size());
    m_heap.push_back(slot);
    up(int(m_heap.size()) - 1);
}

template<typename T>
typename DelayingQueue<T>::Slot DelayingQueue<T>::pop()
{
    const int n = int(m_heap.size()) - 1;
    swap(0, n);
    down(0, n);
    const Slot slot = m_heap.back();
    m_heap.pop_back();
    return slot;
}

} // namespace qcm::workqueue
