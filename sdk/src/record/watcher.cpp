// SPDX-License-Identifier: Apache-2.0
#include "logging_p.h"
#include "watcher_p.h"

#include <qcm/detail/exceptiontext.h>
#include <qcm/record/eventwatcher.h>

#include <pthread.h>

namespace qcm::record {

namespace detail {

Watcher::Watcher(int capacity, Clock *clock, Handler handler)
    : m_capacity(capacity), m_clock(clock), m_handler(std::move(handler))
{ }

std::shared_ptr<Watcher> Watcher::start(int capacity, Clock *clock, Handler handler)
{
    std::shared_ptr<Watcher> watcher(new Watcher(capacity, clock, std::move(handler)));
    // The thread keeps its watcher alive until it has finished.
    std::lock_guard lock(watcher->m_threadMutex);
    watcher->m_thread = std::thread([self = watcher] {
        pthread_setname_np(pthread_self(), "qcm-record");
        self->run();
    });
    return watcher;
}

Watcher::~Watcher()
{
    // The last reference may be the thread's own, dropped as it finishes.
    if (m_thread.joinable()) {
        if (m_thread.get_id() == std::this_thread::get_id())
            m_thread.detach();
        else
            m_thread.join();
    }
}

Watcher::Offer Watcher::offer(const Event &event)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_stopped)
            return Offer::Stopped;
        if (int(m_queue.size()) >= m_capacity)
            return Offer::Full;
        m_queue.push_back(event);
        ++m_queued;
    }
    m_wake.notify_all();
    return Offer::Queued;
}

void Watcher::stop()
{
    stop(std::chrono::steady_clock::time_point::max());
}

bool Watcher::stop(std::chrono::steady_clock::time_point deadline)
{
    size_t discarded = 0;
    {
        std::lock_guard lock(m_mutex);
        if (!m_stopped) {
            m_stopped = true;
            discarded = m_queue.size();
            m_queue.clear();
        }
    }
    m_wake.notify_all();
    if (discarded > 0)
        qCInfo(lcRecord) << "Event watcher stopped:" << discarded << "queued event(s) discarded";
    m_progress.notify_all(); // a waitUntilHandled() gives up: what it waits for is discarded
    std::lock_guard lock(m_threadMutex);
    if (!m_thread.joinable() || m_thread.get_id() == std::this_thread::get_id())
        return true;
    if (deadline != std::chrono::steady_clock::time_point::max()) {
        std::unique_lock stateLock(m_mutex);
        if (!m_progress.wait_until(stateLock, deadline, [this] { return m_finished; })) {
            m_thread.detach(); // it holds this watcher until it returns
            return false;
        }
    }
    m_thread.join();
    return true;
}

quint64 Watcher::queuedCount() const
{
    std::lock_guard lock(m_mutex);
    return m_queued;
}

bool Watcher::waitUntilHandled(quint64 count, std::chrono::steady_clock::time_point deadline)
{
    {
        std::lock_guard lock(m_threadMutex);
        if (m_thread.get_id() == std::this_thread::get_id())
            return false;
    }
    std::unique_lock lock(m_mutex);
    m_progress.wait_until(lock, deadline, [&] { return m_handled >= count || m_stopped; });
    return m_handled >= count;
}

bool Watcher::isStopped() const
{
    std::lock_guard lock(m_mutex);
    return m_stopped;
}

bool Watcher::sleep(Duration d)
{
    if (d <= Duration::zero())
        return !isStopped();
    bool fired = false; // guarded by m_mutex
    auto timer = m_clock->newTimer([this, &fired] {
        {
            std::lock_guard lock(m_mutex);
            fired = true;
        }
        m_wake.notify_all();
    });
    timer->reset(m_clock->now() + d);
    bool stopped = false;
    {
        std::unique_lock lock(m_mutex);
        m_wake.wait(lock, [&] { return fired || m_stopped; });
        stopped = m_stopped;
    }
    timer->stop(); // waits for a running callback, which takes m_mutex: not held here
    return !stopped;
}

void Watcher::run()
{
    for (;;) {
        Event event;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopped || !m_queue.empty(); });
            if (m_stopped) {
                m_finished = true;
                m_progress.notify_all();
                return;
            }
            event = std::move(m_queue.front());
            m_queue.pop_front();
        }
        try {
            m_handler(event, *this);
        } catch (...) {
            qCWarning(lcRecord).noquote() << "An event handler threw:"
                                          << qcm::detail::exceptionText(std::current_exception());
        }
        {
            std::lock_guard lock(m_mutex);
            ++m_handled;
        }
        m_progress.notify_all();
    }
}

} // namespace detail

EventWatcher::EventWatcher() = default;
EventWatcher::EventWatcher(std::shared_ptr<detail::Watcher> watcher) : d(std::move(watcher)) { }
EventWatcher::~EventWatcher() = default;
EventWatcher::EventWatcher(const EventWatcher &) = default;
EventWatcher &EventWatcher::operator=(const EventWatcher &) = default;

void EventWatcher::stop()
{
    if (d)
        d->stop();
}

bool EventWatcher::isStopped() const
{
    return !d || d->isStopped();
}

} // namespace qcm::record
