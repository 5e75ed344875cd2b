// SPDX-License-Identifier: Apache-2.0
// Inbox: a lock-free stack of nodes that any thread pushes onto and that the holder of its
// owner's lock takes whole, oldest push first.
//
// Not part of the plugin API. Queue and DeltaFifo push an operation here when their lock is
// held, instead of waiting for it, and apply what takeAll() returns before anything else
// under the lock, so the operations keep the order of their pushes. Pushes are a
// compare-and-swap on the head; taking is one exchange, so no node is ever popped singly and
// the stack has no ABA problem. Node needs a `Node *next` member; nodes are allocated with
// new and owned by the inbox until taken, then by an InboxNodes.
//
// Thread safety: push() and empty() from any thread; takeAll() from any thread, but callers
// that need the order across takes serialise them (under their lock).
#pragma once

#include <atomic>
#include <utility>

namespace qcm::detail {

template<typename Node>
class Inbox
{
public:
    Inbox() = default;
    Inbox(const Inbox &) = delete;
    Inbox &operator=(const Inbox &) = delete;
    ~Inbox() { deleteAll(takeAll()); }

    // Pushes `node` (its next is overwritten); returns whether the inbox was empty. Sequentially
    // consistent, so that a pusher that then reads a waiter count and a waiter that registered
    // before calling empty() see each other.
    bool push(Node *node)
    {
        Node *head = m_head.load(std::memory_order_relaxed);
        do
            node->next = head;
        while (!m_head.compare_exchange_weak(
            head, node, std::memory_order_seq_cst, std::memory_order_relaxed));
        return head == nullptr;
    }

    bool empty() const { return m_head.load(std::memory_order_seq_cst) == nullptr; }

    // Every node, oldest push first, linked through next; null when empty. `last`, if
    // given, receives the newest node (the list's last).
    Node *takeAll(Node **last = nullptr)
    {
        // An empty inbox, the common case when nobody contends, costs a load, not an
        // exchange. A push that happens-before this call is seen (coherence); one that races
        // it is taken by a later call (a waiter checks empty(), sequentially consistent,
        // before it sleeps).
        if (m_head.load(std::memory_order_relaxed) == nullptr)
            return nullptr;
        Node *newestFirst = m_head.exchange(nullptr, std::memory_order_acquire);
        if (last)
            *last = newestFirst;
        Node *oldestFirst = nullptr;
        while (newestFirst) {
            Node *next = newestFirst->next;
            newestFirst->next = oldestFirst;
            oldestFirst = newestFirst;
            newestFirst = next;
        }
        return oldestFirst;
    }

    static void deleteAll(Node *first)
    {
        while (first)
            delete std::exchange(first, first->next);
    }

private:
    // On a cache line of its own: pushers write it, the lock holder exchanges it.
    alignas(64) std::atomic<Node *> m_head {nullptr};
};

// Nodes taken from an Inbox and applied, deleted when this goes out of scope. Declared before
// the owner's lock, it frees them (and releases what they hold) after the lock is released.
template<typename Node>
class InboxNodes
{
public:
    InboxNodes() = default;
    InboxNodes(const InboxNodes &) = delete;
    InboxNodes &operator=(const InboxNodes &) = delete;
    ~InboxNodes() { Inbox<Node>::deleteAll(m_first); }

    // Takes ownership of the list first..last (linked through next).
    void adopt(Node *first, Node *last)
    {
        last->next = m_first;
        m_first = first;
    }

private:
    Node *m_first = nullptr;
};

} // namespace qcm::detail
