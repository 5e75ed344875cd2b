// SPDX-License-Identifier: Apache-2.0
// QueueState: the dirty set, the processing set and the FIFO of a Queue, in one table.
//
// Not used directly by plugins. client-go keeps a slice and two maps; qcm keeps one entry per
// item that is dirty or processing in an ItemTable, whose hash the caller computes *before*
// taking the queue's lock, and a FIFO of entry numbers. That keeps the critical section short
// (one probe, no hashing) and the state small (see push()).
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

    // The FIFO of entries: entry numbers only, and pop() copies the item out of its entry.
    // Slots that held their own copy of the item (taken by the thread that queues) made each
    // slot 32 bytes for a QString instead of 4, and a Queue<QString> with 10k keys and two
    // producers and two consumers 10 % slower (tests/bench case (b), RESULTS.md run 12).
    void push(int e)
    {
        ++flags(e).queued;
        if (m_count == m_fifo.size())
            growFifo();
        m_fifo[(m_head + m_count) & (m_fifo.size() - 1)] = e;
        ++m_count;
    }

    // The oldest entry; its item is copied into `item`.
    int pop(T &item)
    {
        const int e = m_fifo[m_head];
        m_head = (m_head + 1) & (m_fifo.size() - 1);
        --m_count;
        --flags(e).queued;
        item = this->entry(e).item;
        return e;
    }

    size_t queued() const { return m_count; }

private:
    void growFifo()
    {
        std::vector<int> bigger(m_fifo.empty() ? 16 : m_fifo.size() * 2);
        for (size_t k = 0; k < m_count; ++k)
            bigger[k] = m_fifo[(m_head + k) & (m_fifo.size() - 1)];
        m_fifo = std::move(bigger);
        m_head = 0;
    }

    std::vector<int> m_fifo; // ring buffer, size a power of two
    size_t m_head = 0;
    size_t m_count = 0;
};

} // namespace qcm::workqueue::detail
