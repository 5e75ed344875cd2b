// SPDX-License-Identifier: Apache-2.0
// SharedIndexInformer: one list+watch of a resource, a local indexed cache, and event
// handlers (client-go's cache.SharedIndexInformer).
//
// start() runs a Reflector on a thread of the informer's own. After each write to the queue
// (a RealFifo by default, as in client-go since 1.33, or a DeltaFifo: Options::queue) the
// thread that wrote it drains it (client-go's processLoop, without a thread of its own; for
// a watch event that is the REST client's I/O thread, which decoded it: docs/architecture.md),
// updates the Indexer and notifies every handler:
// Sync, Replaced, Added and Updated become onUpdate(old, new) for a key in the cache and
// onAdd otherwise;
// Deleted becomes onDelete. An update whose resourceVersion did not change is a resync and
// goes only to handlers whose own resync period is due (periods are at least 1 s, and never
// below the informer's check period once started). A handler added after start is replayed
// the cache as adds with isInInitialList. Each handler gets its notifications through its
// receiver's event loop, so a slow handler never blocks the informer or the others.
// setTransform() and setWatchErrorHandler() are refused once started; the transform runs
// where the queue is written (for watch events, the REST client's I/O thread), so it must be
// quick. With a reserved
// Options::identifier the informer records client-go's informer metrics (informermetrics.h).
//
// Thread safety: every method is safe from any thread. synced() is emitted once, from the
// thread that drained the queue's last initial item (the reflector's, or the I/O thread).
#pragma once

#include <qcm/cache/indexer.h>
#include <qcm/cache/informermetrics.h>
#include <qcm/cache/lister.h>
#include <qcm/cache/reflector.h>
#include <qcm/cache/resourceeventhandler.h>

#include <QtCore/QObject>

#include <memory>
#include <thread>

namespace qcm::cache {

class QCM_SDK_EXPORT SharedIndexInformer : public QObject
{
    Q_OBJECT

public:
    struct Options
    {
        Duration resyncPeriod {0}; // the default for handlers, and the check period
        Indexers indexers {{NamespaceIndex, metaNamespaceIndexFunc}};
        Clock *clock = nullptr;
        int pageSize = 0; // the reflector's; 0: client-go's choice (reflector.h)
        // WatchList streaming instead of a list; on unless KUBE_FEATURE_WatchListClient=false
        // (reflector.h, features.h).
        bool useWatchList = features::enabled(features::Feature::WatchListClient);
        enum class QueueKind { RealFifo, DeltaFifo };
        QueueKind queue = QueueKind::RealFifo;
        InformerNameAndResource identifier; // metrics are recorded only if reserved
        InformerMetricsProvider *metricsProvider = nullptr; // null: the global provider
    };

    SharedIndexInformer(ListerWatcher *listerWatcher, Options options, QObject *parent = nullptr);
    ~SharedIndexInformer() override;

    std::shared_ptr<HandlerRegistration> addEventHandler(
        QObject *receiver, ResourceEventHandler handler = {}, Duration resyncPeriod = Duration(-1));
    // Idempotent: removing twice, or a removed registration, does nothing.
    void removeEventHandler(const std::shared_ptr<HandlerRegistration> &registration);

    std::optional<Error> setTransform(
        std::function<Result<client::Object>(client::Object)> transform);
    std::optional<Error> setWatchErrorHandler(std::function<void(const client::Status &)> handler);
    // client-go's AddIndexers: adds indexes to the cache, before or after start (what the
    // cache holds is indexed at once). A name already in use is an error.
    std::optional<Error> addIndexers(const Indexers &indexers);

    void start();
    void stop();
    bool isStarted() const;
    bool hasSynced() const;
    QString lastSyncResourceVersion() const;
    const Indexer &indexer() const { return m_indexer; }
    Lister lister() const { return Lister(&m_indexer); }

signals:
    void synced();

private:
    // Processes everything queued, on the calling thread (the Reflector's afterStore).
    void drain();
    void handleDeltas(const Deltas &deltas, bool isInInitialList);
    void distributeAdd(const client::Object &object, bool isInInitialList);
    void distributeUpdate(
        const client::Object &oldObject, const client::Object &newObject, bool isSync);
    void distributeDelete(const client::Object &object, bool finalStateUnknown);
    void recordStoreResourceVersion(const client::Object &object);
    void post(const std::shared_ptr<HandlerRegistration> &registration,
        HandlerRegistration::Notification notification);
    bool shouldResync();

    ListerWatcher *const m_listerWatcher;
    Options m_options;
    Clock *m_clock;
    Indexer m_indexer;
    std::unique_ptr<Queue> m_fifo;
    // m_fifo's pop for drain(): false when it was empty.
    std::function<bool(const Queue::Process &)> m_processNext;
    std::unique_ptr<SettableGaugeMetric> m_storeResourceVersion; // null: not recorded
    std::unique_ptr<Reflector> m_reflector;
    std::function<Result<client::Object>(client::Object)> m_transform;
    std::function<void(const client::Status &)> m_watchErrorHandler;

    mutable std::mutex m_mutex; // handlers, start state; held while a delta is distributed
    std::vector<std::shared_ptr<HandlerRegistration>> m_handlers;
    Duration m_checkPeriod;
    bool m_started = false;
    bool m_stopped = false;
    std::atomic<bool> m_synced {false};
    std::thread m_reflectorThread;
};

// Waits until every informer has synced, or `timeout` passes; true if they all synced.
// Driven by the informers' synced() signals through a local event loop, not by polling.
QCM_SDK_EXPORT bool waitForCacheSync(
    const QList<SharedIndexInformer *> &informers, Duration timeout);

} // namespace qcm::cache
