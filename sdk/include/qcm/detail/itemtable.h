// SPDX-License-Identifier: Apache-2.0
// ItemTable: a pool of entries keyed by item, with the item's hash stored in the entry.
//
// Only the hash's low 32 bits count (a slot's home and its fragment come from them), so an
// entry keeps only those: 40 bytes instead of 48 for a QString queue's entry, which made queue
// case (b) about 4 % faster (tests/bench/RESULTS.md, run 12). A hash read back from an entry
// finds the entry again.
//
// Not part of the plugin API. Queue, DelayingQueue and DeltaFifo keep per-item state here,
// and Indexer its objects, instead of in QHash because the caller computes the hash once,
// outside its lock, and every later lookup, move or removal reuses it; and because a probe
// compares the stored hash fragments, so a lookup reads one key (QHash compares the key of
// every slot it probes, each on a line, often a page, of its own: RESULTS.md, run 27). Entries are
// numbered and pooled: numbers and references stay valid until erase(), erased entries are reused
// without allocating, and the pool grows in chunks without moving the entries it has (a vector's
// reallocation under the owner's lock cost about a fifth of queue case (b): RESULTS.md, run 13).
//
// Exception safety: an insert whose copy or move of the item throws leaves the table as it
// was (the exception propagates).
//
// Thread safety: none of its own; the owner serialises every call.
#pragma once

#include <qcm/detail/chunkedpool.h>
#include <qcm/detail/keyhash.h>

#include <QtCore/QHashFunctions>

#include <atomic>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace qcm::detail {

template<typename T, typename V>
class ItemTable
{
public:
    struct Entry
    {
        T item;
        quint32 hash = 0; // the low 32 bits of the caller's hash
        bool live = false;
        V value {};
    };

    // String keys take keyHash (keyhash.h says why); any other T its seeded qHash.
    static size_t hashOf(const T &item)
    {
        if constexpr (std::is_same_v<T, QString> || std::is_same_v<T, QByteArray>)
            return keyHash(item);
        else
            return qHash(item, QHashSeed::globalSeed());
    }

    // For the caller before it takes its lock: starts loading the index slot that a lookup
    // of `hash` probes first, so that the miss (the slots are written by every thread) is
    // not taken inside the lock. Safe without the lock: it reads two atomics, and a prefetch
    // of a stale address does nothing.
    void prefetch(size_t hash) const
    {
        const Slot *index = m_slotsHint.load(std::memory_order_relaxed);
        if (index)
            __builtin_prefetch(index + (hash & m_maskHint.load(std::memory_order_relaxed)), 1);
    }

    // The entry of `item`, or -1.
    int find(const T &item, size_t hash) const
    {
        if (m_slots.empty())
            return -1;
        const quint32 fragment = quint32(hash);
        for (size_t i = hash & m_mask;; i = (i + 1) & m_mask) {
            const Slot slot = m_slots[i];
            if (slot.entry < 0)
                return -1;
            if (slot.fragment == fragment && m_entries[size_t(slot.entry)].item == item)
                return slot.entry;
        }
    }

    // The entry of `item`; `created` says whether it is new (with a default value). A new
    // entry takes `item` by move when it is an rvalue; an existing one leaves it untouched.
    template<typename U>
    int findOrInsert(U &&item, size_t hash, bool *created = nullptr)
    {
        if ((m_used + 1) * 2 > m_slots.size())
            grow();
        const quint32 fragment = quint32(hash);
        size_t i = hash & m_mask;
        for (;; i = (i + 1) & m_mask) {
            const Slot slot = m_slots[i];
            if (slot.entry < 0)
                break;
            if (slot.fragment == fragment && m_entries[size_t(slot.entry)].item == item) {
                if (created)
                    *created = false;
                return slot.entry;
            }
        }
        const bool reused = !m_free.empty();
        const int e = reused ? m_free.back() : int(m_entries.size());
        if (!reused)
            m_entries.grow(); // on a throw (out of memory) nothing has changed
        Entry &entry = m_entries[size_t(e)];
        // An erased or new entry holds a default T. Where T's construction cannot throw,
        // construct over it (an inline copy for QString, where assignment is an out-of-line
        // call); otherwise assign, so that a throwing copy leaves the entry a valid T, free
        // for reuse, and the table as it was.
        constexpr bool itemCannotThrow = std::is_nothrow_constructible_v<T, U &&>;
        constexpr bool valueCannotThrow
            = std::is_nothrow_default_constructible_v<V> && std::is_nothrow_move_assignable_v<V>;
        if constexpr (itemCannotThrow && valueCannotThrow) {
            entry.item.~T();
            new (&entry.item) T(std::forward<U>(item));
            entry.value = V {};
        } else {
            try {
                entry.item = std::forward<U>(item);
                entry.value = V {};
            } catch (...) {
                if (!reused)
                    m_free.push_back(e);
                throw;
            }
        }
        if (reused)
            m_free.pop_back();
        entry.hash = quint32(hash);
        entry.live = true;
        m_slots[i] = Slot {e, fragment};
        ++m_used;
        if (created)
            *created = true;
        return e;
    }

