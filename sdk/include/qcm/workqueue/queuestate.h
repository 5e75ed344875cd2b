// SPDX-License-Identifier: Apache-2.0
// QueueState: the dirty set, the processing set and the FIFO of a Queue, in one table.
//
// Not used directly by plugins. client-go keeps a slice and two maps; qcm keeps one entry per
// item that is dirty or processing in an ItemTable, whose hash the caller computes *before*
// taking the queue's lock, and a FIFO of entry numbers, each with the copy of the item that
// get() will hand out. That keeps the critical section short: one probe, no hashing, and the
// reference counts touched only by the thread that queues (see push()).
//
// An entry counts how many times it is in the FIFO: client-go's done() queues a dirty item
// that was not being processed a second time, and qcm reproduces that.
//
// Thread safety: none of its own; the owning queue holds its lock around every call.
#pragma once

#include <qcm/detail/itemtable.h>

namespace qcm::workqueue::detail {

struct QueueFlags
{
    quint8 flags = 0;
    int queued = 0; // how many times the entry is in the FIFO
};

template<typename T>
class QueueState : public qcm::detail::ItemTable<T, QueueFlags>
{
public:
    enum : quint8 { Dirty = 1, Processing = 2 };

    QueueFlags &flags(int e) { return this->entry(e).value; }

    // The FIFO of entries. Each slot holds its own copy of the item, taken by push() (on the
    // thread that queues, whose copy of the item is in its cache) and moved out by pop(): the
    // thread that takes the item then copies nothing under the lock. A QString's copy is an
    // atomic increment on its shared data, which costs a cache-line transfer when another
    // core touched it last.
    void push(int e)
    {
        ++flags(e).queued;
        if (m_count == m_fifo.size())
            growFifo();
        Slot &slot = m_fifo[(m_head + m_count) & (m_fifo.size() - 1)];
        slot.entry = e;
        slot.item = this->entry(e).item;
        ++m_count;
    }

    // The oldest entry; its item is moved into `item`.
    int pop(T &item)
    {
        Slot &slot = m_fifo[m_head];
        m_head = (m_head + 1) & (m_fifo.size() - 1);
        --m_count;
        --flags(slot.entry).queued;
        item = std::move(slot.item);
        return slot.entry;
    }

    size_t queued() const { return m_count; }

private:
    struct Slot
    {
        int entry = -1;
        T item {};
    };

    void growFifo()
    {
        std::vector<Slot> bigger(m_fifo.empty() ? 16 : m_fifo.size() * 2);
        for (size_t k = 0; k < m_count; ++k)
            bigger[k] = std::move(m_fifo[(m_head + k) & (m_fifo.size() - 1)]);
        m_fifo = std::move(bigger);
        m_head = 0;
    }

    std::vector<Slot> m_fifo; // ring buffer, size a power of two
    size_t m_head = 0;
    size_t m_count = 0;
};

} // namespace qcm::workqueue::detail
