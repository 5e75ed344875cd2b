// SPDX-License-Identifier: Apache-2.0
// ItemFastSlowRateLimiter: a fast delay for the first attempts, then a slow one (client-go's
// TypedItemFastSlowRateLimiter).
//
// when() increments the item's count first, then returns fastDelay while the count is at
// most maxFastAttempts, else slowDelay. The failure map is bounded; see DefaultMaxTrackedItems.
//
// Thread safety: safe from any thread.
#pragma once

#include <qcm/detail/failurecounts.h>
#include <qcm/workqueue/ratelimiter.h>

namespace qcm::workqueue {

template<typename T>
class ItemFastSlowRateLimiter : public RateLimiter<T>
{
public:
    ItemFastSlowRateLimiter(Duration fastDelay, Duration slowDelay, int maxFastAttempts,
        int maxTrackedItems = DefaultMaxTrackedItems)
        : m_fastDelay(fastDelay)
        , m_slowDelay(slowDelay)
        , m_maxFastAttempts(maxFastAttempts)
        , m_failures(maxTrackedItems)
    { }

    Duration when(const T &item) override
    {
        const std::optional<int> failures = m_failures.fetchAdd(item);
        return failures && *failures < m_maxFastAttempts ? m_fastDelay : m_slowDelay;
    }

    void forget(const T &item) override { m_failures.forget(item); }

    int numRequeues(const T &item) override { return m_failures.count(item); }

private:
    const Duration m_fastDelay;
    const Duration m_slowDelay;
    const int m_maxFastAttempts;
    qcm::detail::FailureCounts<T> m_failures;
};

} // namespace qcm::workqueue
