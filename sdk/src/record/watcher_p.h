// SPDX-License-Identifier: Apache-2.0
// Watcher: one consumer of an EventBroadcaster: a bounded queue of Events and the thread that
// hands them, one at a time and in order, to the consumer's handler (client-go's broadcaster
// watcher channel plus the goroutine of StartEventWatcher).
//
// Thread safety: every method is safe from any thread. sleep() is for the handler, on the
// watcher's own thread.
#pragma once

#include <qcm/clock.h>
#include <qcm/record/event.h>

#include <chrono>
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
    // stop(), but waits for the thread only until `deadline`: a thread still in the handler
    // then (a sink write that does not return) is detached, keeping this watcher and its
    // handler alive until it returns. False if it was detached.
    bool stop(std::chrono::steady_clock::time_point deadline);
    bool isStopped() const;
    // How many Events were queued so far.
    quint64 queuedCount() const;
    // Waits until the first `count` Events queued have been handled (the handler returned),
    // at most until `deadline`. False on the deadline, once stopped with some unhandled, or
    // when called from the watcher's own thread (it would wait for itself).
    bool waitUntilHandled(quint64 count, std::chrono::steady_clock::time_point deadline);
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
    bool m_finished = false; // run() has returned; guarded by m_mutex
    quint64 m_queued = 0; // Events queued so far; guarded by m_mutex
    quint64 m_handled = 0; // Events handled so far, in order; guarded by m_mutex
    std::condition_variable m_progress; // m_handled and m_finished changes
    std::mutex m_threadMutex; // guards m_thread: stop() may run on several threads at once
    std::thread m_thread;
};

} // namespace qcm::record::detail
