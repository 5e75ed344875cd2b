// SPDX-License-Identifier: Apache-2.0
#include <qcm/cache/sharedindexinformer.h>

#include <qcm/cache/deltafifo.h>
#include <qcm/cache/realfifo.h>
#include <qcm/detail/exceptiontext.h>

#include "../client/rawobject.h"
#include "../core/deleteinownthread_p.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QEventLoop>
#include <QtCore/QLoggingCategory>
#include <QtCore/QPointer>
#include <QtCore/QTimer>

namespace qcm::cache {

using client::Object;
using namespace std::chrono_literals;

namespace {
constexpr Duration MinimumResyncPeriod = 1s; // client-go's minimumResyncPeriod
Q_LOGGING_CATEGORY(lcInformer, "qcm.cache.informer")
} // namespace

bool HandlerRegistration::hasSynced() const
{
    return m_informerSynced && m_informerSynced() && m_pendingInitial.load() == 0;
}

SharedIndexInformer::SharedIndexInformer(
    ListerWatcher *listerWatcher, Options options, QObject *parent)
    : QObject(parent)
    , m_listerWatcher(listerWatcher)
    , m_options(std::move(options))
    , m_clock(m_options.clock ? m_options.clock : Clock::system())
    , m_indexer(KeyFunction {}, m_options.indexers)
    , m_checkPeriod(m_options.resyncPeriod)
{ }

SharedIndexInformer::~SharedIndexInformer()
{
    stop();
}

std::optional<Error> SharedIndexInformer::setTransform(
    std::function<Result<Object>(Object)> transform)
{
    std::lock_guard lock(m_mutex);
    if (m_started)
        return Error {{}, {}, QStringLiteral("informer has already started")};
    m_transform = std::move(transform);
    return std::nullopt;
}

std::optional<Error> SharedIndexInformer::setWatchErrorHandler(
    std::function<void(const client::Status &)> handler)
{
    std::lock_guard lock(m_mutex);
    if (m_started)
        return Error {{}, {}, QStringLiteral("informer has already started")};
    m_watchErrorHandler = std::move(handler);
    return std::nullopt;
}

bool HandlerRegistration::enqueue(Notification notification)
{
    std::lock_guard lock(m_pendingMutex);
    m_pending.push_back(std::move(notification));
    if (m_deliveryScheduled)
        return false;
    m_deliveryScheduled = true;
    return true;
}

bool HandlerRegistration::deliverPending()
{
    // Deliveries never nest: while one runs, m_deliveryScheduled stays set, so no other is
    // posted (a handler that spins the event loop finds none of this registration's).
    std::deque<Notification> &batch = m_batch;
    {
        std::lock_guard lock(m_pendingMutex);
        batch.swap(m_pending);
    }
    for (const Notification &notification : batch) {
        if (isRemoved())
            break;
        // A handler that throws must not lose the rest of the batch or leave the registration
        // scheduled forever (the Controller base class also guards its own handlers, and
        // counts what they throw).
        try {
            deliver(notification);
        } catch (...) {
            qCWarning(lcInformer).noquote()
                << QStringLiteral("an event handler threw: %1")
                       .arg(detail::exceptionText(std::current_exception()));
        }
    }
    batch.clear(); // keeps the deque's first block for the next swap
    std::lock_guard lock(m_pendingMutex);
    if (isRemoved())
        m_pending.clear();
    if (!m_pending.empty())
        return true; // stays scheduled: the caller posts the next delivery
    m_deliveryScheduled = false;
    return false;
}

void HandlerRegistration::deliver(const Notification &n)
{
    switch (n.kind) {
    case Notification::Kind::Add:
        if (m_handler.onAdd)
            m_handler.onAdd(n.object, n.flag);
        emit added(n.object, n.flag);
        if (n.flag)
            --m_pendingInitial;
        return;
    case Notification::Kind::Update:
        if (m_handler.onUpdate)
            m_handler.onUpdate(n.oldObject, n.object);
        emit updated(n.oldObject, n.object);
        return;
    case Notification::Kind::Delete:
        if (m_handler.onDelete)
            m_handler.onDelete(n.object, n.flag);
        emit deleted(n.object, n.flag);
        return;
    }
}

namespace {

QEvent::Type deliveryEventType()
{
    static const auto type = QEvent::Type(QEvent::registerEventType());
    return type;
}

} // namespace

// A delivery runs if a shared_ptr still owns the registration (its deleter may be on its
// way to the receiver's thread). The receiver's event loop gets to run between batches: a
// delivery that finds more buffered schedules another one instead of looping.
void HandlerRegistration::customEvent(QEvent *event)
{
    if (event->type() != deliveryEventType())
        return QObject::customEvent(event);
    if (const auto self = weak_from_this().lock(); self && deliverPending())
        scheduleDelivery();
}

// One posted event (a queued functor call would allocate twice); the registration's
// destructor drops it if it has not run.
void HandlerRegistration::scheduleDelivery()
{
    QCoreApplication::postEvent(this, new QEvent(deliveryEventType()));
}

void SharedIndexInformer::post(const std::shared_ptr<HandlerRegistration> &registration,
    HandlerRegistration::Notification notification)
{
    if (registration->enqueue(std::move(notification)))
        registration->scheduleDelivery();
}

std::shared_ptr<HandlerRegistration> SharedIndexInformer::addEventHandler(
    QObject *receiver, ResourceEventHandler handler, Duration resyncPeriod)
{
    auto registration
        = std::shared_ptr<HandlerRegistration>(new HandlerRegistration, detail::deleteInOwnThread);
    registration->moveToThread(receiver ? receiver->thread() : thread());
    registration->m_handler = std::move(handler);
    registration->m_informerSynced = [this] { return m_synced.load(); };

    std::lock_guard lock(m_mutex);
    Duration period = resyncPeriod < Duration::zero() ? m_options.resyncPeriod : resyncPeriod;
    if (period > Duration::zero() && period < MinimumResyncPeriod)
        period = MinimumResyncPeriod;
    if (period > Duration::zero() && period < m_checkPeriod) {
        if (m_started)
            period = m_checkPeriod; // cannot check more often once running
        else
            m_checkPeriod = period;
    }
    if (period > Duration::zero() && m_checkPeriod == Duration::zero() && !m_started)
        m_checkPeriod = period;
    registration->m_resyncPeriod = period;
    registration->m_nextResync = m_clock->now() + period;
    m_handlers.push_back(registration);
    if (m_started) {
        // Replay the cache, under the lock that keeps deltas from being distributed meanwhile.
        for (const Object &object : m_indexer.list()) {
            ++registration->m_pendingInitial;
            post(registration, {HandlerRegistration::Notification::Kind::Add, object, {}, true});
        }
    }
    return registration;
}

void SharedIndexInformer::removeEventHandler(
    const std::shared_ptr<HandlerRegistration> &registration)
{
    if (!registration)
        return;
    std::lock_guard lock(m_mutex);
    registration->m_removed = true;
    m_handlers.erase(
        std::remove(m_handlers.begin(), m_handlers.end(), registration), m_handlers.end());
}

void SharedIndexInformer::distributeAdd(const Object &object, bool isInInitialList)
{
    for (const auto &registration : m_handlers) {
        if (isInInitialList)
            ++registration->m_pendingInitial;
        post(registration,
            {HandlerRegistration::Notification::Kind::Add, object, {}, isInInitialList});
    }
}

void SharedIndexInformer::distributeUpdate(
    const Object &oldObject, const Object &newObject, bool isSync)
{
    for (const auto &registration : m_handlers) {
        if (isSync && !registration->m_syncing)
            continue; // a resync goes only to handlers whose period is due
        post(registration,
            {HandlerRegistration::Notification::Kind::Update, newObject, oldObject, false});
    }
}

void SharedIndexInformer::distributeDelete(const Object &object, bool finalStateUnknown)
{
    for (const auto &registration : m_handlers) {
        post(registration,
            {HandlerRegistration::Notification::Kind::Delete, object, {}, finalStateUnknown});
    }
}

bool SharedIndexInformer::shouldResync()
{
    std::lock_guard lock(m_mutex);
    const TimePoint now = m_clock->now();
    bool needed = false;
    for (const auto &registration : m_handlers) {
        registration->m_syncing
            = registration->m_resyncPeriod > Duration::zero() && now >= registration->m_nextResync;
        if (registration->m_syncing) {
            needed = true;
            registration->m_nextResync = now + registration->m_resyncPeriod;
        }
    }
    return needed;
}

void SharedIndexInformer::handleDeltas(const Deltas &deltas, bool isInInitialList)
{
    std::lock_guard lock(m_mutex);
    for (const Delta &delta : deltas) {
        if (delta.type == DeltaType::Deleted) {
            if (const auto *tombstone = std::get_if<DeletedFinalStateUnknown>(&delta.object)) {
                m_indexer.removeByKey(tombstone->key);
                distributeDelete(tombstone->object, true);
            } else {
                const Object &object = std::get<Object>(delta.object);
                m_indexer.remove(object);
                recordStoreResourceVersion(object);
                distributeDelete(object, false);
            }
            continue;
        }
        const Object &object = delta.lastKnown();
        // One key and one lookup for client-go's Get then Update or Add. An object without
        // a key is neither stored nor handed to the handlers (client-go's Add fails there and
        // processDeltas returns; here the batch's other deltas still apply). The FIFO keyed
        // the object already, so a key error here is not expected.
        const Result<std::optional<Object>> old = m_indexer.exchange(object);
        if (!old)
            continue;
        if (*old) {
            const bool isSync = detail::RawObjectAccess::sameResourceVersion(**old, object);
            distributeUpdate(**old, object, isSync);
        } else {
            distributeAdd(object, isInInitialList);
        }
        recordStoreResourceVersion(object);
    }
}

// client-go's threadSafeMap records the resourceVersion of every object it stores or deletes
// (tombstones carry none).
void SharedIndexInformer::recordStoreResourceVersion(const Object &object)
{
    if (!m_storeResourceVersion)
        return;
    if (const std::optional<double> value = resourceVersionForMetrics(object.resourceVersion()))
        m_storeResourceVersion->set(*value);
}

void SharedIndexInformer::drain()
{
    const Queue::Process process = [this](const Deltas &deltas, bool isInInitialList) {
        handleDeltas(deltas, isInInitialList);
        return std::optional<Error>();
    };
    while (m_processNext(process)) { }
}

std::optional<Error> SharedIndexInformer::addIndexers(const Indexers &indexers)
{
    return m_indexer.addIndexers(indexers);
}

void SharedIndexInformer::start()
{
    std::lock_guard lock(m_mutex);
    if (m_started)
        return;
    m_started = true;
    const auto onSynced = [this] {
        m_synced = true;
        emit synced();
    };
    const FifoMetrics fifoMetrics
        = FifoMetrics::create(m_options.identifier, m_options.metricsProvider);
    if (m_options.queue == Options::QueueKind::DeltaFifo) {
        DeltaFifo::Options fifoOptions;
        fifoOptions.knownObjects = &m_indexer;
        fifoOptions.emitDeltaTypeReplaced = true;
        fifoOptions.transformer = m_transform;
        fifoOptions.onSynced = onSynced;
        fifoOptions.metrics = fifoMetrics;
        auto fifo = std::make_unique<DeltaFifo>(fifoOptions);
        m_processNext = [queue = fifo.get()](
                            const Queue::Process &p) { return queue->tryPop(p).has_value(); };
        m_fifo = std::move(fifo);
    } else {
        RealFifo::Options fifoOptions;
        fifoOptions.knownObjects = &m_indexer;
        fifoOptions.transformer = m_transform;
        fifoOptions.onSynced = onSynced;
        fifoOptions.metrics = fifoMetrics;
        auto fifo = std::make_unique<RealFifo>(fifoOptions);
        m_processNext
            = [queue = fifo.get()](const Queue::Process &p) { return queue->processNext(p); };
        m_fifo = std::move(fifo);
    }
    m_storeResourceVersion
        = newStoreResourceVersionGauge(m_options.identifier, m_options.metricsProvider);
    Reflector::Options reflectorOptions;
    reflectorOptions.resyncPeriod = m_checkPeriod;
    reflectorOptions.clock = m_clock;
    reflectorOptions.pageSize = m_options.pageSize;
    reflectorOptions.useWatchList = m_options.useWatchList;
    reflectorOptions.watchErrorHandler = m_watchErrorHandler;
    reflectorOptions.shouldResync = [this] { return shouldResync(); };
    reflectorOptions.afterStore = [this] { drain(); };
    m_reflector = std::make_unique<Reflector>(m_listerWatcher, m_fifo.get(), reflectorOptions);
    m_reflectorThread = std::thread([this] { m_reflector->run(); });
}

void SharedIndexInformer::stop()
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_started || m_stopped)
            return;
        m_stopped = true;
    }
    m_reflector->stop();
    m_reflectorThread.join();
    m_fifo->close();
}

bool SharedIndexInformer::isStarted() const
{
    std::lock_guard lock(m_mutex);
    return m_started;
}

bool SharedIndexInformer::hasSynced() const
{
    return m_synced.load();
}

QString SharedIndexInformer::lastSyncResourceVersion() const
{
    std::lock_guard lock(m_mutex);
    return m_reflector ? m_reflector->lastSyncResourceVersion() : QString();
}

bool waitForCacheSync(const QList<SharedIndexInformer *> &informers, Duration timeout)
{
    auto allSynced = [&] {
        return std::all_of(informers.begin(), informers.end(),
            [](SharedIndexInformer *i) { return i->hasSynced(); });
    };
    if (allSynced())
        return true;
    QEventLoop loop;
    QTimer timer;
    timer.setSingleShot(true);
    QObject::connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
    for (SharedIndexInformer *informer : informers)
        QObject::connect(
            informer, &SharedIndexInformer::synced, &loop,
            [&] {
                if (allSynced())
                    loop.quit();
            },
            Qt::QueuedConnection);
    if (allSynced()) // it may have synced before the connections existed
        return true;
    timer.start(std::chrono::duration_cast<std::chrono::milliseconds>(timeout));
    loop.exec();
    return allSynced();
}

} // namespace qcm::cache
