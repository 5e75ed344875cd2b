// SPDX-License-Identifier: Apache-2.0
#include <qcm/controller.h>

#include <qcm/cache/keys.h>
#include <qcm/detail/activitytracker.h>
#include <qcm/detail/exceptiontext.h>
#include <qcm/metrics/registry.h>
#include <qcm/sharding/shardfilter.h>
#include <qcm/workqueue/prometheusmetrics.h>

#include <QtCore/QLoggingCategory>
#include <QtCore/QPointer>
#include <QtCore/QScopeGuard>
#include <QtCore/QTimer>

#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace qcm {

using client::Object;
using namespace std::chrono_literals;

namespace {

// How long a sharded key that is ours but not yet startable waits before it is tried again.
constexpr Duration ShardWaitDelay = std::chrono::seconds(1);

// client-go's syncedPollPeriod: how often to look again at handlers that have not yet run
// their initial adds, once the informers themselves have synced.
constexpr Duration SyncedPollPeriod = 100ms;

// controller-runtime's controller_runtime_reconcile_time_seconds buckets.
const metrics::BucketBoundaries ReconcileTimeBuckets {0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2,
    0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5,
    4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60};

const char *const ReconcileTotalHelp = "Total number of reconciliations per controller";

// The series `labels` of the family `name` in `registry`, registered on first use.
template<typename T, typename... Args>
T &series(metrics::Registry &registry, const char *name, const char *help,
    const metrics::Labels &labels, Args &&...args)
{
    return registry.add<T>(QLatin1String(name), QLatin1String(help))
        .add(labels, std::forward<Args>(args)...);
}

} // namespace

struct Controller::Private
{
    Private(Controller *controller, const ControllerContext &ctx);

    void runWorker();
    // Whether the leadership term the controller was created in (if any) has ended.
    bool termEnded();
    // Sharding: the key's shard key, and whether this replica enqueues it.
    QString shardKeyOf(const QString &key) const;
    bool mayEnqueue(const QString &key) const;
    // Enqueues every cached object again through the handlers (ownership moved here).
    void replay();
    void processItem(const QString &key);
    void checkSynced();
    void startWorkers();
    // Runs a plugin's event handler, catching what it throws.
    template<typename F>
    void guard(const char *event, F &&handler);

    Controller *const q;
    const ControllerContext context;
    int workersOverride = 0; // setMaxConcurrentReconciles(), else context.workers()
    const QString name;
    const std::optional<leaderelection::LeaderToken> leaderToken;
    const std::shared_ptr<sharding::ShardFilter> shardFilter; // null: not sharded
    std::function<QString(const QString &)> shardKey; // set before start()
    std::unique_ptr<metrics::Registry> ownRegistry; // when the context has none
    metrics::Registry *const registry;
    std::unique_ptr<workqueue::PrometheusMetricsProvider> queueMetrics; // outlives the queue
    std::unique_ptr<Queue> queue;

    metrics::Counter &succeeded;
    metrics::Counter &failed;
    metrics::Counter &requeuedAfter;
    metrics::Counter &errors;
    metrics::Counter &exceptions;
    metrics::Counter &handlerExceptions;
    metrics::Histogram &reconcileTime;
    metrics::Gauge &maxConcurrent;
    metrics::Gauge &active;

    // The Controller's thread only.
    struct Watched
    {
        QPointer<cache::SharedIndexInformer> informer;
        std::shared_ptr<cache::HandlerRegistration> registration;
        cache::ResourceEventHandler handler; // as registered (guarded), for replay()
    };
    std::vector<Watched> watched;
    QPointer<cache::SharedIndexInformer> primary; // for ownedKeys()
    QList<QMetaObject::Connection> syncConnections;
    bool started = false;
    bool stopped = false;
    bool pollPending = false;
    bool shuttingDown = false;
    std::vector<std::thread> workers;
    std::thread drainer; // runs the queue's shutDownWithDrain()

    std::atomic<bool> synced {false};
    std::atomic<bool> termEndSeen {false};
    std::atomic<int> activeCount {0};
    std::mutex exitMutex;
    std::condition_variable exitChanged;
    int running = 0; // workers not yet returned; guarded by exitMutex
};

