// SPDX-License-Identifier: Apache-2.0
// FakeClock: a Clock whose time moves only when a test steps it (k8s.io/utils/clock/testing).
//
// step() and setTime() fire every timer that has come due, in deadline order, synchronously
// on the calling thread, before they return. Tests therefore never sleep to wait for
// behaviour: after step() returns, everything that time made due has happened.
//
// Thread safety: all methods may be called from any thread; steps are serialised.
#pragma once

#include <qcm/clock.h>

#include <memory>

namespace qcm {

namespace detail {
class TimerQueue;
}

class QCM_SDK_EXPORT FakeClock : public Clock
{
public:
    explicit FakeClock(TimePoint start = TimePoint(std::chrono::hours(24)));
    ~FakeClock() override;

    TimePoint now() const override;
    std::unique_ptr<Timer> newTimer(std::function<void()> callback) override;

    // Advances time by `d` and fires the timers due by then.
    void step(Duration d);
    // Sets time (forwards or backwards) and fires the timers due by then.
    void setTime(TimePoint t);
    // True while at least one timer is armed.
    bool hasWaiters() const;
    int waiterCount() const;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm
