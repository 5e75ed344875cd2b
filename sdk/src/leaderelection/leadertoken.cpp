// SPDX-License-Identifier: Apache-2.0
#include <qcm/leaderelection/leadertoken.h>

#include <condition_variable>
#include <mutex>

namespace qcm::leaderelection {

struct LeaderToken::State
{
    Clock *clock = nullptr;
    mutable std::mutex mutex;
    std::condition_variable changed;
    TimePoint deadline; // guarded by mutex
    std::optional<TimePoint> cancelledAt; // guarded by mutex

    bool validLocked() const { return !cancelledAt && clock->now() < deadline; }
};

LeaderToken::LeaderToken() = default;

LeaderToken::LeaderToken(Clock *clock, TimePoint deadline) : d(std::make_shared<State>())
{
    d->clock = clock;
    d->deadline = deadline;
}

bool LeaderToken::isValid() const
{
    if (!d)
        return false;
    std::lock_guard lock(d->mutex);
    return d->validLocked();
}

TimePoint LeaderToken::deadline() const
{
    if (!d)
        return {};
    std::lock_guard lock(d->mutex);
    return d->deadline;
}

TimePoint LeaderToken::endedAt() const
{
    if (!d)
        return {};
    std::lock_guard lock(d->mutex);
    return d->cancelledAt ? std::min(*d->cancelledAt, d->deadline) : d->deadline;
}

bool LeaderToken::waitUntilInvalid(Duration timeout) const
{
    if (!d)
        return true;
    const auto until = std::chrono::steady_clock::now() + timeout;
    std::unique_lock lock(d->mutex);
    while (d->validLocked()) {
        // Wake at the deadline too (it is on the elector's clock; for the system clock that
        // is steady_clock), in slices so that a moved deadline is noticed.
        const auto slice
            = std::min<Duration>(d->deadline - d->clock->now(), std::chrono::milliseconds(100));
        const auto wakeAt = std::min(until, std::chrono::steady_clock::now() + slice);
        if (d->changed.wait_until(lock, wakeAt) == std::cv_status::timeout
            && std::chrono::steady_clock::now() >= until)
            return !d->validLocked();
    }
    return true;
}

void LeaderToken::extend(TimePoint deadline) const
{
    if (!d)
        return;
    std::lock_guard lock(d->mutex);
    if (!d->cancelledAt)
        d->deadline = std::max(d->deadline, deadline);
}

void LeaderToken::cancel() const
{
    if (!d)
        return;
    {
        std::lock_guard lock(d->mutex);
        if (d->cancelledAt)
            return;
        d->cancelledAt = d->clock->now();
    }
    d->changed.notify_all();
}

} // namespace qcm::leaderelection
