// SPDX-License-Identifier: Apache-2.0
// LruExpireCache: the cache behind delegated authentication and authorization, as
// k8s.io/apimachinery's LRUExpireCache: each entry lives for the TTL it was added with, and
// at most `capacity` entries are held; adding one more evicts the least recently used. An
// entry past its TTL is never returned. Time comes from a Clock, so tests step it.
//
// Thread safety: none; the host's main thread uses it.
#pragma once

#include <qcm/clock.h>

#include <QtCore/QByteArray>
#include <QtCore/QHashFunctions>

#include <list>
#include <optional>
#include <unordered_map>

namespace qcm::host {

template<typename Value>
class LruExpireCache
{
public:
    explicit LruExpireCache(std::size_t capacity, Clock *clock = Clock::system())
        : m_capacity(capacity), m_clock(clock)
    { }

    std::optional<Value> get(const QByteArray &key)
    {
        const auto it = m_index.find(key);
        if (it == m_index.end())
            return std::nullopt;
        if (m_clock->now() >= it->second->expires) {
            m_entries.erase(it->second);
            m_index.erase(it);
            return std::nullopt;
        }
        m_entries.splice(m_entries.begin(), m_entries, it->second); // most recently used
        return it->second->value;
    }

    void add(const QByteArray &key, Value value, Duration ttl)
    {
        if (ttl <= Duration::zero() || m_capacity == 0)
            return;
        if (const auto it = m_index.find(key); it != m_index.end()) {
            m_entries.erase(it->second);
            m_index.erase(it);
        }
        m_entries.push_front({key, std::move(value), m_clock->now() + ttl});
        m_index.emplace(key, m_entries.begin());
        while (m_entries.size() > m_capacity) {
            m_index.erase(m_entries.back().key);
            m_entries.pop_back();
        }
    }

    std::size_t size() const { return m_entries.size(); }

private:
    struct Entry
    {
        QByteArray key;
        Value value;
        TimePoint expires;
    };
    struct Hash
    {
        std::size_t operator()(const QByteArray &b) const { return qHash(b); }
    };

    std::size_t m_capacity;
    Clock *m_clock;
    std::list<Entry> m_entries; // most recently used first
    std::unordered_map<QByteArray, typename std::list<Entry>::iterator, Hash> m_index;
};

} // namespace qcm::host
