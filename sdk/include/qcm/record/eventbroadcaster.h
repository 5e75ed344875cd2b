// SPDX-License-Identifier: Apache-2.0
// EventBroadcaster: receives the Events that its recorders record and hands them to its
// consumers: sinks (the API server), handlers and logs (client-go's record.EventBroadcaster).
//
//     auto broadcaster = std::make_shared<EventBroadcaster>();
//     broadcaster->startStructuredLogging();
//     broadcaster->startRecordingToSink(std::make_shared<RestEventSink>(restClient));
//     std::shared_ptr<EventRecorder> recorder
//         = broadcaster->newRecorder({QStringLiteral("foo-controller"), {}});
//
// Recording never blocks the caller: a recorder pushes the Event onto each consumer's queue
// (at most maxQueuedEvents, 1000 as client-go's) and returns; a full queue drops the Event
// and logs it (client-go's DropIfChannelFull). Each consumer has its own thread: a sink's
// writes (RestEventSink's blocking REST calls) all happen on its consumer thread, one Event at
// a time, in the order recorded.
//
// Writing to a sink is client-go's recordToSink: each sink gets its own EventCorrelator
// (options.correlatorOptions), so its Events are aggregated, counted and spam-filtered; then
// the Event is created, or patched when it was seen before (created again when the patch
// finds it gone). A write that fails in a retryable way (see eventsink.h) is tried up to
// MaxTriesPerEvent (12) times, sleeping sleepDuration (10 s) between tries, the first sleep
// scaled by a random factor in [0, 1) so that clients do not retry in step. Sleeps run on
// options.clock, so tests drive them with a FakeClock.
//
// shutdown() (also run by the destructor) stops accepting Events, cuts retry sleeps short,
// lets each consumer finish the Event in hand (one try, no retry: client-go's "only try to
// record an event in a sink once"), discards what is still queued, and joins the threads.
// A recorder that outlives its broadcaster logs and drops what it records. To write what is
// queued before shutting down (a process that exits), flush() first; shutdown(timeout) bounds
// the wait for a write in hand that does not return.
//
// Thread safety: every method is safe from any thread, a consumer's own handler included
// (shutdown() there does not wait for that consumer, whose thread ends once the handler
// returns).
#pragma once

#include <qcm/clock.h>
#include <qcm/record/correlatoroptions.h>
#include <qcm/record/eventrecorder.h>
#include <qcm/record/eventsink.h>
#include <qcm/record/eventwatcher.h>

#include <functional>
#include <memory>

QT_BEGIN_NAMESPACE
class QLoggingCategory;
QT_END_NAMESPACE

namespace qcm::record {

namespace detail {
class BroadcasterCore;
}

// client-go's constants (event.go).
constexpr int MaxTriesPerEvent = 12;
constexpr Duration DefaultSleepDuration = std::chrono::seconds(10);
constexpr int MaxQueuedEvents = 1000;

struct EventBroadcasterOptions
{
    // For each sink's correlator. A null correlatorOptions.clock takes `clock` below.
    CorrelatorOptions correlatorOptions;
    // Between two tries of a sink write (client-go's WithSleepDuration).
    Duration sleepDuration = DefaultSleepDuration;
    // Each consumer's queue; an Event that finds it full is dropped.
    int maxQueuedEvents = MaxQueuedEvents;
    // Retry sleeps and the recorders' timestamps. Null: Clock::system(), whose Events carry
    // the real wall-clock time; any other clock gives wall-clock times that move with it.
    Clock *clock = nullptr;
};

class QCM_SDK_EXPORT EventBroadcaster
{
public:
    explicit EventBroadcaster(EventBroadcasterOptions options = {});
    ~EventBroadcaster();
    EventBroadcaster(const EventBroadcaster &) = delete;
    EventBroadcaster &operator=(const EventBroadcaster &) = delete;

    // Writes every Event recorded from now on to `sink`, through a new EventCorrelator.
    EventWatcher startRecordingToSink(std::shared_ptr<EventSink> sink);
    // Calls `handler` with every Event recorded from now on, on the consumer's thread. An
    // exception from the handler is caught and logged.
    EventWatcher startEventWatcher(std::function<void(const Event &)> handler);
    // Calls `logf` with client-go's StartLogging line for every Event:
    // Event(v1.ObjectReference{Kind:"Pod", ...}): type: 'Normal' reason: 'Started' message
    EventWatcher startLogging(std::function<void(const QString &line)> logf);
    // Logs every Event at info level to `category` (null: qcm.record; it must outlive the
    // watcher), as client-go's StartStructuredLogging:
    // Event occurred object="ns/name" fieldPath="" kind="Pod" apiVersion="v1" type=...
    EventWatcher startStructuredLogging(const QLoggingCategory *category = nullptr);

    // A recorder whose Events carry `source` (and reportingController = source.component,
    // reportingInstance = source.host, as client-go's legacy recorder sets them).
    std::shared_ptr<EventRecorder> newRecorder(const EventSource &source);

    // See above. Idempotent.
    void shutdown();
    // shutdown(), waiting at most `timeout` (real time) for each consumer's thread. A thread
    // still busy then (a sink write that does not return: give the REST client a timeout, or
    // do this) is left to finish on its own, and keeps its consumer, the sink included, alive
    // until it does; false is returned. Whatever that sink uses (the REST client) must then
    // stay alive, or the process end without destroying it.
    bool shutdown(Duration timeout);
    // Waits until every consumer has handled each Event recorded before the call (written to
    // its sink or given up after its tries, handed to its handler, logged), at most `timeout`
    // (real time: a retry sleeping on a FakeClock does not end by itself). True if all were;
    // false on the timeout or when a consumer was stopped first. Events recorded meanwhile
    // are not waited for; nothing is stopped. Called from a consumer's handler, that consumer
    // cannot be waited for, and the result is false.
    bool flush(Duration timeout);

private:
    std::shared_ptr<detail::BroadcasterCore> d;
};

} // namespace qcm::record
