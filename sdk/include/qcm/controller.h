// SPDX-License-Identifier: Apache-2.0
// Controller: the base class of every controller a plugin creates. It owns a rate-limited
// work queue of keys and N worker threads, and runs client-go's processNextWorkItem loop for
// the plugin, which only writes reconcile():
//
//     key = queue.get()                      (blocks; nothing once shut down and empty)
//     result = reconcile(key)                an exception counts as an error
//     done          -> queue.forget(key)
//     requeueAfter  -> queue.forget(key); queue.addAfter(key, delay)
//     error         -> queue.addRateLimited(key)
//     queue.done(key)                        always
//
// The queue never hands one key to two workers at once, so reconcile(key) for one key never
// runs concurrently with itself; reconciles of different keys do run in parallel (workers()).
//
// Leadership: a controller created with a context().leaderToken() (the host's controllers
// that need leader election) asks the token before each reconcile, and once the term is over
// it starts none: the keys it gets from then on are dropped (forget, done) instead. A reconcile
// already running finishes (the token cannot fence it, leadertoken.h). The host stops such a
// controller when the term ends and creates a new one for the next term, which lists every
// object again.
//
// Sharding: a controller whose context has a shardFilter() (the host sets one when the
// controller is sharded across replicas, docs/scale-out.md) enqueues only the keys the filter
// says this replica owns, and asks it immediately before each reconcile: a key another
// replica owns is dropped, one that is ours but not yet startable (the epoch's barrier) is
// tried again a second later. When ownership moves here, the Controller enqueues every cached
// object again through its handlers. setShardKeyFunction() maps a reconcile key to the key
// hashed (default: the key itself).
//
// Wiring, in the subclass's constructor: take informers from context().informerFactory() and
// register through this class, which records them and catches exceptions thrown by handlers:
//   watch(informer)                          enqueue the key of every changed object
//   watchOwned(informer, group, kind)        enqueue the key of its controller owner
//   addEventHandler(informer, handler)       anything else; call enqueue*() from it
//
// Lifecycle (the host's side): start() returns at once; the workers start when every informer
// and handler registered through this class has synced (workersStarted() is emitted). It
// listens to the informers' synced() signals rather than calling cache::waitForCacheSync(),
// whose local event loop would re-enter the host's main thread. stop(timeout) = shutDown()
// + waitForStopped(timeout): stop handling events, refuse new keys, drain the queue
// (shutDownWithDrain: the items queued and in flight are finished) and join the workers; it
// returns false if they did not finish within the timeout, in which case the workers are
// left to finish on their own. Destroy a Controller only after stop() returned true, as the
// host does: workers that still run call reconcile(), which a destroyed subclass no longer
// has. (A subclass that may be destroyed while running calls stop() in its own destructor.)
//
// Metrics, in context().metricsRegistry() (or a private registry when that is null), after
// controller-runtime's with the qcm_ prefix, labelled {controller="<name>"}:
//   qcm_reconcile_total{controller,result}   result: success, error, requeue_after
//   qcm_reconcile_errors_total               reconciles that returned or threw an error
//   qcm_reconcile_exceptions_total           reconciles that threw (controller-runtime's panics)
//   qcm_handler_exceptions_total             event handlers that threw
//   qcm_reconcile_time_seconds               histogram, controller-runtime's buckets
//   qcm_max_concurrent_reconciles            the number of workers
//   qcm_active_workers                       workers inside reconcile() right now
// and the work queue's metrics (workqueue_*) with name="<controller name>".
//
// Thread safety: reconcile() runs on the worker threads and must be thread-safe. enqueue*()
// and queue() are safe from any thread. start(), stop() and the watch functions are called
// from the thread the Controller lives in (the host's main thread); handlers run there too.
#pragma once

#include <qcm/cache/sharedindexinformer.h>
#include <qcm/context.h>
#include <qcm/ownerkey.h>
#include <qcm/reconcileresult.h>
#include <qcm/workqueue/ratelimitingqueue.h>

#include <QtCore/QObject>

#include <functional>
#include <memory>

namespace qcm {

class QCM_SDK_EXPORT Controller : public QObject
{
    Q_OBJECT

public:
    using Queue = workqueue::RateLimitingQueue<QString>;

