// SPDX-License-Identifier: Apache-2.0
// TokenBucket: golang.org/x/time/rate's Limiter, for one caller-supplied time line.
//
// A bucket of `burst` tokens, initially full, refilled at `limit` tokens per second.
// reserve() takes tokens now, possibly going into debt, and says when the caller may act:
// the reservation semantics that client-go's BucketRateLimiter and the REST client's QPS
// limiter are built on. The arithmetic copies x/time/rate's float64 steps exactly, so the
// same calls at the same times give the same nanoseconds.
//
// Thread safety: every method is safe from any thread.
#pragma once

#include <qcm/clock.h>

#include <limits>
#include <mutex>
#include <optional>

namespace qcm {

class QCM_SDK_EXPORT TokenBucket
{
public:
    // x/time/rate's InfDuration: the wait of a reservation that can never be met.
    static constexpr Duration InfDuration = Duration(std::numeric_limits<Duration::rep>::max());

    // `limit` tokens per second (DBL_MAX or +infinity allows everything, like rate.Inf); `burst`
    // tokens at most.
    TokenBucket(double limit, int burst);

    // Reserves `n` tokens at time `now`; returns how long to wait from `now` before acting.
    // Returns InfDuration (and reserves nothing) when n > burst.
    Duration reserve(TimePoint now, int n = 1);
    // Takes `n` tokens only if they are available at `now` without waiting.
    bool allow(TimePoint now, int n = 1);
    // Tokens available at `now`.
    double tokensAt(TimePoint now) const;

    double limit() const;
    int burst() const;

private:
    double advance(TimePoint now) const;
    bool isInf() const;
    std::optional<Duration> reserveLocked(TimePoint now, int n, Duration maxFutureReserve);

    mutable std::mutex m_mutex;
    double m_limit;
    int m_burst;
    double m_tokens;
    TimePoint m_last {};
};

} // namespace qcm
