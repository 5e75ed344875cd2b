// SPDX-License-Identifier: Apache-2.0
// LruCache: a map of at most maxEntries keys that forgets the least recently used one
// (k8s.io/utils/lru, as client-go's event caches use it): get() and add() both count as use.
//
// Not thread-safe: its owner locks.
#pragma once

#include <QtCore/QHash>
#include <QtCore/QString>

#include <list>
#include <utility>

namespace qcm::record {

template<typename V>
class LruCache
{
public:
    explicit LruCache(int maxEntries) : m_maxEntries(maxEntries) { }

    // The value of `key`, now the most recently used; null if absent.
    V *get(const QString &key)
    {
        auto it = m_index.find(key);
        if (it == m_index.end())
            return nullptr;
        m_entries.splice(m_entries.begin(), m_entries, it.value());
        return &it.value()->second;
    }

    // Sets `key` to `value`, the most recently used; evicts the least recently used key when
    // the cache grows past maxEntries (0: no limit).
    void add(const QString &key, V value)
    {
        if (V *existing = get(key)) {
            *existing = std::move(value);
            return;
        }
        m_entries.emplace_front(key, std::move(value));
        m_index.insert(key, m_entries.begin());
        if (m_maxEntries > 0 && int(m_entries.size()) > m_maxEntries) {
            m_index.remove(m_entries.back().first);
            m_entries.pop_back();
        }
    }

    int size() const { return int(m_entries.size()); }

private:
    using Entries = std::list<std::pair<QString, V>>;
    int m_maxEntries;
    Entries m_entries; // most recently used first
    QHash<QString, typename Entries::iterator> m_index;
};

} // namespace qcm::record
