// SPDX-License-Identifier: Apache-2.0
// Clock: the time source and timer service behind every queue, limiter and elector.
//
// client-go injects k8s.io/utils/clock so that tests can drive time; qcm does the same.
// Clock::system() is the real, monotonic clock (steady_clock). FakeClock (fakeclock.h) is
// the test double: time moves only when a test steps it, and due timers fire synchronously.
//
// Thread safety: every method of Clock and Timer may be called from any thread.
#pragma once

#include <qcm/global.h>

#include <chrono>
#include <functional>
#include <memory>

namespace qcm {

using Duration = std::chrono::nanoseconds;
using TimePoint = std::chrono::time_point<std::chrono::steady_clock, Duration>;

// A one-shot timer owned by one user. The callback runs on the clock's timer thread (the
// real clock) or on the thread that steps time (the fake clock). Callbacks must be short.
class QCM_SDK_EXPORT Timer
{
public:
    virtual ~Timer();
    // Arms the timer to fire once at `deadline`, replacing any earlier deadline. A deadline
    // in the past fires as soon as possible.
    virtual void reset(TimePoint deadline) = 0;
    // Disarms the timer. When it returns the callback is not running and will not run,
    // except when stop() is called from inside the callback itself.
    virtual void stop() = 0;
};

class QCM_SDK_EXPORT Clock
{
public:
    virtual ~Clock();
    virtual TimePoint now() const = 0;
    Duration since(TimePoint t) const { return now() - t; }
    // A new, disarmed timer. Destroying it stops it.
    virtual std::unique_ptr<Timer> newTimer(std::function<void()> callback) = 0;

    // The process-wide real clock: monotonic, with one timer thread for every timer.
    static Clock *system();
};

} // namespace qcm
