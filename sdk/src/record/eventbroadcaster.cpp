// SPDX-License-Identifier: Apache-2.0
#include "goquote_p.h"
#include "logging_p.h"
#include "wallclock_p.h"
#include "watcher_p.h"

#include <qcm/record/eventbroadcaster.h>
#include <qcm/record/eventcorrelator.h>

#include <algorithm>
#include <random>
#include <vector>

namespace qcm::record {

Q_LOGGING_CATEGORY(lcRecord, "qcm.record")

namespace {

QString describe(const Event &e)
{
    return QStringLiteral("%1/%2 (%3 %4/%5, type %6, reason %7, count %8): %9")
        .arg(e.namespaceName, e.name, e.involvedObject.kind, e.involvedObject.namespaceName,
            e.involvedObject.name, e.type, e.reason, QString::number(e.count), e.message);
}

bool hasCause(const client::Status &status, const QString &cause)
{
    for (const auto &c : status.causes) {
        if (c.reason == cause)
            return true;
    }
    return false;
}

// client-go's recordEvent: one try at writing `event`. Returns true if the event was written
// or must be given up, false if it may be retried.
bool recordEvent(EventSink &sink, Event &event, const QByteArray &patch, bool updateExistingEvent,
    EventCorrelator &correlator)
{
    std::optional<SinkResult> result;
    if (updateExistingEvent)
        result = sink.patch(event, patch);
    // The patch fails with NotFound when the Event is gone (deleted, or expired on the
    // server): create it again, without the resourceVersion of the old one.
    if (!updateExistingEvent || (!result->ok() && result->error().code == 404)) {
        event.resourceVersion.clear();
        result = sink.create(event);
    }
    if (result->ok()) {
        // The server's copy carries the name and resourceVersion the next patch builds on.
        correlator.updateState(result->value());
        return true;
    }

    // Unable to reach the server: keep trying. The server rejected the Event: it is
    // malformed, give up.
    const client::Status &error = result->error();
    if (EventSink::isRequestConstructionError(error)) {
        qCWarning(lcRecord).noquote()
            << "Unable to construct event (will not retry!):" << error.toString()
            << "event:" << describe(event);
        return true;
    }
    if (error.code != 0) {
        if (error.isAlreadyExists() || hasCause(error, QStringLiteral("NamespaceTerminating")))
            qCDebug(lcRecord).noquote()
                << "Server rejected event (will not retry!):" << error.toString()
                << "event:" << describe(event);
        else
            qCWarning(lcRecord).noquote()
                << "Server rejected event (will not retry!):" << error.toString()
                << "event:" << describe(event);
        return true;
    }
    qCWarning(lcRecord).noquote() << "Unable to write event (may retry after sleeping):"
                                  << error.toString() << "event:" << describe(event);
    return false;
}

// client-go's recordToSink, on the sink's consumer thread: correlate, then write with retries.
void recordToSink(EventSink &sink, const Event &recorded, EventCorrelator &correlator,
    detail::Watcher &watcher, Duration sleepDuration, std::mt19937_64 &random)
{
    EventCorrelateResult result = correlator.eventCorrelate(recorded);
    if (result.skip)
        return;
    int tries = 0;
    for (;;) {
        if (recordEvent(sink, result.event, result.patch, result.event.count > 1, correlator))
            break;
        ++tries;
        if (tries >= MaxTriesPerEvent) {
            qCWarning(lcRecord).noquote()
                << "Unable to write event (retry limit exceeded!):" << describe(recorded);
            break;
        }
        // Randomize the first sleep so that clients do not all retry in step after the API
        // server comes back.
        Duration delay = sleepDuration;
        if (tries == 1)
            delay = Duration(Duration::rep(
                double(delay.count()) * std::uniform_real_distribution<double>(0.0, 1.0)(random)));
        if (!watcher.sleep(delay)) {
            qCWarning(lcRecord).noquote()
                << "Unable to write event (broadcaster is shut down):" << describe(recorded);
            return;
        }
    }
}

} // namespace

namespace detail {

// What the broadcaster and its recorders share: the consumers and the shut-down flag. The
// recorders hold it, so a recorder may outlive the broadcaster.
class BroadcasterCore
{
public:
    explicit BroadcasterCore(EventBroadcasterOptions o)
        : options(std::move(o)), wallClock(options.clock)
    {
        options.clock = wallClock.clock();
        if (!options.correlatorOptions.clock)
            options.correlatorOptions.clock = options.clock;
        if (options.maxQueuedEvents < 1)
            options.maxQueuedEvents = 1;
    }

