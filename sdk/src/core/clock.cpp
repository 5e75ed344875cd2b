// SPDX-License-Identifier: Apache-2.0
#include <qcm/clock.h>
#include <qcm/fakeclock.h>

#include "timerqueue_p.h"

#include <atomic>
#include <thread>

namespace qcm {

Timer::~Timer() = default;
Clock::~Clock() = default;

namespace {

TimePoint steadyNow()
{
    return std::chrono::time_point_cast<Duration>(std::chrono::steady_clock::now());
}

// The real clock: one service thread fires every timer of the process.
class SystemClock final : public Clock
{
public:
    SystemClock()
    {
        std::thread([this] { m_timers.serve(steadyNow); }).detach();
    }
    TimePoint now() const override { return steadyNow(); }
    std::unique_ptr<Timer> newTimer(std::function<void()> callback) override
    {
        return std::make_unique<detail::QueuedTimer>(&m_timers, std::move(callback));
    }

private:
    detail::TimerQueue m_timers;
};

} // namespace

Clock *Clock::system()
{
    // Never destroyed: its thread outlives static destruction, and timers may be stopped
    // from other static destructors.
    static SystemClock *clock = new SystemClock;
    return clock;
}

struct FakeClock::Private
{
    std::atomic<Duration::rep> now;
    std::mutex stepMutex;
    detail::TimerQueue timers;
};

FakeClock::FakeClock(TimePoint start) : d(std::make_unique<Private>())
{
    d->now.store(start.time_since_epoch().count());
}

FakeClock::~FakeClock() = default;

TimePoint FakeClock::now() const
{
    return TimePoint(Duration(d->now.load()));
}

std::unique_ptr<Timer> FakeClock::newTimer(std::function<void()> callback)
{
    return std::make_unique<detail::QueuedTimer>(&d->timers, std::move(callback));
}

void FakeClock::step(Duration delta)
{
    std::lock_guard lock(d->stepMutex);
    d->now.fetch_add(delta.count());
    d->timers.fireDue([this] { return now(); });
}

void FakeClock::setTime(TimePoint t)
{
    std::lock_guard lock(d->stepMutex);
    d->now.store(t.time_since_epoch().count());
    d->timers.fireDue([this] { return now(); });
}

bool FakeClock::hasWaiters() const
{
    return d->timers.armedCount() > 0;
}

int FakeClock::waiterCount() const
{
    return d->timers.armedCount();
}

} // namespace qcm
