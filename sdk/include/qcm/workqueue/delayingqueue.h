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

    // One waiting item; `index` is its slot in the heap.
    struct WaitFor
    {
        T data;
        TimePoint readyAt;
        int index;
    };

    void stopWaiting();
    void onTimer();
    void armLocked(TimePoint now);
    // Go's container/heap, step for step, so that items due together are added in the
    // same order as client-go adds them.
    bool less(int i, int j) const { return m_heap[i]->readyAt < m_heap[j]->readyAt; }
    void swap(int i, int j);
    void up(int j);
    bool down(int i0, int n);
    void push(std::unique_ptr<WaitFor> entry);
    std::unique_ptr<WaitFor> pop();

    mutable std::mutex m_waitMutex;
    std::vector<std::unique_ptr<WaitFor>> m_heap; // guarded by m_waitMutex
    QHash<T, WaitFor *> m_waiting; // item -> its heap entry; guarded by m_waitMutex
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
    const TimePoint now = this->clock()->now();
    const TimePoint readyAt = now + duration;
    std::lock_guard lock(m_waitMutex);
    if (m_stopped)
        return;
    if (auto it = m_waiting.find(item); it != m_waiting.end()) {
        WaitFor *existing = *it;
        if (readyAt < existing->readyAt) {
            existing->readyAt = readyAt;
            if (!down(existing->index, int(m_heap.size())))
                up(existing->index);
        }
    } else {
        auto entry = std::make_unique<WaitFor>(WaitFor {item, readyAt, 0});
        m_waiting.insert(item, entry.get());
        push(std::move(entry));
    }
    if (m_heap.front()->readyAt < m_armedAt)
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
    std::lock_guard lock(m_waitMutex);
    if (m_stopped)
        return;
    const TimePoint now = this->clock()->now();
    while (!m_heap.empty() && !(m_heap.front()->readyAt > now)) {
        std::unique_ptr<WaitFor> entry = pop();
        m_waiting.remove(entry->data);
        this->add(entry->data);
    }
    armLocked(now);
}

template<typename T>
void DelayingQueue<T>::armLocked(TimePoint now)
{
    TimePoint at = now + MaxWait;
    if (!m_heap.empty() && m_heap.front()->readyAt < at)
        at = m_heap.front()->readyAt;
    m_armedAt = at;
    m_timer->reset(at);
}

template<typename T>
void DelayingQueue<T>::swap(int i, int j)
{
    std::swap(m_heap[i], m_heap[j]);
    m_heap[i]->index = i;
    m_heap[j]->index = j;
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
void DelayingQueue<T>::push(std::unique_ptr<WaitFor> entry)
{
    entry->index = int(m_heap.size());
    m_heap.push_back(std::move(entry));
    up(int(m_heap.size()) - 1);
}

template<typename T>
std::unique_ptr<typename DelayingQueue<T>::WaitFor> DelayingQueue<T>::pop()
{
    const int n = int(m_heap.size()) - 1;
    swap(0, n);
    down(0, n);
    std::unique_ptr<WaitFor> entry = std::move(m_heap.back());
    m_heap.pop_back();
    entry->index = -1;
    return entry;
}

} // namespace qcm::workqueue
