// SPDX-License-Identifier: Apache-2.0
#include <qcm/cache/reflector.h>

#include "../client/rawobject.h"
#include "initialevents_p.h"

#include <QtCore/QLoggingCategory>

namespace qcm::cache {

Q_LOGGING_CATEGORY(lcReflector, "qcm.cache.reflector")

using client::ListOptions;
using client::Status;
using client::WatchEvent;
using namespace std::chrono_literals;

namespace {

constexpr Duration InitialBackoff = 800ms;
constexpr Duration MaxBackoff = 30s;
constexpr Duration BackoffReset = 2min;
constexpr Duration MinWatchTimeout = 5min;
constexpr int DefaultPageSize = 500; // client-go's pager

bool isTooLargeResourceVersion(const Status &status)
{
    // The apiserver answers 504 Timeout with a ResourceVersionTooLarge cause.
    for (const client::StatusCause &cause : status.causes)
        if (cause.reason == QLatin1String("ResourceVersionTooLarge"))
            return true;
    return status.message.contains(QLatin1String("Too large resource version"));
}

bool isConnectionRefused(const Status &status)
{
    return status.code == 0 && status.reason == QLatin1String("ConnectionRefused");
}

Status veryShortWatch()
{
    return Status::transportError(QStringLiteral("VeryShortWatch"),
        QStringLiteral("the watch lasted less than a second and no items were received"));
}

} // namespace

Reflector::Reflector(ListerWatcher *listerWatcher, Queue *store, Options options)
    : m_listerWatcher(listerWatcher)
    , m_store(store)
    , m_options(std::move(options))
    , m_clock(m_options.clock ? m_options.clock : Clock::system())
    , m_random(m_options.seed ? m_options.seed : std::random_device {}())
{
    if (!m_options.watchErrorHandler)
        m_options.watchErrorHandler = [](const Status &status) {
            qCWarning(lcReflector, "list and watch failed: %s", qPrintable(status.toString()));
        };
}

Reflector::~Reflector()
{
    stop();
}

void Reflector::stop()
{
    std::shared_ptr<client::WatchStream> watch;
    {
        std::lock_guard lock(m_mutex);
        m_stopped = true;
        watch = m_watch;
    }
    m_wake.notify_all();
    if (watch)
        watch->stop();
}

QString Reflector::lastSyncResourceVersion() const
{
    std::lock_guard lock(m_mutex);
    if (!m_lastSyncSource.isEmpty()) {
        m_lastSyncResourceVersion = m_lastSyncSource.resourceVersion();
        m_lastSyncSource = client::Object();
    }
    return m_lastSyncResourceVersion;
}

void Reflector::setLastSync(const QString &resourceVersion)
{
    std::lock_guard lock(m_mutex);
    m_lastSyncResourceVersion = resourceVersion;
    m_lastSyncSource = client::Object();
}

void Reflector::setLastSync(const client::Object &source)
{
    if (!detail::RawObjectAccess::hasResourceVersion(source))
        return; // an event without a version leaves the last one
    std::lock_guard lock(m_mutex);
    m_lastSyncSource = source;
}

void Reflector::stored()
{
    if (m_options.afterStore)
        m_options.afterStore();
}

bool Reflector::sleep(Duration d)
{
    std::unique_lock lock(m_mutex);
    bool fired = false;
    auto timer = m_clock->newTimer([&] {
        {
            std::lock_guard inner(m_mutex);
            fired = true;
        }
        m_wake.notify_all();
    });
    timer->reset(m_clock->now() + d);
    m_wake.wait(lock, [&] { return fired || m_stopped.load(); });
    lock.unlock();
    timer->stop();
    return !m_stopped;
}

Duration Reflector::nextBackoff()
{
    // apimachinery's exponential backoff manager: reset after a quiet period, else double.
    const TimePoint now = m_clock->now();
    if (m_backoff == Duration::zero() || now - m_lastBackoffStart > BackoffReset)
        m_backoff = InitialBackoff;
    else
        m_backoff = std::min(m_backoff * 2, MaxBackoff);
    m_lastBackoffStart = now;
    const double jitter = std::uniform_real_distribution<double>(0.0, 1.0)(m_random);
    return Duration(Duration::rep(double(m_backoff.count()) * (1.0 + jitter)));
}

void Reflector::run()
{
    while (!m_stopped) {
        if (auto error = listAndWatch())
            m_options.watchErrorHandler(*error);
        if (m_stopped || !sleep(nextBackoff()))
            break;
    }
}

std::optional<Status> Reflector::list()
{
    ListOptions options;
    // "0" the first time (any version, from the apiserver's cache), then the last synced
    // version, or "" (the latest, from etcd) when that version is no longer available.
    options.resourceVersion = !m_listedOnce ? QStringLiteral("0")
        : m_lastSyncUnavailable             ? QString()
                                            : lastSyncResourceVersion();
    const bool initialList = options.resourceVersion == QLatin1String("0");
    // client-go's choice of page size: the configured one; else pages of 500 if the first
    // list came in pages (no watch cache for this resource); else none for a list at a given
    // version, so that the watch cache serves it (with "at least as fresh" semantics) instead
    // of etcd at exactly that version, which may be gone after an apiserver restart.
    int pageSize = DefaultPageSize;
    if (m_options.pageSize != 0)
        pageSize = m_options.pageSize;
    else if (!m_paginatedResult && !options.resourceVersion.isEmpty() && !initialList)
        pageSize = 0;
    options.limit = pageSize;
    QList<client::Object> items;
    QString resourceVersion;
    bool paginated = false;
    for (;;) {
        auto page = m_listerWatcher->list(options);
        if (!page) {
            const Status &status = page.error();
            if (status.isResourceExpired() && !options.continueToken.isEmpty()) {
                // The continue token expired: one full list (client-go's FullListIfExpired).
                options.continueToken.clear();
                options.limit = 0;
                items.clear();
                continue;
            }
            if (status.isResourceExpired() || status.isGone()
                || isTooLargeResourceVersion(status)) {
                if (!m_lastSyncUnavailable && !options.resourceVersion.isEmpty()) {
                    // The version is gone: retry at once from the latest.
                    m_lastSyncUnavailable = true;
                    options = ListOptions();
                    options.limit = pageSize;
                    items.clear();
                    continue;
                }
            }
            return status;
        }
        items += page->items;
        resourceVersion = page->resourceVersion;
        if (page->continueToken.isEmpty())
            break;
        paginated = true;
        options.continueToken = page->continueToken;
    }
    // Only a paginated answer to "0" means the resource has no watch cache: later lists
    // from etcd (at "") come in pages even when it has one.
    if (initialList && paginated)
        m_paginatedResult = true;
    m_listedOnce = true;
    m_lastSyncUnavailable = false;
    const std::optional<Error> error = m_store->replace(items, resourceVersion);
    stored();
    if (error)
        return Status::transportError(QStringLiteral("StoreError"), error->toString());
    setLastSync(resourceVersion);
    return std::nullopt;
}

std::optional<Status> Reflector::listAndWatch()
{
    std::shared_ptr<client::WatchStream> streamed;
    if (m_options.useWatchList && !m_listerWatcher->isWatchListSemanticsUnsupported()) {
        auto result = watchList();
        if (m_stopped)
            return std::nullopt;
        if (result) {
            streamed = *result;
        } else {
            qCInfo(lcReflector,
                "data couldn't be fetched in watch-list mode, falling back to a regular list "
                "(expected if the apiserver does not support it): %s",
                qPrintable(result.error().toString()));
        }
    }
    if (!streamed) {
        if (auto error = list())
            return error;
    }
    return watchLoop(std::move(streamed));
}

void Reflector::setWatch(std::shared_ptr<client::WatchStream> watch)
{
    std::lock_guard lock(m_mutex);
    m_watch = std::move(watch);
    if (m_stopped && m_watch)
        m_watch->stop();
}

Result<std::shared_ptr<client::WatchStream>, Status> Reflector::watchList()
{
    for (;;) {
        if (m_stopped)
            return Status::transportError(QStringLiteral("Stopped"), QStringLiteral("stopped"));
        ListOptions options;
        options.resourceVersion = m_lastSyncUnavailable ? QString() : lastSyncResourceVersion();
        options.allowWatchBookmarks = true;
        options.sendInitialEvents = true;
        options.resourceVersionMatch = QStringLiteral("NotOlderThan");
        options.timeoutSeconds = watchTimeoutSeconds();
        const TimePoint start = m_clock->now();
        auto opened = m_listerWatcher->watch(options);
        if (!opened) {
            const Status &status = opened.error();
            if (isConnectionRefused(status) || status.isTooManyRequests()) {
                if (!sleep(nextBackoff()))
                    return status;
                continue;
            }
            if (status.isResourceExpired() || status.isGone()
                || isTooLargeResourceVersion(status)) {
                m_lastSyncUnavailable = true;
                continue;
            }
            return status;
        }
        const std::shared_ptr<client::WatchStream> stream = *opened;
        setWatch(stream);
        // The initial events go to a temporary store, replaced into the queue at once when
        // the bookmark that ends them arrives. Where the stream can, they are collected on the
        // thread that receives them, and this thread wakes only for that bookmark (which the
        // sink leaves to next(), with everything after it) or an error.
        InitialEvents initial;
        stream->setEventSink([&initial](const WatchEvent &event) { return initial.take(event); });
        std::optional<Status> failed;
        while (auto event = stream->next()) {
            if (event->type == WatchEvent::Type::Error) {
                failed = event->status;
                break;
            }
            if (!initial.take(*event))
                break; // the bookmark that ends the initial events
        }
        stream->setEventSink({}); // no sink call runs or follows once this returns
        if (initial.ended() && !failed) {
            m_lastSyncUnavailable = false;
            m_listedOnce = true;
            const QString resourceVersion = initial.resourceVersion();
            const std::optional<Error> error
                = m_store->replace(initial.takeItems(), resourceVersion);
            stored();
            if (error) {
                stream->stop();
                return Status::transportError(QStringLiteral("StoreError"), error->toString());
            }
            setLastSync(resourceVersion);
            return stream; // the same watch goes on as the informer's watch
        }
        const int events = initial.events();
        stream->stop();
        setWatch(nullptr);
        if (m_stopped)
            return Status::transportError(QStringLiteral("Stopped"), QStringLiteral("stopped"));
        if (failed) {
            if (failed->isResourceExpired() || failed->isGone()
                || isTooLargeResourceVersion(*failed)) {
                m_lastSyncUnavailable = true;
                continue;
            }
            if (failed->isTooManyRequests()) {
                if (!sleep(nextBackoff()))
                    return *failed;
                continue;
            }
            return *failed;
        }
        // A stream the server closes at once, with nothing in it, is an error, which makes
        // this round list instead (client-go's VeryShortWatchError, not retried here).
        if (events == 0 && m_clock->since(start) < 1s)
            return veryShortWatch();
        // The stream ended before its initial events did: start again with a clean slate.
    }
}

int Reflector::watchTimeoutSeconds()
{
    const double factor = 1.0 + std::uniform_real_distribution<double>(0.0, 1.0)(m_random);
    return int(std::chrono::duration<double>(MinWatchTimeout).count() * factor);
}

void Reflector::storeWatchEvent(const WatchEvent &event)
{
    std::optional<Error> error;
    switch (event.type) {
    case WatchEvent::Type::Added:
        error = m_store->add(event.object);
        break;
    case WatchEvent::Type::Modified:
        error = m_store->update(event.object);
        break;
    case WatchEvent::Type::Deleted:
        error = m_store->remove(event.object);
        break;
    case WatchEvent::Type::Bookmark:
    case WatchEvent::Type::Error:
        break;
    }
    if (event.type != WatchEvent::Type::Bookmark)
        stored();
    if (error)
        qCWarning(lcReflector, "could not store a watch event: %s", qPrintable(error->toString()));
    // Recorded once the handlers' notifications are posted (stored() drains the queue), and
    // read only when asked for.
    setLastSync(event.object);
}

std::optional<Status> Reflector::watchLoop(std::shared_ptr<client::WatchStream> streamed)
{
    std::unique_ptr<Timer> resync;
    if (m_options.resyncPeriod > Duration::zero()) {
        resync = m_clock->newTimer([this, &resync] {
            if (!m_options.shouldResync || m_options.shouldResync()) {
                m_store->resync();
                stored();
            }
            resync->reset(m_clock->now() + m_options.resyncPeriod);
        });
        resync->reset(m_clock->now() + m_options.resyncPeriod);
    }
    while (!m_stopped) {
        ListOptions options;
        options.resourceVersion = lastSyncResourceVersion();
        options.allowWatchBookmarks = true;
        options.timeoutSeconds = watchTimeoutSeconds();
        // A watch-list stream goes on as the first watch.
        auto opened = streamed
            ? Result<std::shared_ptr<client::WatchStream>, Status>(std::exchange(streamed, {}))
            : m_listerWatcher->watch(options);
        if (!opened) {
            const Status &status = opened.error();
            if (isConnectionRefused(status) || status.isTooManyRequests()) {
                if (!sleep(nextBackoff()))
                    return std::nullopt;
                continue; // watch again, no relist
            }
            return status;
        }
        setWatch(*opened);
        const std::shared_ptr<client::WatchStream> stream = *opened;
        const TimePoint start = m_clock->now();
        std::atomic<int> events {0};
        std::optional<Status> ended;
        // Where the stream can, its events are stored on the thread that receives them (the
        // REST client's I/O thread), one thread hand-off less; this thread waits for the end.
        stream->setEventSink([this, &events](const WatchEvent &event) {
            ++events;
            storeWatchEvent(event);
            return true;
        });
        while (auto event = stream->next()) {
            if (event->type == WatchEvent::Type::Error) {
                ended = event->status;
                break;
            }
            ++events;
            storeWatchEvent(*event);
        }
        stream->setEventSink({}); // no sink call runs or follows once this returns
        stream->stop();
        setWatch(nullptr);
        if (m_stopped)
            return std::nullopt;
        if (!ended && events == 0 && m_clock->since(start) < 1s)
            ended = veryShortWatch();
        if (!ended)
            continue; // the server closed the watch at its timeout: watch again
        if (ended->isTooManyRequests()) {
            if (!sleep(nextBackoff()))
                return std::nullopt;
            continue;
        }
        return ended; // 410 and anything else: relist (from the last version)
    }
    return std::nullopt;
}

} // namespace qcm::cache