    EventWatcher addWatcher(Watcher::Handler handler)
    {
        std::lock_guard lock(mutex);
        if (shutDown) {
            qCWarning(lcRecord) << "Unable to start an event watcher: the broadcaster is shut "
                                   "down (will not retry!)";
            return EventWatcher();
        }
        auto watcher = Watcher::start(options.maxQueuedEvents, options.clock, std::move(handler));
        watchers.push_back(watcher);
        return EventWatcher(watcher);
    }

    // client-go's ActionOrDrop: queues `event` for every consumer, never waiting.
    void action(const Event &event)
    {
        int dropped = 0;
        bool stopped = false;
        {
            std::lock_guard lock(mutex);
            stopped = shutDown;
            for (auto it = watchers.begin(); it != watchers.end();) {
                switch ((*it)->offer(event)) {
                case Watcher::Offer::Stopped:
                    it = watchers.erase(it);
                    continue;
                case Watcher::Offer::Full:
                    ++dropped;
                    break;
                case Watcher::Offer::Queued:
                    break;
                }
                ++it;
            }
        }
        if (stopped)
            qCWarning(lcRecord).noquote()
                << "Unable to record event: the broadcaster is shut down (will not retry!):"
                << describe(event);
        if (dropped > 0)
            qCWarning(lcRecord).noquote()
                << "Unable to record event: too many queued events, dropped event for" << dropped
                << "consumer(s):" << describe(event);
    }

    // Every consumer has handled what was queued for it when the call was made.
    bool flush(Duration timeout)
    {
        const auto deadline = deadlineAfter(timeout);
        std::vector<std::pair<std::shared_ptr<Watcher>, quint64>> waiting;
        {
            std::lock_guard lock(mutex);
            for (const auto &watcher : watchers)
                waiting.emplace_back(watcher, watcher->queuedCount());
        }
        bool flushed = true;
        for (const auto &[watcher, count] : waiting)
            flushed = watcher->waitUntilHandled(count, deadline) && flushed;
        return flushed;
    }

    // Stops every consumer; false if a consumer thread was left running at `deadline`.
    bool shutdown(std::chrono::steady_clock::time_point deadline
        = std::chrono::steady_clock::time_point::max())
    {
        std::vector<std::shared_ptr<Watcher>> stopping;
        {
            std::lock_guard lock(mutex);
            shutDown = true;
            stopping.swap(watchers);
        }
        bool joined = true;
        for (const auto &watcher : stopping)
            joined = watcher->stop(deadline) && joined;
        return joined;
    }

    static std::chrono::steady_clock::time_point deadlineAfter(Duration timeout)
    {
        const auto now = std::chrono::steady_clock::now();
        // Far enough for anyone, without overflowing the clock.
        const Duration bounded = std::clamp<Duration>(timeout, Duration::zero(),
            std::chrono::duration_cast<Duration>(std::chrono::hours(24 * 365)));
        return now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(bounded);
    }

