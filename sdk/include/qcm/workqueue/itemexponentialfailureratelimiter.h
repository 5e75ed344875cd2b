// SPDX-License-Identifier: Apache-2.0
// ItemExponentialFailureRateLimiter: per-item exponential backoff (client-go's
// TypedItemExponentialFailureRateLimiter).
//
// when() returns baseDelay * 2^failures, with failures read before it is incremented (so the
// first failure waits baseDelay), capped at maxDelay and guarded against overflow.
// The failure map is bounded; see DefaultMaxTrackedItems.
//
// Thread safety: safe from any thread.
#pragma once

#include <qcm/detail/failurecounts.h>
#include <qcm/workqueue/ratelimiter.h>

#include <cmath>

namespace qcm::workqueue {

template<typename T>
class ItemExponentialFailureRateLimiter : public RateLimiter<T>
{
public:
    ItemExponentialFailureRateLimiter(
        Duration baseDelay, Duration maxDelay, int maxTrackedItems = DefaultMaxTrackedItems)
        : m_baseDelay(baseDelay), m_maxDelay(maxDelay), m_failures(maxTrackedItems)
    { }

    Duration when(const T &item) override
    {
        const std::optional<int> failures = m_failures.fetchAdd(item);
        if (!failures)
            return m_maxDelay;
        const int exp = *failures;
        // baseDelay * 2^exp by ldexp (exact, as pow(2, exp) is, without pow's cost). Overflow
        // guard: 2^63 ns and more is past any maxDelay; with a positive baseDelay every exp
        // from 63 on is.
        const Duration::rep base = m_baseDelay.count();
        if (base > 0 && exp >= 63)
            return m_maxDelay;
        const double backoff = std::ldexp(double(base), exp);
        if (!(std::fabs(backoff) < 9223372036854775808.0))
            return m_maxDelay;
        const Duration calculated(Duration::rep {static_cast<Duration::rep>(backoff)});
        return calculated > m_maxDelay ? m_maxDelay : calculated;
    }

    void forget(const T &item) override { m_failures.forget(item); }

    int numRequeues(const T &item) override { return m_failures.count(item); }

private:
    const Duration m_baseDelay;
    const Duration m_maxDelay;
    qcm::detail::FailureCounts<T> m_failures;
};

} // namespace qcm::workqueue
