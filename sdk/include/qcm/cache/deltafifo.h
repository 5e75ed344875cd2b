// SPDX-License-Identifier: Apache-2.0
// DeltaFifo: the informer's queue of object changes (client-go's cache.DeltaFIFO; seed 000).
//
// Keys are queued in the order they first changed; each key holds the list of its deltas
// (Added, Updated, Deleted, Replaced, Sync) until pop() hands them out together. Rules, as in
// client-go:
//   * only two consecutive Deleted deltas merge: the older is kept, unless it is a tombstone;
//   * remove() is ignored for a key that is neither queued nor (with knownObjects) known;
//   * replace() queues Replaced (or Sync, unless emitDeltaTypeReplaced) for every listed
//     object, then a Deleted tombstone for every queued key not listed (with its newest
//     object), then one for every known key not listed and not queued (with the known object);
//   * resync() queues Sync for every known key that has no queued deltas;
//   * the transformer runs on every enqueue except tombstones and resync's Sync;
//   * hasSynced() turns true once something was added, updated or deleted before the first
//     replace(), or once every item of the first replace() has been popped.
// client-go walks maps in random order in replace(); qcm queues the tombstones of queued keys
// in queue order and those of known keys in key order, one of the orders client-go may use.
//
// Thread safety: every method is safe from any thread; pop() blocks, tryPop() does not;
// process runs under the FIFO's lock, as in client-go, so it must not call back into the
// FIFO. add() and update() never wait for the lock when there is no transformer: while
// another thread holds it (a pop() running process, say), they push the delta onto a
// lock-free inbox that the next lock holder applies, in push order, before anything else.
// onSynced may then run on that thread.
#pragma once

#include <qcm/cache/delta.h>
#include <qcm/cache/informermetrics.h>
#include <qcm/cache/keylistergetter.h>
#include <qcm/cache/keys.h>
#include <qcm/cache/queue.h>
#include <qcm/detail/chunkedpool.h>
#include <qcm/detail/inbox.h>
#include <qcm/detail/itemtable.h>
#include <qcm/detail/mutex.h>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

namespace qcm::cache {

class QCM_SDK_EXPORT DeltaFifo : public Queue
{
public:
    struct Options
    {
        KeyFunction keyFunction; // null: metaNamespaceKey
        const KeyListerGetter *knownObjects = nullptr; // the informer's store, or none
        bool emitDeltaTypeReplaced = false; // false: replace() queues Sync deltas
        std::function<Result<Object>(Object)> transformer;
        // Called once, under the FIFO's lock, when hasSynced() turns true. Keep it short.
        std::function<void()> onSynced;
        // Queued items counts queued keys (client-go's DeltaFIFO records none).
        FifoMetrics metrics;
    };

    DeltaFifo();
    explicit DeltaFifo(Options options);
    ~DeltaFifo() override;
    DeltaFifo(const DeltaFifo &) = delete;
    DeltaFifo &operator=(const DeltaFifo &) = delete;

    std::optional<Error> add(const Object &object) override;
    std::optional<Error> update(const Object &object) override;
    // client-go's Delete.
    std::optional<Error> remove(const Object &object) override;
    std::optional<Error> replace(
        const QList<Object> &list, const QString &resourceVersion = {}) override;
    std::optional<Error> resync() override;

    // The deltas of the oldest queued key, passed to `process` (with isInInitialList) under
    // the lock and then returned. Blocks while the queue is empty; an error once it is closed.
    Result<Deltas> pop(const Process &process) override;
    // pop() that does not wait: nothing when the queue is empty (closed or not).
    std::optional<Result<Deltas>> tryPop(const Process &process);
    void close() override;
    bool isClosed() const override;
    bool hasSynced() const override;

