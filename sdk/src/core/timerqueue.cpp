// SPDX-License-Identifier: Apache-2.0
#include "timerqueue_p.h"

namespace qcm::detail {

bool TimerQueue::arm(Entry *entry, TimePoint deadline)
{
    std::lock_guard lock(m_mutex);
    if (entry->stopping)
        return false;
    if (entry->armed)
        m_armed.erase(entry->position);
    entry->position = m_armed.emplace(deadline, entry);
    entry->armed = true;
    const bool earliest = entry->position == m_armed.begin();
    if (earliest)
        m_changed.notify_all();
    return earliest;
}

void TimerQueue::disarm(Entry *entry)
{
    std::unique_lock lock(m_mutex);
    if (entry->armed) {
        m_armed.erase(entry->position);
        entry->armed = false;
    }
    if (m_running != entry || m_runningThread == std::this_thread::get_id())
        return;
    entry->stopping = true;
    m_changed.wait(lock, [&] { return m_running != entry; });
    entry->stopping = false;
    if (entry->armed) {
        m_armed.erase(entry->position);
        entry->armed = false;
    }
}

TimerQueue::Entry *TimerQueue::takeDue(TimePoint now)
{
    if (m_armed.empty() || m_armed.begin()->first > now)
        return nullptr;
    Entry *entry = m_armed.begin()->second;
    m_armed.erase(m_armed.begin());
    entry->armed = false;
    return entry;
}

void TimerQueue::run(std::unique_lock<std::mutex> &lock, Entry *entry)
{
    m_running = entry;
    m_runningThread = std::this_thread::get_id();
    lock.unlock();
    entry->callback();
    lock.lock();
    m_running = nullptr;
    m_runningThread = {};
    m_changed.notify_all();
}

void TimerQueue::fireDue(const std::function<TimePoint()> &now)
{
    std::unique_lock lock(m_mutex);
    while (Entry *entry = takeDue(now()))
        run(lock, entry);
}

void TimerQueue::serve(const std::function<TimePoint()> &now)
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        if (m_armed.empty()) {
            m_changed.wait(lock);
            continue;
        }
        const TimePoint deadline = m_armed.begin()->first;
        if (deadline > now()) {
            m_changed.wait_until(lock, deadline);
            continue;
        }
        if (Entry *entry = takeDue(now()))
            run(lock, entry);
    }
}

int TimerQueue::armedCount() const
{
    std::lock_guard lock(m_mutex);
    return int(m_armed.size());
}

QueuedTimer::QueuedTimer(TimerQueue *queue, std::function<void()> callback) : m_queue(queue)
{
    m_entry.callback = std::move(callback);
}

QueuedTimer::~QueuedTimer()
{
    m_queue->disarm(&m_entry);
}

void QueuedTimer::reset(TimePoint deadline)
{
    m_queue->arm(&m_entry, deadline);
}

void QueuedTimer::stop()
{
    m_queue->disarm(&m_entry);
}

} // namespace qcm::detail