Controller::Private::Private(Controller *controller, const ControllerContext &ctx)
    : q(controller)
    , context(ctx)
    , name(ctx.controllerName())
    , leaderToken(ctx.leaderToken())
    , shardFilter(ctx.shardFilter())
    , ownRegistry(ctx.metricsRegistry() ? nullptr : std::make_unique<metrics::Registry>())
    , registry(ctx.metricsRegistry() ? ctx.metricsRegistry() : ownRegistry.get())
    , queueMetrics(std::make_unique<workqueue::PrometheusMetricsProvider>(*registry))
    , queue(std::make_unique<Queue>(workqueue::defaultControllerRateLimiter<QString>(ctx.clock()),
          workqueue::QueueConfig {name, queueMetrics.get(), ctx.clock()}))
    , succeeded(series<metrics::Counter>(*registry, "qcm_reconcile_total", ReconcileTotalHelp,
          {{QStringLiteral("controller"), name},
              {QStringLiteral("result"), QStringLiteral("success")}}))
    , failed(series<metrics::Counter>(*registry, "qcm_reconcile_total", ReconcileTotalHelp,
          {{QStringLiteral("controller"), name},
              {QStringLiteral("result"), QStringLiteral("error")}}))
    , requeuedAfter(series<metrics::Counter>(*registry, "qcm_reconcile_total", ReconcileTotalHelp,
          {{QStringLiteral("controller"), name},
              {QStringLiteral("result"), QStringLiteral("requeue_after")}}))
    , errors(series<metrics::Counter>(*registry, "qcm_reconcile_errors_total",
          "Total number of reconciliation errors per controller",
          {{QStringLiteral("controller"), name}}))
    , exceptions(series<metrics::Counter>(*registry, "qcm_reconcile_exceptions_total",
          "Total number of reconciliations that threw an exception, per controller",
          {{QStringLiteral("controller"), name}}))
    , handlerExceptions(series<metrics::Counter>(*registry, "qcm_handler_exceptions_total",
          "Total number of event handler calls that threw an exception, per controller",
          {{QStringLiteral("controller"), name}}))
    , reconcileTime(series<metrics::Histogram>(*registry, "qcm_reconcile_time_seconds",
          "Length of time per reconciliation per controller",
          {{QStringLiteral("controller"), name}}, ReconcileTimeBuckets))
    , maxConcurrent(series<metrics::Gauge>(*registry, "qcm_max_concurrent_reconciles",
          "Maximum number of concurrent reconciles per controller",
          {{QStringLiteral("controller"), name}}))
    , active(series<metrics::Gauge>(*registry, "qcm_active_workers",
          "Number of currently used workers per controller",
          {{QStringLiteral("controller"), name}}))
{ }

Controller::Controller(const ControllerContext &context, QObject *parent)
    : QObject(parent), d(std::make_unique<Private>(this, context))
{
    setObjectName(d->name);
    if (d->shardFilter)
        connect(
            d->shardFilter.get(), &sharding::ShardFilter::ownershipChanged, this,
            [this] { d->replay(); }, Qt::QueuedConnection);
}

Controller::~Controller()
{
    stop(std::chrono::hours(24 * 365));
}

QString Controller::name() const
{
    return d->name;
}

const ControllerContext &Controller::context() const
{
    return d->context;
}

Controller::Queue &Controller::queue()
{
    return *d->queue;
}

void Controller::start()
{
    if (d->started || d->stopped)
        return;
    d->started = true;
    for (const Private::Watched &w : d->watched) {
        if (w.informer)
            d->syncConnections << connect(
                w.informer, &cache::SharedIndexInformer::synced, this, [this] { d->checkSynced(); },
                Qt::QueuedConnection);
    }
    d->checkSynced();
}