    // The newest object of every queued key.
    QList<Object> list() const;
    QStringList listKeys() const;
    std::optional<Deltas> getByKey(const QString &key) const;
    Result<QString> keyOf(const Delta &delta) const;

private:
    // The deltas of one queued key: a chain of pooled nodes, oldest first. Every key in
    // the table has at least one delta and is in m_queue exactly once.
    struct Chain
    {
        int head = -1;
        int tail = -1;
        int count = 0;
    };
    struct Node
    {
        Delta delta;
        int prev = -1;
        int next = -1;
    };
    using Table = qcm::detail::ItemTable<QString, Chain>;
    // When the queue drains with more nodes than this, the pool and the table are freed.
    static constexpr int IdlePoolNodes = 4096;
    // Nodes are allocated in chunks of 2^NodeChunkShift, so that the pool grows without
    // moving the nodes it has.
    static constexpr int NodeChunkShift = 6;

    // An add() or update() not yet applied: a node of the inbox, a stack linked by `next`.
    struct Pending;
    // Applied nodes, freed after unlocking (declared before the lock).
    using Applied = detail::InboxNodes<Pending>;

    // add() and update(): the key, its hash and the delta are made before the lock is taken.
    // The key is the one the delta's object caches (m_objectKeys), or the key function's.
    std::optional<Error> queueAction(DeltaType type, const Object &object);
    // Applies the inbox, oldest push first. Every method that takes the lock calls it first.
    void applyInboxLocked(Applied &applied) const;
    std::optional<Error> queueActionLocked(
        DeltaType internalType, Delta &&delta, const QString &key, size_t hash);
    std::optional<Error> syncKeyLocked(const QString &key);
    bool hasSyncedLocked() const { return m_populated && m_initialPopulationCount == 0; }
    int findLocked(const QString &key) const { return m_items.find(key, Table::hashOf(key)); }
    Node &nodeLocked(int n) { return m_nodes[size_t(n)]; }
    const Node &nodeLocked(int n) const { return const_cast<DeltaFifo *>(this)->nodeLocked(n); }
    const Delta &newestLocked(int entry) const;
    Deltas copyLocked(int entry) const;
    // Moves entry's deltas into `deltas` (empty), recycles their nodes and erases the entry.
    void takeLocked(int entry, Deltas &deltas);
    // The oldest key's deltas, in `deltas` (empty; m_queue is not).
    Result<Deltas> popLocked(const Process &process, Deltas deltas);
    void checkSyncedLocked();
    // Makes the node chunk that the pool's next growth adopts, if none is ready.
    void prepareSpareChunk();

    Options m_options;
    // The default key function and no transformer: add() and update() key a delta by the key
    // its object caches, by reference (no copy of the key unless a new entry is made).
    bool m_objectKeys = false;
    // The lock word, the wait queue's words and the state each start a cache line of their
    // own, as in workqueue::Queue: waiters spinning on the first two do not pull the line
    // that the lock holder is writing the state to (tests/bench/RESULTS.md, run 12).
    alignas(64) mutable detail::Mutex m_mutex;
    // Notified when the FIFO stops being empty, or closes.
    alignas(64) detail::WaitQueue m_changed;
    // Keys and their chains (m_items), the nodes, and the queue of entry numbers: a delta is
    // stored without an allocation once the pool is warm, and the list pop() hands out is
    // allocated by the popping thread. All guarded by m_mutex.
    alignas(64) Table m_items;
    detail::ChunkedPool<Node, NodeChunkShift> m_nodes; // in use or listed in m_freeNodes
    std::vector<int> m_freeNodes;
    std::deque<int> m_queue;
    bool m_populated = false; // guarded by m_mutex
    int m_initialPopulationCount = 0; // guarded by m_mutex
    bool m_closed = false; // guarded by m_mutex
    bool m_syncedReported = false; // guarded by m_mutex
    // The inbox and the count of threads waiting in pop(), each on a cache line of its own:
    // the producer writes the first and reads the second, pop() the other way round.
    mutable detail::Inbox<Pending> m_inbox;
    alignas(64) std::atomic<int> m_waiters {0}; // written with the lock held
    // A node chunk made outside the lock by add() or update(), so that the pool grows under
    // the lock without allocating or touching fresh pages there (page faults under the lock
    // held pop() waiting: tests/bench/RESULTS.md, run 16). m_spareWanted is set when the
    // pool adopted the spare (or grew without one).
    alignas(64) std::atomic<Node *> m_spareChunk {nullptr};
    std::atomic<bool> m_spareWanted {false};
};

} // namespace qcm::cache
