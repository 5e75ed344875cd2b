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

#include <qcm/workqueue/ratelimiter.h>

#include <QtCore/QHash>

#include <cmath>
#include <mutex>

namespace qcm::workqueue {

template<typename T>
class ItemExponentialFailureRateLimiter : public RateLimiter<T>
{
public:
    ItemExponentialFailureRateLimiter(
        Duration baseDelay, Duration maxDelay, int maxTrackedItems = DefaultMaxTrackedItems)
        : m_baseDelay(baseDelay), m_maxDelay(maxDelay), m_maxTrackedItems(maxTrackedItems)
    { }

    Duration when(const T &item) override
    {
        std::lock_guard lock(m_mutex);
        auto it = m_failures.find(item);
        if (it == m_failures.end()) {
            if (m_failures.size() >= m_maxTrackedItems)
                return m_maxDelay;
            it = m_failures.insert(item, 0);
        }
        const int exp = (*it)++;
        // Overflow guard: 2^63 ns and more is past any maxDelay.
        const double backoff = double(m_baseDelay.count()) * std::pow(2.0, double(exp));
        if (!(backoff < 9223372036854775808.0))
            return m_maxDelay;
        const Duration calculated(Duration::rep {static_cast<Duration::rep>(backoff)});
        return calculated > m_maxDelay ? m_maxDelay : calculated;
    }

    void forget(const T &item) override
    {
        std::lock_guard lock(m_mutex);
        m_failures.remove(item);
    }

    int numRequeues(const T &item) override
    {
        std::lock_guard lock(m_mutex);
        return m_failures.value(item);
    }

private:
    std::mutex m_mutex;
    QHash<T, int> m_failures; // guarded by m_mutex; at most m_maxTrackedItems entries
    const Duration m_baseDelay;
    const Duration m_maxDelay;
    const qsizetype m_maxTrackedItems;
};

} // namespace qcm::workqueue
