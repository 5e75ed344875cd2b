// SPDX-License-Identifier: Apache-2.0
// RealFifo: the in-order informer queue (client-go's cache.RealFIFO, non-atomic form).
//
// Every notification is kept and handed out in arrival order, one delta per pop(); nothing
// is merged per key, so handlers see each intermediate state. Rules, as in client-go:
//   * add, update and remove always queue (remove does not consult knownObjects);
//   * replace() first queues a Deleted tombstone for every queued key missing from the list
//     whose last queued delta is not a delete (with that delta's object), then one for every
//     known key missing from the list and not queued (with the known object), then Replaced
//     for every listed object, in list order;
//   * resync() queues Sync for every known key with nothing queued;
//   * the transformer runs on every enqueue except tombstones and resync's Sync;
//   * hasSynced() turns true once something was added, updated or deleted before the first
//     replace(), or once every item of the first replace() has been popped *and processed*.
// client-go lists known keys in the store's order; qcm walks them sorted, one order client-go
// may produce. client-go requires knownObjects; without one qcm knows no keys.
//
// Thread safety: every method is safe from any thread; pop() blocks, tryPop() does not;
// process runs under the FIFO's lock, as in client-go, so it must not call back into the
// FIFO.
#pragma once

#include <qcm/cache/informermetrics.h>
#include <qcm/cache/keylistergetter.h>
#include <qcm/cache/keys.h>
#include <qcm/cache/queue.h>
#include <qcm/detail/mutex.h>

#include <deque>
#include <mutex>

namespace qcm::cache {

class QCM_SDK_EXPORT RealFifo : public Queue
{
public:
    struct Options
    {
        KeyFunction keyFunction; // null: metaNamespaceKey
        const KeyListerGetter *knownObjects = nullptr; // the informer's store
        std::function<Result<Object>(Object)> transformer;
        // Called once, under the FIFO's lock, when hasSynced() turns true. Keep it short.
        std::function<void()> onSynced;
        FifoMetrics metrics;
    };

    explicit RealFifo(Options options);
    RealFifo(const RealFifo &) = delete;
    RealFifo &operator=(const RealFifo &) = delete;

    std::optional<Error> add(const Object &object) override;
    std::optional<Error> update(const Object &object) override;
    std::optional<Error> remove(const Object &object) override;
    std::optional<Error> replace(
        const QList<Object> &list, const QString &resourceVersion = {}) override;
    std::optional<Error> resync() override;

    // One delta, as a Deltas of one item.
    Result<Deltas> pop(const Process &process) override;
    // pop() that does not wait: nothing when the queue is empty (closed or not).
    std::optional<Result<Deltas>> tryPop(const Process &process);
    // tryPop() for a caller that keeps neither the delta nor process's error: the delta goes
    // to process in a list the FIFO keeps for the next one (no allocation per item). False
    // when the queue is empty.
    bool processNext(const Process &process);
    void close() override;
    bool isClosed() const override;
    bool hasSynced() const override;

    // Every queued delta, oldest first.
    Deltas items() const;
    Result<QString> keyOf(const Delta &delta) const;

private:
    std::optional<Error> addToItemsLocked(
        DeltaType type, bool skipTransform, std::variant<Object, DeletedFinalStateUnknown> object);
    bool hasSyncedLocked() const { return m_syncedReported; }
    Result<Deltas> popLocked(const Process &process); // m_items is not empty
    // The front delta into `deltas` (empty), processed; m_items is not empty.
    std::optional<Error> popIntoLocked(const Process &process, Deltas &deltas);
    void checkSyncedLocked();
    void recordQueuedLocked();

    Options m_options;
    mutable detail::Mutex m_mutex;
    detail::WaitQueue m_changed; // notified when the FIFO stops being empty, or closes
    std::deque<Delta> m_items; // guarded by m_mutex
    Deltas m_processing; // processNext()'s list, empty between calls; guarded by m_mutex
    bool m_populated = false; // guarded by m_mutex
    int m_initialPopulationCount = 0; // guarded by m_mutex
    bool m_closed = false; // guarded by m_mutex
    bool m_syncedReported = false; // guarded by m_mutex
};

} // namespace qcm::cache
