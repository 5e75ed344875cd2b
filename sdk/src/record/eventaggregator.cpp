// SPDX-License-Identifier: Apache-2.0
#include "lrucache_p.h"
#include "wallclock_p.h"

#include <qcm/record/eventaggregator.h>
#include <qcm/record/eventkeys.h>

#include <QtCore/QSet>

#include <mutex>
#include <optional>

namespace qcm::record {

std::pair<QString, QString> eventAggregatorByReasonFunc(const Event &e)
{
    return {e.source.component + e.source.host + e.involvedObject.kind
            + e.involvedObject.namespaceName + e.involvedObject.name + e.involvedObject.uid
            + e.involvedObject.apiVersion + e.type + e.reason + e.reportingController
            + e.reportingInstance,
        e.message};
}

QString eventAggregatorByReasonMessageFunc(const Event &event)
{
    return QStringLiteral("(combined from similar events): ") + event.message;
}

namespace {
// client-go's aggregateRecord: the distinct local keys seen in the group, and when the group
// last saw an event (unset for a new group).
struct AggregateRecord
{
    QSet<QString> localKeys;
    std::optional<TimePoint> lastTimestamp;
};
} // namespace

struct EventAggregator::Private
{
    Private(int lruCacheSize, Clock *clock) : cache(lruCacheSize), wallClock(clock) { }

    std::mutex mutex;
    LruCache<AggregateRecord> cache;
    EventAggregatorKeyFunc keyFunc;
    EventAggregatorMessageFunc messageFunc;
    int maxEvents = 0;
    int maxIntervalInSeconds = 0;
    WallClock wallClock;
};

EventAggregator::EventAggregator(int lruCacheSize, EventAggregatorKeyFunc keyFunc,
    EventAggregatorMessageFunc messageFunc, int maxEvents, int maxIntervalInSeconds, Clock *clock)
    : d(std::make_unique<Private>(lruCacheSize, clock))
{
    d->keyFunc = std::move(keyFunc);
    d->messageFunc = std::move(messageFunc);
    d->maxEvents = maxEvents;
    d->maxIntervalInSeconds = maxIntervalInSeconds;
}

EventAggregator::~EventAggregator() = default;

EventAggregator::Aggregated EventAggregator::eventAggregate(const Event &newEvent)
{
    const TimePoint now = d->wallClock.clock()->now();
    const QString eventKey = getEventKey(newEvent);
    const auto [aggregateKey, localKey] = d->keyFunc(newEvent);

    std::lock_guard lock(d->mutex);
    AggregateRecord *record = d->cache.get(aggregateKey);
    // A group unseen, or quiet for longer than the interval, starts afresh.
    const Duration maxInterval = std::chrono::seconds(d->maxIntervalInSeconds);
    if (!record || !record->lastTimestamp || now - *record->lastTimestamp > maxInterval) {
        d->cache.add(aggregateKey, AggregateRecord());
        record = d->cache.get(aggregateKey);
    }
    record->localKeys.insert(localKey);
    record->lastTimestamp = now;

    // Not yet over the threshold of distinct events: record the event as it is.
    if (record->localKeys.size() < d->maxEvents)
        return {newEvent, eventKey};

    // Keep the set from growing past the maximum: drop an arbitrary key, as client-go's
    // PopAny does.
    record->localKeys.erase(record->localKeys.begin());

    // A new aggregate event, keyed by the group so that the next one counts it.
    const WallTime wallNow = d->wallClock.wallAt(now);
    Event aggregate;
    aggregate.name = newEvent.involvedObject.name + QLatin1Char('.')
        + QString::number(wallNow.time_since_epoch().count(), 16);
    aggregate.namespaceName = newEvent.namespaceName;
    aggregate.count = 1;
    aggregate.firstTimestamp = wallNow;
    aggregate.involvedObject = newEvent.involvedObject;
    aggregate.lastTimestamp = wallNow;
    aggregate.message = d->messageFunc(newEvent);
    aggregate.type = newEvent.type;
    aggregate.reason = newEvent.reason;
    aggregate.source = newEvent.source;
    return {aggregate, aggregateKey};
}

} // namespace qcm::record
