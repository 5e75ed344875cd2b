// SPDX-License-Identifier: Apache-2.0
#include "eventlogger_p.h"

#include <qcm/record/eventaggregator.h>
#include <qcm/record/eventcorrelator.h>
#include <qcm/record/eventkeys.h>
#include <qcm/record/eventsourceobjectspamfilter.h>

namespace qcm::record {

struct EventCorrelator::Private
{
    explicit Private(const CorrelatorOptions &o)
        : spamFilter(o.lruCacheSize, o.burstSize, o.qps, o.clock, o.spamKeyFunc)
        , aggregator(o.lruCacheSize, o.keyFunc, o.messageFunc, o.maxEvents, o.maxIntervalInSeconds,
              o.clock)
        , logger(o.lruCacheSize)
    { }

    EventSourceObjectSpamFilter spamFilter;
    EventAggregator aggregator;
    EventLogger logger;
};

EventCorrelator::EventCorrelator(const CorrelatorOptions &options)
    : d(std::make_unique<Private>(populateDefaults(options)))
{ }

EventCorrelator::~EventCorrelator() = default;

CorrelatorOptions EventCorrelator::populateDefaults(CorrelatorOptions options)
{
    if (options.lruCacheSize == 0)
        options.lruCacheSize = MaxLruCacheEntries;
    if (options.burstSize == 0)
        options.burstSize = DefaultSpamBurst;
    if (options.qps == 0)
        options.qps = DefaultSpamQps;
    if (!options.keyFunc)
        options.keyFunc = eventAggregatorByReasonFunc;
    if (!options.messageFunc)
        options.messageFunc = eventAggregatorByReasonMessageFunc;
    if (options.maxEvents == 0)
        options.maxEvents = DefaultAggregateMaxEvents;
    if (options.maxIntervalInSeconds == 0)
        options.maxIntervalInSeconds = DefaultAggregateIntervalInSeconds;
    if (!options.clock)
        options.clock = Clock::system();
    if (!options.spamKeyFunc)
        options.spamKeyFunc = getSpamKey;
    return options;
}

EventCorrelateResult EventCorrelator::eventCorrelate(const Event &newEvent)
{
    const EventAggregator::Aggregated aggregated = d->aggregator.eventAggregate(newEvent);
    auto [observed, patch] = d->logger.eventObserve(aggregated.event, aggregated.cacheKey);
    if (d->spamFilter.filter(observed))
        return {Event(), QByteArray(), true};
    return {std::move(observed), std::move(patch), false};
}

void EventCorrelator::updateState(const Event &event)
{
    d->logger.updateState(event);
}

} // namespace qcm::record
