// SPDX-License-Identifier: Apache-2.0
// TimerQueue: the set of armed timers shared by the real and the fake clock.
//
// It owns the ordering of deadlines and the "is a callback running" state that lets
// Timer::stop() wait for a running callback. The real clock runs it on one service thread;
// the fake clock runs it on the thread that steps time.
//
// Thread safety: every method is safe from any thread. Callbacks run without the lock held.
#pragma once

#include <qcm/clock.h>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace qcm::detail {

class TimerQueue
{
public:
    struct Entry
    {
        std::function<void()> callback;
        std::multimap<TimePoint, Entry *>::iterator position;
        bool armed = false;
        // Set while stop() waits for the running callback: a reset() from that callback
        // is ignored, so that stop() really leaves the timer disarmed.
        bool stopping = false;
    };

    // Arms or re-arms `entry`. Returns true if it became the earliest deadline.
    bool arm(Entry *entry, TimePoint deadline);
    // Disarms `entry` and waits until its callback is not running (unless called from it).
    void disarm(Entry *entry);

    // Fires every timer due at `now()`, earliest first, on the calling thread.
    void fireDue(const std::function<TimePoint()> &now);
    // Runs forever on the service thread of the real clock.
    [[noreturn]] void serve(const std::function<TimePoint()> &now);

    int armedCount() const;

private:
    // Pops the earliest timer if it is due; the lock must be held.
    Entry *takeDue(TimePoint now);
    void run(std::unique_lock<std::mutex> &lock, Entry *entry);

    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::multimap<TimePoint, Entry *> m_armed;
    Entry *m_running = nullptr;
    std::thread::id m_runningThread;
};

// The Timer handed out by both clocks.
class QueuedTimer : public Timer
{
public:
    QueuedTimer(TimerQueue *queue, std::function<void()> callback);
    ~QueuedTimer() override;
    void reset(TimePoint deadline) override;
    void stop() override;

private:
    TimerQueue *m_queue;
    TimerQueue::Entry m_entry;
};

} // namespace qcm::detail