void Controller::Private::checkSynced()
{
    if (stopped || synced.load())
        return;
    for (const Watched &w : watched) {
        if (w.informer && !w.informer->hasSynced())
            return; // its synced() signal calls again
    }
    for (const Watched &w : watched) {
        if (w.registration && !w.registration->hasSynced()) {
            if (!pollPending) {
                pollPending = true;
                QTimer::singleShot(
                    std::chrono::duration_cast<std::chrono::milliseconds>(SyncedPollPeriod), q,
                    [this] {
                        pollPending = false;
                        checkSynced();
                    });
            }
            return;
        }
    }
    for (const QMetaObject::Connection &c : std::as_const(syncConnections))
        QObject::disconnect(c);
    syncConnections.clear();
    startWorkers();
    synced = true;
    qCInfo(context.logCategory()).noquote()
        << QStringLiteral("caches synced; started %1 worker(s)").arg(workers.size());
    emit q->workersStarted();
}

void Controller::setMaxConcurrentReconciles(int workers)
{
    if (!isStarted() && workers > 0)
        d->workersOverride = workers;
}

void Controller::Private::startWorkers()
{
    const int n = workersOverride > 0 ? workersOverride : context.workers();
    maxConcurrent.set(n);
    {
        std::lock_guard lock(exitMutex);
        running = n;
    }
    workers.reserve(size_t(n));
    for (int i = 0; i < n; ++i) {
        workers.emplace_back([this] { runWorker(); });
        // Linux limits thread names to 15 characters.
        const QByteArray threadName
            = (name.left(11) + QLatin1Char('/') + QString::number(i)).toUtf8().left(15);
        pthread_setname_np(workers.back().native_handle(), threadName.constData());
    }
}

void Controller::Private::runWorker()
{
    while (const std::optional<QString> key = queue->get()) {
        if (termEnded()) {
            // Not this leader's work any more: the key is dropped, not retried. Whoever leads
            // next (a new Controller, here or on another replica) lists every object again.
            queue->forget(*key);
            queue->done(*key);
            continue;
        }
        if (!shardFilter) {
            processItem(*key);
            continue;
        }
        const QString shard = shardKeyOf(*key);
        switch (shardFilter->admit(shard)) {
        case sharding::ShardFilter::Admission::Start: {
            const auto finished = qScopeGuard([&] { shardFilter->finished(shard); });
            processItem(*key);
            break;
        }
        case sharding::ShardFilter::Admission::NotMine:
            // Another replica reconciles it (docs/scale-out.md); its own queue has it.
            queue->forget(*key);
            queue->done(*key);
            break;
        case sharding::ShardFilter::Admission::Wait:
            // Ours, but the epoch's barrier has not passed: try again shortly (the replay
            // when ownership settles enqueues it too).
            queue->addAfter(*key, ShardWaitDelay);
            queue->done(*key);
            break;
        }
    }
    std::lock_guard lock(exitMutex);
    --running;
    exitChanged.notify_all();
}

bool Controller::Private::termEnded()
{
    if (!leaderToken || leaderToken->isValid())
        return false;
    if (!termEndSeen.exchange(true))
        qCInfo(context.logCategory()).noquote()
            << QStringLiteral("the leadership term has ended: no reconcile starts from now on");
    return true;
}