    Entry &entry(int e) { return m_entries[size_t(e)]; }
    const Entry &entry(int e) const { return m_entries[size_t(e)]; }

    // Removes entry `e` and hands its item back, so that the caller can release it later
    // (after unlocking, say).
    T erase(int e)
    {
        Entry &entry = m_entries[size_t(e)];
        size_t i = entry.hash & m_mask;
        while (m_slots[i].entry != e)
            i = (i + 1) & m_mask;
        // Backward-shift deletion keeps linear probing free of tombstones. The slots' hash
        // fragments give each entry's home without touching the entries.
        for (size_t j = (i + 1) & m_mask;; j = (j + 1) & m_mask) {
            const Slot next = m_slots[j];
            if (next.entry < 0)
                break;
            const size_t home = next.fragment & m_mask;
            // Move `next` into the hole at i unless its home lies cyclically in (i, j].
            if (((j - home) & m_mask) >= ((j - i) & m_mask)) {
                m_slots[i] = next;
                i = j;
            }
        }
        m_slots[i] = Slot {};
        --m_used;
        m_free.push_back(e);
        entry.live = false;
        return std::exchange(entry.item, T());
    }

    size_t size() const { return m_used; }

    // Calls f(entry) for every live entry, in entry-number order.
    template<typename F>
    void forEach(F &&f) const
    {
        for (size_t e = 0; e < m_entries.size(); ++e)
            if (m_entries[e].live)
                f(m_entries[e]);
    }

    // Exchanges the two tables' contents, so that one can be built outside the owner's lock.
    void swap(ItemTable &other) noexcept
    {
        std::swap(m_entries, other.m_entries);
        std::swap(m_free, other.m_free);
        std::swap(m_slots, other.m_slots);
        std::swap(m_mask, other.m_mask);
        std::swap(m_used, other.m_used);
        const Slot *hint = m_slotsHint.load(std::memory_order_relaxed);
        m_slotsHint.store(
            other.m_slotsHint.load(std::memory_order_relaxed), std::memory_order_relaxed);
        other.m_slotsHint.store(hint, std::memory_order_relaxed);
        const size_t mask = m_maskHint.load(std::memory_order_relaxed);
        m_maskHint.store(
            other.m_maskHint.load(std::memory_order_relaxed), std::memory_order_relaxed);
        other.m_maskHint.store(mask, std::memory_order_relaxed);
    }

    void clear()
    {
        m_entries.clear();
        m_free.clear();
        m_slots.clear();
        m_mask = 0;
        m_used = 0;
        m_slotsHint.store(nullptr, std::memory_order_relaxed);
    }

private:
    void grow()
    {
        const size_t size = m_slots.empty() ? 16 : m_slots.size() * 2;
        // The index can address at most 2^32 slots: the home comes from the 32-bit fragment.
        m_slots.assign(size, Slot {});
        m_mask = size - 1;
        m_slotsHint.store(nullptr, std::memory_order_relaxed);
        m_maskHint.store(m_mask, std::memory_order_relaxed);
        for (size_t e = 0; e < m_entries.size(); ++e) {
            if (!m_entries[e].live)
                continue;
            size_t i = m_entries[e].hash & m_mask;
            while (m_slots[i].entry >= 0)
                i = (i + 1) & m_mask;
            m_slots[i] = Slot {int(e), quint32(m_entries[e].hash)};
        }
        m_slotsHint.store(m_slots.data(), std::memory_order_relaxed);
    }

    static constexpr int EntryChunkShift = 6;

    // One slot of the open-addressing index: an entry number (-1: empty) and the low 32 bits
    // of its hash, so probing and deletion rarely touch the entries themselves.
    struct Slot
    {
        int entry = -1;
        quint32 fragment = 0;
    };

    // By entry number, in chunks of 2^EntryChunkShift; erased ones are listed in m_free.
    ChunkedPool<Entry, EntryChunkShift> m_entries;
    std::vector<int> m_free;
    std::vector<Slot> m_slots;
    size_t m_mask = 0;
    size_t m_used = 0;
    // m_slots' data and m_mask for prefetch(), which runs without the owner's lock.
    std::atomic<const Slot *> m_slotsHint {nullptr};
    std::atomic<size_t> m_maskHint {0};
};

} // namespace qcm::detail
