// SPDX-License-Identifier: Apache-2.0
// CorrelatorOptions: how an EventCorrelator filters, aggregates and counts Events
// (client-go's record.CorrelatorOptions), and client-go's defaults for each field.
//
// A zero (or null) field takes the default, as client-go's populateDefaults does.
// Plain value; thread safety as for any value (the functions must be reentrant).
#pragma once

#include <qcm/clock.h>
#include <qcm/record/event.h>

#include <functional>
#include <utility>

namespace qcm::record {

// client-go's defaults (events_cache.go).
constexpr int MaxLruCacheEntries = 4096;
// More than 10 events that differ only by message within 10 minutes are aggregated.
constexpr int DefaultAggregateMaxEvents = 10;
constexpr int DefaultAggregateIntervalInSeconds = 600;
// A source may send 25 events about an object, then one every 5 minutes.
constexpr int DefaultSpamBurst = 25;
constexpr float DefaultSpamQps = 1.f / 300.f; // float32, as in client-go

// Returns the aggregate key (events in one group) and the local key (what tells them apart).
using EventAggregatorKeyFunc = std::function<std::pair<QString, QString>(const Event &)>;
// Returns the message of the aggregate event.
using EventAggregatorMessageFunc = std::function<QString(const Event &)>;
// Returns the key the spam filter keeps one token bucket for.
using EventSpamKeyFunc = std::function<QString(const Event &)>;

struct CorrelatorOptions
{
    // Entries of each LRU cache (the spam filter's, the aggregator's, the logger's).
    int lruCacheSize = 0; // 0: MaxLruCacheEntries
    int burstSize = 0; // 0: DefaultSpamBurst
    float qps = 0; // 0: DefaultSpamQps
    EventAggregatorKeyFunc keyFunc; // null: eventAggregatorByReasonFunc
    EventAggregatorMessageFunc messageFunc; // null: eventAggregatorByReasonMessageFunc
    int maxEvents = 0; // 0: DefaultAggregateMaxEvents
    int maxIntervalInSeconds = 0; // 0: DefaultAggregateIntervalInSeconds
    // Aggregation intervals, the spam filter's buckets and the aggregate events' timestamps.
    Clock *clock = nullptr; // null: Clock::system()
    EventSpamKeyFunc spamKeyFunc; // null: getSpamKey
};

} // namespace qcm::record