void Controller::Private::processItem(const QString &key)
{
    active.increment();
    ++activeCount;
    const auto began = std::chrono::steady_clock::now();
    ReconcileResult result = ReconcileResult::done();
    try {
        const detail::ActivityTracker::Scope scope(
            name, detail::ActivityTracker::Kind::Reconcile, key);
        result = q->reconcile(key);
    } catch (...) {
        const QString what = detail::exceptionText(std::current_exception());
        exceptions.increment();
        qCWarning(context.logCategory()).noquote()
            << QStringLiteral("reconcile of \"%1\" threw: %2; requeuing as an error")
                   .arg(key, what);
        result = ReconcileResult::error(QStringLiteral("exception: ") + what);
    }
    reconcileTime.observe(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
    --activeCount;
    active.decrement();

    switch (result.kind()) {
    case ReconcileResult::Kind::Done:
        queue->forget(key);
        succeeded.increment();
        break;
    case ReconcileResult::Kind::RequeueAfter:
        queue->forget(key);
        queue->addAfter(key, result.delay());
        requeuedAfter.increment();
        break;
    case ReconcileResult::Kind::Error:
        queue->addRateLimited(key);
        failed.increment();
        errors.increment();
        qCWarning(context.logCategory()).noquote()
            << QStringLiteral("error syncing \"%1\": %2, requeuing")
                   .arg(key, result.errorMessage());
        break;
    }
    queue->done(key);
}

void Controller::shutDown()
{
    if (d->shuttingDown)
        return;
    d->shuttingDown = true;
    d->stopped = true;
    for (const QMetaObject::Connection &c : std::as_const(d->syncConnections))
        disconnect(c);
    d->syncConnections.clear();
    for (Private::Watched &w : d->watched) {
        if (w.informer)
            w.informer->removeEventHandler(w.registration);
    }
    // Refuse new items now, before returning; then shutDownWithDrain, on a thread of its own,
    // waits for the items handed out. The workers finish what is still queued and return once
    // get() reports the shutdown.
    d->queue->shutDown();
    if (!d->workers.empty())
        d->drainer = std::thread([queue = d->queue.get()] { queue->shutDownWithDrain(); });
}

bool Controller::waitForStopped(Duration timeout)
{
    if (!d->shuttingDown)
        return false;
    if (!d->workers.empty()) {
        const auto deadline = std::chrono::steady_clock::now()
            + std::min<Duration>(timeout, std::chrono::hours(24 * 365));
        bool finished;
        {
            std::unique_lock lock(d->exitMutex);
            finished
                = d->exitChanged.wait_until(lock, deadline, [this] { return d->running == 0; });
        }
        if (!finished) {
            d->queue->shutDown(); // releases the drainer; the busy workers stay in reconcile()
            if (d->drainer.joinable())
                d->drainer.join();
            qCWarning(d->context.logCategory()).noquote()
                << QStringLiteral("%1 worker(s) still in reconcile() after the shutdown timeout")
                       .arg(d->activeCount.load());
            return false;
        }
        for (std::thread &worker : d->workers)
            worker.join();
        d->workers.clear();
    }
    if (d->drainer.joinable())
        d->drainer.join();
    return true;
}

bool Controller::stop(Duration timeout)
{
    shutDown();
    return waitForStopped(timeout);
}

bool Controller::isStarted() const
{
    return d->started && !d->stopped;
}

bool Controller::hasSynced() const
{
    return d->synced.load();
}

int Controller::activeWorkers() const
{
    return d->activeCount.load();
}

QString Controller::Private::shardKeyOf(const QString &key) const
{
    if (!shardKey)
        return key;
    try {
        return shardKey(key);
    } catch (...) {
        // Called from handlers and workers alike: a throwing function must not end the
        // process. The key itself is a shard key every replica computes the same way.
        qCWarning(context.logCategory()).noquote()
            << QStringLiteral("the shard key function threw for \"%1\": %2; hashing the key itself")
                   .arg(key, detail::exceptionText(std::current_exception()));
        return key;
    }
}

bool Controller::Private::mayEnqueue(const QString &key) const
{
    return !shardFilter || shardFilter->owns(shardKeyOf(key));
}

void Controller::Private::replay()
{
    if (stopped)
        return;
    for (const Watched &w : watched)
        if (w.informer && w.handler.onAdd)
            for (const Object &object : w.informer->indexer().list())
                w.handler.onAdd(object, false);
}

void Controller::setShardKeyFunction(std::function<QString(const QString &key)> shardKey)
{
    if (!d->started)
        d->shardKey = std::move(shardKey);
}

void Controller::enqueue(const QString &key)
{
    if (d->mayEnqueue(key))
        d->queue->add(key);
}

void Controller::enqueue(const Object &object)
{
    const Result<QString> key = cache::metaNamespaceKey(object);
    if (!key) {
        qCWarning(d->context.logCategory()).noquote()
            << QStringLiteral("cannot enqueue an object: %1").arg(key.error().toString());
        return;
    }
    if (d->mayEnqueue(*key))
        d->queue->add(*key);
}

void Controller::enqueueAfter(const QString &key, Duration delay)
{
    if (d->mayEnqueue(key))
        d->queue->addAfter(key, delay);
}

void Controller::enqueueRateLimited(const QString &key)
{
    if (d->mayEnqueue(key))
        d->queue->addRateLimited(key);
}

bool Controller::enqueueOwner(
    const Object &object, const QString &ownerGroup, const QString &ownerKind, OwnerScope scope)
{
    const std::optional<QString> key = controllerOwnerKey(object, ownerGroup, ownerKind, scope);
    if (!key)
        return false;
    if (d->mayEnqueue(*key))
        d->queue->add(*key);
    return true;
}

template<typename F>
void Controller::Private::guard(const char *event, F &&handler)
{
    try {
        const detail::ActivityTracker::Scope scope(
            name, detail::ActivityTracker::Kind::Handler, QLatin1String(event));
        handler();
    } catch (...) {
        handlerExceptions.increment();
        qCWarning(context.logCategory()).noquote()
            << QStringLiteral("the %1 handler threw: %2")
                   .arg(QLatin1String(event), detail::exceptionText(std::current_exception()));
    }
}

std::shared_ptr<cache::HandlerRegistration> Controller::addEventHandler(
    cache::SharedIndexInformer *informer, const cache::ResourceEventHandler &handler)
{
    cache::ResourceEventHandler guarded;
    if (handler.onAdd)
        guarded.onAdd = [this, f = handler.onAdd](const Object &object, bool initial) {
            d->guard("add", [&] { f(object, initial); });
        };
    if (handler.onUpdate)
        guarded.onUpdate = [this, f = handler.onUpdate](const Object &old, const Object &now) {
            d->guard("update", [&] { f(old, now); });
        };
    if (handler.onDelete)
        guarded.onDelete = [this, f = handler.onDelete](const Object &object, bool unknown) {
            d->guard("delete", [&] { f(object, unknown); });
        };
    auto registration = informer->addEventHandler(this, guarded, d->context.resyncPeriod());
    d->watched.push_back({informer, registration, std::move(guarded)});
    if (d->started && !d->synced.load()) {
        d->syncConnections << connect(
            informer, &cache::SharedIndexInformer::synced, this, [this] { d->checkSynced(); },
            Qt::QueuedConnection);
    }
    return registration;
}

std::shared_ptr<cache::HandlerRegistration> Controller::watch(cache::SharedIndexInformer *informer)
{
    cache::ResourceEventHandler handler;
    handler.onAdd = [this](const Object &object, bool) { enqueue(object); };
    handler.onUpdate = [this](const Object &, const Object &object) { enqueue(object); };
    handler.onDelete = [this](const Object &object, bool) { enqueue(object); };
    if (!d->primary)
        d->primary = informer;
    return addEventHandler(informer, handler);
}

void Controller::setPrimaryInformer(cache::SharedIndexInformer *informer)
{
    d->primary = informer;
}

qsizetype Controller::ownedKeys() const
{
    if (!d->shardFilter || !d->primary)
        return -1;
    const QStringList keys = d->primary->indexer().listKeys();
    return std::count_if(
        keys.cbegin(), keys.cend(), [this](const QString &key) { return d->mayEnqueue(key); });
}

std::shared_ptr<cache::HandlerRegistration> Controller::watchOwned(
    cache::SharedIndexInformer *informer, const QString &ownerGroup, const QString &ownerKind,
    OwnerScope scope)
{
    cache::ResourceEventHandler handler;
    handler.onAdd
        = [=](const Object &object, bool) { enqueueOwner(object, ownerGroup, ownerKind, scope); };
    handler.onUpdate = [=](const Object &old, const Object &object) {
        // A periodic resync sends an update for every object; an owned object that did not
        // change tells the owner nothing (sample-controller's handleObject).
        if (old.resourceVersion() == object.resourceVersion())
            return;
        enqueueOwner(old, ownerGroup, ownerKind, scope);
        enqueueOwner(object, ownerGroup, ownerKind, scope);
    };
    handler.onDelete
        = [=](const Object &object, bool) { enqueueOwner(object, ownerGroup, ownerKind, scope); };
    return addEventHandler(informer, handler);
}

} // namespace qcm
