// SPDX-License-Identifier: Apache-2.0
// EventAggregator: turns a burst of similar Events into one (client-go's EventAggregator).
//
// Events are similar when the key function puts them in one group (by default: same source,
// involved object, type, reason and reporting controller/instance; only the message differs).
// Once a group has seen maxEvents distinct messages with no gap longer than
// maxIntervalInSeconds, each further event of the group is replaced by one aggregate event,
// "(combined from similar events): <message>", keyed by the group so that it is counted.
//
// Thread safety: every method is safe from any thread.
#pragma once

#include <qcm/record/correlatoroptions.h>

#include <memory>

namespace qcm::record {

// Groups by source, involved object (without fieldPath), type, reason, reportingController
// and reportingInstance; the local key is the message (EventAggregatorByReasonFunc).
QCM_SDK_EXPORT std::pair<QString, QString> eventAggregatorByReasonFunc(const Event &event);
// "(combined from similar events): " + message (EventAggregatorByReasonMessageFunc).
QCM_SDK_EXPORT QString eventAggregatorByReasonMessageFunc(const Event &event);

class QCM_SDK_EXPORT EventAggregator
{
public:
    struct Aggregated
    {
        Event event; // the event to record: `newEvent` itself, or a new aggregate event
        QString cacheKey; // getEventKey(newEvent), or the aggregate key for an aggregate
    };

    EventAggregator(int lruCacheSize, EventAggregatorKeyFunc keyFunc,
        EventAggregatorMessageFunc messageFunc, int maxEvents, int maxIntervalInSeconds,
        Clock *clock);
    ~EventAggregator();
    EventAggregator(const EventAggregator &) = delete;
    EventAggregator &operator=(const EventAggregator &) = delete;

    // client-go's EventAggregate: records `newEvent` in its group and says what to record.
    Aggregated eventAggregate(const Event &newEvent);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::record
