// SPDX-License-Identifier: Apache-2.0
// EventCorrelator: decides what to write for each recorded Event (client-go's
// EventCorrelator): aggregate first (EventAggregator), then count (an Event seen before gets
// the first occurrence's name and firstTimestamp, count + 1, and a strategic-merge patch of
// count, lastTimestamp and message), then spam-filter (EventSourceObjectSpamFilter).
//
// The defaults, as client-go's NewEventCorrelator: aggregate more than 10 similar events in
// 10 minutes; a source may send 25 events about an object, then one every 5 minutes.
//
// Call updateState() with what the server returned after each successful write, so that the
// next patch targets the right Event.
//
// Thread safety: every method is safe from any thread. The broadcaster gives each sink its
// own correlator and calls it from that sink's thread only.
#pragma once

#include <qcm/record/correlatoroptions.h>

#include <QtCore/QByteArray>

#include <memory>

namespace qcm::record {

struct EventCorrelateResult
{
    Event event; // the event after correlation
    // When set, update the existing Event with this strategic-merge patch instead of
    // creating one (event.count > 1).
    QByteArray patch;
    bool skip = false; // filtered out: write nothing
};

class QCM_SDK_EXPORT EventCorrelator
{
public:
    explicit EventCorrelator(const CorrelatorOptions &options = {});
    ~EventCorrelator();
    EventCorrelator(const EventCorrelator &) = delete;
    EventCorrelator &operator=(const EventCorrelator &) = delete;

    // Filters, aggregates, counts and de-duplicates `newEvent` (client-go's EventCorrelate).
    EventCorrelateResult eventCorrelate(const Event &newEvent);
    // Records the server's copy of a written Event: its name, resourceVersion, count and
    // firstTimestamp are what the next occurrence's patch builds on.
    void updateState(const Event &event);

    // `options` with every zero field replaced by client-go's default (populateDefaults).
    static CorrelatorOptions populateDefaults(CorrelatorOptions options);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::record
