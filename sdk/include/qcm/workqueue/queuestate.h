// QueueState: the dirty set, the processing set and the FIFO of a Queue, in one table.
//
// Not used directly by plugins. client-go keeps a slice and two maps; qcm keeps one entry per
// item that is dirty or processing, found through an open-addressing index whose hash the
// caller computes *before* taking the queue's lock, and a FIFO of entry numbers rather than
// copies of the items. That keeps the critical section short: one probe, no hashing, no
// reference-count traffic on the item beyond storing it once.
//
// An entry counts how many times it is in the FIFO: client-go's done() queues a dirty item
// that was not being processed a second time, and qcm reproduces that.
//
// Thread safety: none of its own; the owning queue holds its lock around every call.
#pragma once

#include <QtCore/QHashFunctions>

#include <cstdint>
#include <utility>
#include <vector>

namespace qcm::workqueue::detail {

template<typename T>
class QueueState
{
public:
    enum : quint8 { Dirty = 1, Processing = 2, Free = 0x80 };

    struct Entry
    {
        T item;
        size_t hash = 0;
        quint8 flags = 0;
        int queued = 0; // how many times the entry is in the FIFO
    };

    static size_t hashOf(const T &item) { return qHash(item, QHashSeed::globalSeed()); }

    // The entry of `item`, or -1.
    int find(const T &item, size_t hash) const
    {
        if (m_slots.empty())
            return -1;
        for (size_t i = hash & m_mask;; i = (i + 1) & m_mask) {
            const int e = m_slots[i];
            if (e < 0)
                return -1;
            if (m_entries[size_t(e)].hash == hash && m_entries[size_t(e)].item == item)
                return e;
        }
    }

    // The entry of `item`, created with no flags if there was none.
    int findOrInsert(const T &item, size_t hash)
    {
        if ((m_used + 1) * 2 > m_slots.size())
            grow();
        size_t i = hash & m_mask;
        for (;; i = (i + 1) & m_mask) {
            const int e = m_slots[i];
            if (e < 0)
                break;
            if (m_entries[size_t(e)].hash == hash && m_entries[size_t(e)].item == item)
                return e;
        }
        int e;
        if (!m_free.empty()) {
            e = m_free.back();
            m_free.pop_back();
            m_entries[size_t(e)].item = item;
        } else {
            e = int(m_entries.size());
            m_entries.push_back(Entry {item, hash, 0, 0});
        }
        Entry &entry = m_entries[size_t(e)];
        entry.hash = hash;
        entry.flags = 0;
        entry.queued = 0;
        m_slots[i] = e;
        ++m_used;
        return e;
    }

    Entry &entry(int e) { return m_entries[size_t(e)]; }

    // Removes entry `e` (neither dirty, processing nor queued) and hands its item back, so
    // that the caller can release it after unlocking.
    T erase(int e)
    {
        Entry &entry = m_entries[size_t(e)];
        size_t i = entry.hash & m_mask;
        while (m_slots[i] != e)
            i = (i + 1) & m_mask;
        // Backward-shift deletion keeps linear probing free of tombstones.
        for (size_t j = (i + 1) & m_mask;; j = (j + 1) & m_mask) {
            const int next = m_slots[j];
            if (next < 0)
                break;
            const size_t home = m_entries[size_t(next)].hash & m_mask;
            // Move `next` into the hole at i unless its home lies cyclically in (i, j].
            if (((j - home) & m_mask) >= ((j - i) & m_mask)) {
                m_slots[i] = next;
                i = j;
            }
        }
        m_slots[i] = -1;
        --m_used;
        m_free.push_back(e);
        entry.flags = Free;
        return std::exchange(entry.item, T());
    }

    // The FIFO of entries.
    void push(int e)
    {
        ++m_entries[size_t(e)].queued;
        if (m_count == m_fifo.size())
            growFifo();
        m_fifo[(m_head + m_count) & (m_fifo.size() - 1)] = e;
        ++m_count;
    }

    int pop()
    {
        const int e = m_fifo[m_head];
        m_head = (m_head + 1) & (m_fifo.size() - 1);
        --m_count;
        --m_entries[size_t(e)].queued;
        return e;
    }

    size_t queued() const { return m_count; }
    size_t entries() const { return m_used; }

private:
    void grow()
    {
        const size_t size = m_slots.empty() ? 16 : m_slots.size() * 2;
        m_slots.assign(size, -1);
        m_mask = size - 1;
        for (size_t e = 0; e < m_entries.size(); ++e) {
            if (m_entries[e].flags == Free)
                continue;
            size_t i = m_entries[e].hash & m_mask;
            while (m_slots[i] >= 0)
                i = (i + 1) & m_mask;
            m_slots[i] = int(e);
        }
    }

    void growFifo()
    {
        std::vector<int> bigger(m_fifo.empty() ? 16 : m_fifo.size() * 2);
        for (size_t k = 0; k < m_count; ++k)
            bigger[k] = m_fifo[(m_head + k) & (m_fifo.size() - 1)];
        m_fifo = std::move(bigger);
        m_head = 0;
    }

    std::vector<Entry> m_entries; // by entry number; free ones are listed in m_free
    std::vector<int> m_free;
    std::vector<int> m_slots; // open-addressing index: entry number, or -1
    size_t m_mask = 0;
    size_t m_used = 0;
    std::vector<int> m_fifo; // ring buffer of entry numbers, size a power of two
    size_t m_head = 0;
    size_t m_count = 0;
};

} // namespace qcm::workqueue::detail
