// SPDX-License-Identifier: Apache-2.0
// FailureCounts: the per-item failure counts of the item rate limiters
// (ItemExponentialFailureRateLimiter, ItemFastSlowRateLimiter), bounded at maxTrackedItems.
//
// Not part of the plugin API. The counts live in the queues' ItemTable, so a string item is
// hashed with keyHash outside the lock: Qt 6.4's seeded qHash of a key under 16 bytes costs
// ~105 ns on an AVX-512 VAES CPU (tests/bench/RESULTS.md, runs 20 and 25).
//
// Thread safety: safe from any thread (one mutex).
#pragma once

#include <qcm/detail/itemtable.h>

#include <QtCore/QtGlobal>

#include <limits>
#include <mutex>
#include <optional>

namespace qcm::detail {

template<typename T>
class FailureCounts
{
public:
    explicit FailureCounts(qsizetype maxTrackedItems) : m_maxTrackedItems(maxTrackedItems) { }

    // The item's count before this call, which adds one to it (saturating at INT_MAX);
    // nullopt, counting nothing, when the item is not tracked and maxTrackedItems are.
    std::optional<int> fetchAdd(const T &item)
    {
        const size_t hash = Table::hashOf(item);
        std::lock_guard lock(m_mutex);
        int e = m_counts.find(item, hash);
        if (e < 0) {
            if (qsizetype(m_counts.size()) >= m_maxTrackedItems)
                return std::nullopt;
            e = m_counts.findOrInsert(item, hash);
        }
        int &count = m_counts.entry(e).value;
        return count < std::numeric_limits<int>::max() ? count++ : count;
    }

    void forget(const T &item)
    {
        const size_t hash = Table::hashOf(item);
        [[maybe_unused]] T released; // destroyed after the lock
        std::lock_guard lock(m_mutex);
        const int e = m_counts.find(item, hash);
        if (e >= 0)
            released = m_counts.erase(e);
    }

    int count(const T &item)
    {
        const size_t hash = Table::hashOf(item);
        std::lock_guard lock(m_mutex);
        const int e = m_counts.find(item, hash);
        return e < 0 ? 0 : m_counts.entry(e).value;
    }

private:
    using Table = ItemTable<T, int>;

    std::mutex m_mutex;
    Table m_counts; // guarded by m_mutex; at most m_maxTrackedItems entries
    const qsizetype m_maxTrackedItems;
};

} // namespace qcm::detail