    EventBroadcasterOptions options;
    const WallClock wallClock;
    std::mutex mutex;
    bool shutDown = false; // guarded by mutex
    std::vector<std::shared_ptr<Watcher>> watchers; // guarded by mutex
};

} // namespace detail

namespace {

// client-go's recorderImpl: makes the Event and hands it to the broadcaster.
class BroadcasterRecorder : public EventRecorder
{
public:
    BroadcasterRecorder(std::shared_ptr<detail::BroadcasterCore> core, EventSource source)
        : m_core(std::move(core)), m_source(std::move(source))
    { }

protected:
    void generateEvent(const ObjectReference &reference, const QMap<QString, QString> &annotations,
        const QString &type, const QString &reason, const QString &message) override
    {
        if (!validateEventType(type)) {
            qCWarning(lcRecord).noquote()
                << "Unsupported event type:" << goQuote(type) << "reason:" << reason
                << "message:" << message << "(the event is not recorded)";
            return;
        }
        Event event = makeEvent(reference, annotations, type, reason, message);
        event.source = m_source;
        event.reportingInstance = m_source.host;
        event.reportingController = m_source.component;
        m_core->action(event);
    }

private:
    Event makeEvent(const ObjectReference &reference, const QMap<QString, QString> &annotations,
        const QString &type, const QString &reason, const QString &message) const
    {
        const WallTime t = m_core->wallClock.wallNow();
        Event event;
        event.name = generateEventName(reference.name, t.time_since_epoch().count());
        event.namespaceName = reference.namespaceName.isEmpty() ? QStringLiteral("default")
                                                                : reference.namespaceName;
        event.annotations = annotations;
        event.involvedObject = reference;
        event.reason = reason;
        event.message = message;
        event.firstTimestamp = t;
        event.lastTimestamp = t;
        event.count = 1;
        event.type = type;
        return event;
    }

    const std::shared_ptr<detail::BroadcasterCore> m_core;
    const EventSource m_source;
};

} // namespace

EventBroadcaster::EventBroadcaster(EventBroadcasterOptions options)
    : d(std::make_shared<detail::BroadcasterCore>(std::move(options)))
{ }

EventBroadcaster::~EventBroadcaster()
{
    d->shutdown();
}

EventWatcher EventBroadcaster::startRecordingToSink(std::shared_ptr<EventSink> sink)
{
    // Each sink has its own correlator, as in client-go: a sink added later starts with
    // clean caches.
    auto correlator = std::make_shared<EventCorrelator>(d->options.correlatorOptions);
    auto random = std::make_shared<std::mt19937_64>(std::random_device()());
    return d->addWatcher(
        [sink = std::move(sink), correlator, random, sleepDuration = d->options.sleepDuration](
            const Event &event, detail::Watcher &watcher) {
            recordToSink(*sink, event, *correlator, watcher, sleepDuration, *random);
        });
}

EventWatcher EventBroadcaster::startEventWatcher(std::function<void(const Event &)> handler)
{
    return d->addWatcher(
        [handler = std::move(handler)](const Event &event, detail::Watcher &) { handler(event); });
}

EventWatcher EventBroadcaster::startLogging(std::function<void(const QString &)> logf)
{
    return startEventWatcher([logf = std::move(logf)](const Event &e) {
        logf(QStringLiteral("Event(%1): type: '%2' reason: '%3' %4")
                 .arg(e.involvedObject.toGoString(), e.type, e.reason, e.message));
    });
}

EventWatcher EventBroadcaster::startStructuredLogging(const QLoggingCategory *category)
{
    const QLoggingCategory &log = category ? *category : lcRecord();
    return startEventWatcher([&log](const Event &e) {
        const ObjectReference &ref = e.involvedObject;
        // klog.KRef: "namespace/name", or "name" without a namespace.
        const QString object = ref.namespaceName.isEmpty()
            ? ref.name
            : ref.namespaceName + QLatin1Char('/') + ref.name;
        const QString line = QStringLiteral("Event occurred object=%1 fieldPath=%2 kind=%3 "
                                            "apiVersion=%4 type=%5 reason=%6 message=%7")
                                 .arg(goQuote(object), goQuote(ref.fieldPath), goQuote(ref.kind),
                                     goQuote(ref.apiVersion), goQuote(e.type), goQuote(e.reason),
                                     goQuote(e.message));
        qCInfo(log).noquote() << line;
    });
}

std::shared_ptr<EventRecorder> EventBroadcaster::newRecorder(const EventSource &source)
{
    return std::make_shared<BroadcasterRecorder>(d, source);
}

void EventBroadcaster::shutdown()
{
    d->shutdown();
}

bool EventBroadcaster::shutdown(Duration timeout)
{
    return d->shutdown(detail::BroadcasterCore::deadlineAfter(timeout));
}

bool EventBroadcaster::flush(Duration timeout)
{
    return d->flush(timeout);
}

} // namespace qcm::record