    explicit Controller(const ControllerContext &context, QObject *parent = nullptr);
    // Stops the controller if it still runs, waiting for the workers however long they take.
    ~Controller() override;
    Q_DISABLE_COPY_MOVE(Controller)

    QString name() const;
    const ControllerContext &context() const;
    Queue &queue();

    // --- the host's side -------------------------------------------------------------
    // Starts the workers once every watched informer and handler has synced. Idempotent;
    // ignored after stop().
    void start();
    // Stops handling events and shuts the queue down with drain, in the background; returns
    // at once. Idempotent.
    void shutDown();
    // Waits until every worker has finished (after shutDown()); true if they did in time. On
    // a timeout the queue is shut down without drain, and the workers still in reconcile()
    // return from it on their own.
    bool waitForStopped(Duration timeout);
    // shutDown(), then waitForStopped(timeout). The host stops several controllers at once by
    // calling shutDown() on each, then waitForStopped() with what is left of its timeout.
    bool stop(Duration timeout);
    bool isStarted() const;
    // controller-runtime's MaxConcurrentReconciles: the number of workers (the context's
    // workers() otherwise). Before start(); ignored after.
    void setMaxConcurrentReconciles(int workers);
    // Sharding (see above): the key hashed for a reconcile key. Before start(); ignored after.
    // A function of the key alone, the same on every replica (never read a cache). Called
    // from handler and worker threads at once: it must be thread-safe. If it throws, the key
    // itself is hashed (with a warning).
    void setShardKeyFunction(std::function<QString(const QString &key)> shardKey);
    // True once the caches synced and the workers were started.
    bool hasSynced() const;
    // Workers currently inside reconcile().
    int activeWorkers() const;
    // Sharding: how many objects cached by the primary informer (the controller's own
    // resource, setPrimaryInformer()) have a key this replica owns in the newest epoch it
    // read. -1 when the controller is not sharded or has no primary informer. Walks that
    // cache: for metrics at scrape time, not for every event. The Controller's thread.
    qsizetype ownedKeys() const;

    // --- enqueueing (any thread) ------------------------------------------------------
    void enqueue(const QString &key);
    // The object's key, "namespace/name" or "name" (cache::metaNamespaceKey).
    void enqueue(const client::Object &object);
    void enqueueAfter(const QString &key, Duration delay);
    void enqueueRateLimited(const QString &key);
    // Enqueues the key of the object's controller owner of that group and kind; returns
    // whether it had one (see ownerkey.h).
    bool enqueueOwner(const client::Object &object, const QString &ownerGroup,
        const QString &ownerKind, OwnerScope scope = OwnerScope::Namespaced);

    // --- wiring (the Controller's thread) ---------------------------------------------
    // Registers `handler` (delivered in this object's thread, with context().resyncPeriod())
    // and waits for the informer and the handler to sync before starting workers.
    std::shared_ptr<cache::HandlerRegistration> addEventHandler(
        cache::SharedIndexInformer *informer, const cache::ResourceEventHandler &handler);
    // Enqueues the key of every added, updated (resyncs included) and deleted object. The
    // first informer given to it is the primary one, unless one was set.
    std::shared_ptr<cache::HandlerRegistration> watch(cache::SharedIndexInformer *informer);
    // The informer of the kind this controller reconciles (controller-runtime's For; the
    // builder's forKind() sets it), whose objects' keys are its reconcile keys.
    void setPrimaryInformer(cache::SharedIndexInformer *informer);
    // Enqueues the controller owner's key of every added, updated and deleted object whose
    // controller reference names ownerGroup/ownerKind. Resyncs (an update that leaves the
    // resourceVersion unchanged) are skipped, as kube's sample-controller does.
    std::shared_ptr<cache::HandlerRegistration> watchOwned(cache::SharedIndexInformer *informer,
        const QString &ownerGroup, const QString &ownerKind,
        OwnerScope scope = OwnerScope::Namespaced);

signals:
    // The caches synced and the workers started (from the Controller's thread).
    void workersStarted();

protected:
    // Brings the object named by `key` to its desired state. Runs on a worker thread.
    virtual ReconcileResult reconcile(const QString &key) = 0;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm
