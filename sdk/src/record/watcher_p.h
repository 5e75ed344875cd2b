// Watcher: one consumer of an EventBroadcaster: a bounded queue of Events and the thread that
// hands them, one at a time and in order, to the consumer's handler (client-go's broadcaster
// watcher channel plus the goroutine of StartEventWatcher).
//
// Thread safety: every method is safe from any thread. sleep() is for the handler, on the
// watcher's own thread.
#pragma once

#include <qcm/clock.h>
#include <qcm/record/event.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace qcm::record::detail {

class Watcher : public std::enable_shared_from_this<Watcher>
{
public:
    using Handler = std::function<void(const Event &event, Watcher &watcher)>;
    enum class Offer { Queued, Full, Stopped };

    // A running watcher whose queue holds at most `capacity` Events.
    static std::shared_ptr<Watcher> start(int capacity, Clock *clock, Handler handler);
    ~Watcher();
    Watcher(const Watcher &) = delete;
    Watcher &operator=(const Watcher &) = delete;

    // Queues `event` unless the queue is full or the watcher stopped. Never blocks.
    Offer offer(const Event &event);
    // Discards the queue, cuts a sleep() short, and joins the thread unless called from it.
    void stop();
    bool isStopped() const;
    // Waits `d` on the clock. Returns false (at once, or as soon as it happens) once the
    // watcher is stopped.
    bool sleep(Duration d);

private:
    Watcher(int capacity, Clock *clock, Handler handler);
    void run();

    const int m_capacity;
    Clock *const m_clock;
    const Handler m_handler;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake; // queue, stop and sleep changes
    std::deque<Event> m_queue; // guarded by m_mutex
    bool m_stopped = false; // guarded by m_mutex
    std::mutex m_threadMutex; // guards m_thread: stop() may run on several threads at once
    std::thread m_thread;
};

} // namespace qcm::record::detail
