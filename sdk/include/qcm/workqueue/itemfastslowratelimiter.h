// SPDX-License-Identifier: Apache-2.0
// ItemFastSlowRateLimiter: a fast delay for the first attempts, then a slow one (client-go's
// TypedItemFastSlowRateLimiter).
//
// when() increments the item's count first, then returns fastDelay while the count is at
// most maxFastAttempts, else slowDelay. The failure map is bounded; see DefaultMaxTrackedItems.
//
// Thread safety: safe from any thread.
#pragma once

#include <qcm/workqueue/ratelimiter.h>

#include <QtCore/QHash>

#include <mutex>

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
        , m_maxTrackedItems(maxTrackedItems)
    { }

    Duration when(const T &item) override
    {
        std::lock_guard lock(m_mutex);
        auto it = m_failures.find(item);
        if (it == m_failures.end()) {
            if (m_failures.size() >= m_maxTrackedItems)
                return m_slowDelay;
            it = m_failures.insert(item, 0);
        }
        return ++*it <= m_maxFastAttempts ? m_fastDelay : m_slowDelay;
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
    const Duration m_fastDelay;
    const Duration m_slowDelay;
    const int m_maxFastAttempts;
    const qsizetype m_maxTrackedItems;
};

} // namespace qcm::workqueue
