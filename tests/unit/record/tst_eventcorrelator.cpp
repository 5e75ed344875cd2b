// SPDX-License-Identifier: Apache-2.0
// EventCorrelator, EventAggregator and EventSourceObjectSpamFilter: client-go's
// events_cache_test.go (TestEventAggregatorByReasonFunc, TestEventAggregatorByReasonMessageFunc,
// TestEventCorrelator, TestEventSpamFilter), plus the count patch, the LRU bound and the
// aggregation interval on a fake clock.
#include "recordtestsupport.h"

#include <qcm/record/eventaggregator.h>
#include <qcm/record/eventcorrelator.h>
#include <qcm/record/eventsourceobjectspamfilter.h>

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::record;
using namespace qcm::record::testing;

Q_DECLARE_METATYPE(qcm::record::Event)

class tst_EventCorrelator : public QObject
{
    Q_OBJECT

private slots:
    void eventAggregatorByReasonFunc();
    void eventAggregatorByReasonMessageFunc();
    void eventCorrelator_data();
    void eventCorrelator();
    void eventSpamFilter_data();
    void eventSpamFilter();
    void countPatchHoldsCountLastTimestampAndMessage();
    void updateStateTakesTheServersNameAndResourceVersion();
    void aggregationRestartsAfterAQuietInterval();
    void spamFilterRefillsOneEventPerFiveMinutes();
    void lruCacheForgetsTheLeastRecentlyUsedEvent();
    void populateDefaultsUsesClientGoDefaults();
};

void tst_EventCorrelator::eventAggregatorByReasonFunc()
{
    const Event event1 = makeEvent(QStringLiteral("end-of-world"), QStringLiteral("it was fun"),
        makeObjectReference(
            QStringLiteral("Pod"), QStringLiteral("pod1"), QStringLiteral("other")));
    const Event event2 = makeEvent(QStringLiteral("end-of-world"), QStringLiteral("it was awful"),
        makeObjectReference(
            QStringLiteral("Pod"), QStringLiteral("pod1"), QStringLiteral("other")));
    const Event event3 = makeEvent(QStringLiteral("nevermind"), QStringLiteral("it was a bug"),
        makeObjectReference(
            QStringLiteral("Pod"), QStringLiteral("pod1"), QStringLiteral("other")));

    const auto [aggKey1, localKey1] = record::eventAggregatorByReasonFunc(event1);
    const auto [aggKey2, localKey2] = record::eventAggregatorByReasonFunc(event2);
    const auto [aggKey3, localKey3] = record::eventAggregatorByReasonFunc(event3);
    QCOMPARE(aggKey1, aggKey2);
    QVERIFY(localKey1 != localKey2);
    QVERIFY(aggKey1 != aggKey3);
    Q_UNUSED(localKey3);
}

void tst_EventCorrelator::eventAggregatorByReasonMessageFunc()
{
    const Event event1 = makeEvent(QStringLiteral("end-of-world"), QStringLiteral("it was fun"),
        makeObjectReference(
            QStringLiteral("Pod"), QStringLiteral("pod1"), QStringLiteral("other")));
    QCOMPARE(record::eventAggregatorByReasonMessageFunc(event1),
        QStringLiteral("(combined from similar events): it was fun"));
}

void tst_EventCorrelator::eventCorrelator_data()
{
    QTest::addColumn<QList<Event>>("previousEvents");
    QTest::addColumn<Event>("newEvent");
    QTest::addColumn<Event>("expectedEvent");
    QTest::addColumn<int>("intervalSeconds");
    QTest::addColumn<bool>("expectedSkip");

    const auto pod = [] {
        return makeObjectReference(
            QStringLiteral("Pod"), QStringLiteral("my-pod"), QStringLiteral("my-ns"));
    };
    const Event firstEvent
        = makeEvent(QStringLiteral("first"), QStringLiteral("i am first"), pod());
    const Event duplicateEvent
        = makeEvent(QStringLiteral("duplicate"), QStringLiteral("me again"), pod());
    const Event uniqueEvent
        = makeEvent(QStringLiteral("unique"), QStringLiteral("snowflake"), pod());
    Event similarEvent
        = makeEvent(QStringLiteral("similar"), QStringLiteral("similar message"), pod());
    similarEvent.involvedObject.fieldPath = QStringLiteral("spec.containers{container1}");
    const Event aggregateEvent = makeEvent(similarEvent.reason,
        record::eventAggregatorByReasonMessageFunc(similarEvent), similarEvent.involvedObject);
    Event similarButDifferentContainerEvent = similarEvent;
    similarButDifferentContainerEvent.involvedObject.fieldPath
        = QStringLiteral("spec.containers{container2}");

    QTest::newRow("create-a-single-event")
        << QList<Event>() << firstEvent << withCount(firstEvent, 1) << 5 << false;
    QTest::newRow("the-same-event-should-just-count")
        << makeEvents(1, duplicateEvent) << duplicateEvent << withCount(duplicateEvent, 2) << 5
        << false;
    // A larger interval would aggregate, but not spam-filter.
    QTest::newRow("the-same-event-should-just-count-even-if-more-than-aggregate")
        << makeEvents(DefaultAggregateMaxEvents, duplicateEvent) << duplicateEvent
        << withCount(duplicateEvent, DefaultAggregateMaxEvents + 1) << 30 << false;
    QTest::newRow("the-same-event-is-spam-if-happens-too-frequently")
        << makeEvents(DefaultSpamBurst + 1, duplicateEvent) << duplicateEvent << Event() << 1
        << true;
    QTest::newRow("create-many-unique-events")
        << makeUniqueEvents(30) << uniqueEvent << withCount(uniqueEvent, 1) << 5 << false;
    QTest::newRow("similar-events-should-aggregate-event")
        << makeSimilarEvents(DefaultAggregateMaxEvents - 1, similarEvent, similarEvent.message)
        << similarEvent << withCount(aggregateEvent, 1) << 5 << false;
    QTest::newRow("similar-events-many-times-should-count-the-aggregate")
        << makeSimilarEvents(DefaultAggregateMaxEvents, similarEvent, similarEvent.message)
        << similarEvent << withCount(aggregateEvent, 2) << 5 << false;
    QTest::newRow("events-from-different-containers-do-not-aggregate")
        << makeEvents(1, similarButDifferentContainerEvent) << similarEvent
        << withCount(similarEvent, 1) << 5 << false;
    QTest::newRow("similar-events-whose-interval-is-greater-than-aggregate-interval-do-not-"
                  "aggregate")
        << makeSimilarEvents(DefaultAggregateMaxEvents - 1, similarEvent, similarEvent.message)
        << similarEvent << withCount(similarEvent, 1) << DefaultAggregateIntervalInSeconds << false;
}

void tst_EventCorrelator::eventCorrelator()
{
    QFETCH(QList<Event>, previousEvents);
    QFETCH(Event, newEvent);
    QFETCH(Event, expectedEvent);
    QFETCH(int, intervalSeconds);
    QFETCH(bool, expectedSkip);

    SimpleIntervalClock clock {std::chrono::seconds(intervalSeconds)};
    CorrelatorOptions options;
    options.clock = &clock;
    EventCorrelator correlator(options);
    const auto wallOf = [](TimePoint t) { return WallTime(t.time_since_epoch()); };
    for (Event event : previousEvents) {
        event.firstTimestamp = event.lastTimestamp = wallOf(clock.now());
        const EventCorrelateResult result = correlator.eventCorrelate(event);
        // A skipped event leaves no state to update.
        if (!result.skip)
            correlator.updateState(result.event);
    }

    newEvent.firstTimestamp = newEvent.lastTimestamp = wallOf(clock.now());
    const EventCorrelateResult result = correlator.eventCorrelate(newEvent);
    QCOMPARE(result.skip, expectedSkip);
    if (expectedSkip)
        return;
    const QString problems
        = validateEvent(QString::fromUtf8(QTest::currentDataTag()), result.event, expectedEvent);
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
}

void tst_EventCorrelator::eventSpamFilter_data()
{
    QTest::addColumn<Event>("newEvent");
    QTest::addColumn<bool>("expectedSkip");
    QTest::addColumn<bool>("byReason");

    const auto pod = [] {
        return makeObjectReference(
            QStringLiteral("Pod"), QStringLiteral("my-pod"), QStringLiteral("my-ns"));
    };
    const Event differentReasonEvent
        = makeEvent(QStringLiteral("duplicate"), QStringLiteral("me again"), pod());
    const Event spamEvent
        = makeEvent(QStringLiteral("original"), QStringLiteral("me again"), pod());
    QTest::newRow("spam if the object is the same, for the default spam filter")
        << differentReasonEvent << true << false;
    QTest::newRow("not spam if the object is the same but the reason differs, for a custom "
                  "filter by reason")
        << differentReasonEvent << false << true;
    QTest::newRow("spam if object and reason are the same but the message differs, for a "
                  "custom filter by reason")
        << spamEvent << true << true;
}

void tst_EventCorrelator::eventSpamFilter()
{
    QFETCH(Event, newEvent);
    QFETCH(bool, expectedSkip);
    QFETCH(bool, byReason);

    const auto spamKeyFuncBasedOnObjectsAndReason = [](const Event &e) {
        return e.source.component + e.source.host + e.involvedObject.kind
            + e.involvedObject.namespaceName + e.involvedObject.name + e.involvedObject.uid
            + e.involvedObject.apiVersion + e.reason;
    };
    const Event originalEvent = makeEvent(QStringLiteral("original"), QStringLiteral("i am first"),
        makeObjectReference(
            QStringLiteral("Pod"), QStringLiteral("my-pod"), QStringLiteral("my-ns")));

    SimpleIntervalClock clock {std::chrono::seconds(1)};
    CorrelatorOptions options;
    options.clock = &clock;
    options.burstSize = 1;
    if (byReason)
        options.spamKeyFunc = spamKeyFuncBasedOnObjectsAndReason;
    EventCorrelator correlator(options);

    const EventCorrelateResult first = correlator.eventCorrelate(originalEvent);
    QVERIFY(!first.skip);
    correlator.updateState(first.event);

    const EventCorrelateResult result = correlator.eventCorrelate(newEvent);
    QCOMPARE(result.skip, expectedSkip);
    if (expectedSkip)
        return;
    const QString problems
        = validateEvent(QString::fromUtf8(QTest::currentDataTag()), result.event, newEvent);
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
}

void tst_EventCorrelator::countPatchHoldsCountLastTimestampAndMessage()
{
    FakeClock clock;
    CorrelatorOptions options;
    options.clock = &clock;
    EventCorrelator correlator(options);

    Event event = makeEvent(QStringLiteral("Started"), QStringLiteral("started \"it\""),
        makeObjectReference(QStringLiteral("Pod"), QStringLiteral("p"), QStringLiteral("ns")));
    event.name = QStringLiteral("p.1");
    event.namespaceName = QStringLiteral("ns");
    event.firstTimestamp = event.lastTimestamp = WallTime(std::chrono::seconds(1700000000));
    const EventCorrelateResult first = correlator.eventCorrelate(event);
    QVERIFY(first.patch.isEmpty());
    QCOMPARE(first.event.count, 1);
    Event stored = first.event;
    stored.resourceVersion = QStringLiteral("41");
    correlator.updateState(stored);

    Event again = event;
    again.name = QStringLiteral("p.2"); // the recorder names every occurrence anew
    again.firstTimestamp = again.lastTimestamp = WallTime(std::chrono::seconds(1700000042));
    const EventCorrelateResult second = correlator.eventCorrelate(again);
    QVERIFY(!second.skip);
    // The first occurrence's name, resourceVersion and firstTimestamp; count + 1.
    QCOMPARE(second.event.name, QStringLiteral("p.1"));
    QCOMPARE(second.event.resourceVersion, QStringLiteral("41"));
    QCOMPARE(second.event.firstTimestamp, WallTime(std::chrono::seconds(1700000000)));
    QCOMPARE(second.event.lastTimestamp, WallTime(std::chrono::seconds(1700000042)));
    QCOMPARE(second.event.count, 2);
    // What strategicpatch.CreateTwoWayMergePatch makes of it (keys sorted, as Go marshals).
    QCOMPARE(second.patch,
        QByteArray("{\"count\":2,\"lastTimestamp\":\"2023-11-14T22:14:02Z\",\"message\":"
                   "\"started \\\"it\\\"\"}"));

    const EventCorrelateResult third = correlator.eventCorrelate(again);
    QCOMPARE(third.event.count, 3);
    QVERIFY(third.patch.startsWith(R"({"count":3,)"));
}

void tst_EventCorrelator::updateStateTakesTheServersNameAndResourceVersion()
{
    FakeClock clock;
    CorrelatorOptions options;
    options.clock = &clock;
    EventCorrelator correlator(options);
    const Event event = makeEvent(QStringLiteral("Started"), QStringLiteral("m"),
        makeObjectReference(QStringLiteral("Pod"), QStringLiteral("p"), QStringLiteral("ns")));

    // The server's copy counts 7 (another writer counted too): the next occurrence is 8.
    Event server = correlator.eventCorrelate(event).event;
    server.name = QStringLiteral("p.server");
    server.resourceVersion = QStringLiteral("99");
    server.count = 7;
    correlator.updateState(server);
    const EventCorrelateResult next = correlator.eventCorrelate(event);
    QCOMPARE(next.event.name, QStringLiteral("p.server"));
    QCOMPARE(next.event.resourceVersion, QStringLiteral("99"));
    QCOMPARE(next.event.count, 8);
}

void tst_EventCorrelator::aggregationRestartsAfterAQuietInterval()
{
    FakeClock clock;
    CorrelatorOptions options;
    options.clock = &clock;
    EventCorrelator correlator(options);
    Event similar = makeEvent(QStringLiteral("BackOff"), QString(),
        makeObjectReference(QStringLiteral("Pod"), QStringLiteral("p"), QStringLiteral("ns")));
    similar.namespaceName = QStringLiteral("ns");
    const auto send = [&](int i) {
        Event e = similar;
        e.message = QStringLiteral("message %1").arg(i);
        const EventCorrelateResult r = correlator.eventCorrelate(e);
        if (!r.skip)
            correlator.updateState(r.event);
        return r;
    };

    // Nine distinct messages 599 s apart: recorded as they are.
    for (int i = 1; i <= 9; ++i) {
        const EventCorrelateResult r = send(i);
        QCOMPARE(r.event.message, QStringLiteral("message %1").arg(i));
        QCOMPARE(r.event.count, 1);
        clock.step(std::chrono::seconds(599));
    }
    // The tenth: aggregated, named after the object, timestamps of now.
    const EventCorrelateResult tenth = send(10);
    QCOMPARE(tenth.event.message, QStringLiteral("(combined from similar events): message 10"));
    QCOMPARE(tenth.event.count, 1);
    QVERIFY(tenth.event.name.startsWith(QStringLiteral("p.")));
    QCOMPARE(tenth.event.namespaceName, QStringLiteral("ns"));
    QCOMPARE(tenth.event.firstTimestamp, tenth.event.lastTimestamp);
    QVERIFY(tenth.patch.isEmpty());
    // The eleventh counts the aggregate, with the newest message.
    clock.step(std::chrono::seconds(1));
    const EventCorrelateResult eleventh = send(11);
    QCOMPARE(eleventh.event.name, tenth.event.name);
    QCOMPARE(eleventh.event.count, 2);
    QCOMPARE(eleventh.event.message, QStringLiteral("(combined from similar events): message 11"));
    QVERIFY(eleventh.patch.contains(R"("message":"(combined from similar events): message 11")"));

    // More than 600 s of quiet: the group starts afresh.
    clock.step(std::chrono::seconds(601));
    const EventCorrelateResult fresh = send(12);
    QCOMPARE(fresh.event.message, QStringLiteral("message 12"));
    QCOMPARE(fresh.event.count, 1);
}

void tst_EventCorrelator::spamFilterRefillsOneEventPerFiveMinutes()
{
    FakeClock clock;
    CorrelatorOptions options;
    options.clock = &clock;
    EventCorrelator correlator(options);
    Event event = makeEvent(QStringLiteral("Unhealthy"), QStringLiteral("probe failed"),
        makeObjectReference(QStringLiteral("Pod"), QStringLiteral("p"), QStringLiteral("ns")));

    int passed = 0;
    for (int i = 0; i < 30; ++i) {
        const EventCorrelateResult r = correlator.eventCorrelate(event);
        if (!r.skip) {
            ++passed;
            correlator.updateState(r.event);
        }
    }
    QCOMPARE(passed, DefaultSpamBurst);
    // A skipped occurrence still counts: the one that passes next carries the full count.
    clock.step(std::chrono::seconds(299));
    QVERIFY(correlator.eventCorrelate(event).skip);
    clock.step(std::chrono::seconds(1));
    const EventCorrelateResult refilled = correlator.eventCorrelate(event);
    QVERIFY(!refilled.skip);
    QCOMPARE(refilled.event.count, 32);
    QVERIFY(correlator.eventCorrelate(event).skip);

    // Another object from the same source has its own bucket.
    Event other = event;
    other.involvedObject.name = QStringLiteral("q");
    QVERIFY(!correlator.eventCorrelate(other).skip);
    // So does another type about the same object.
    Event warning = event;
    warning.type = EventTypeWarning;
    QVERIFY(!correlator.eventCorrelate(warning).skip);
}

void tst_EventCorrelator::lruCacheForgetsTheLeastRecentlyUsedEvent()
{
    FakeClock clock;
    CorrelatorOptions options;
    options.clock = &clock;
    options.lruCacheSize = 2;
    EventCorrelator correlator(options);
    const auto eventAbout = [](const QString &name) {
        return makeEvent(QStringLiteral("Started"), QStringLiteral("m"),
            makeObjectReference(QStringLiteral("Pod"), name, QStringLiteral("ns")));
    };
    const auto record = [&](const QString &name) {
        const EventCorrelateResult r = correlator.eventCorrelate(eventAbout(name));
        correlator.updateState(r.event);
        return r.event.count;
    };
    QCOMPARE(record(QStringLiteral("a")), 1);
    QCOMPARE(record(QStringLiteral("b")), 1);
    QCOMPARE(record(QStringLiteral("a")), 2); // a is now the most recently used
    QCOMPARE(record(QStringLiteral("c")), 1); // evicts b
    QCOMPARE(record(QStringLiteral("a")), 3);
    QCOMPARE(record(QStringLiteral("b")), 1); // forgotten: created anew
}

void tst_EventCorrelator::populateDefaultsUsesClientGoDefaults()
{
    const CorrelatorOptions o = EventCorrelator::populateDefaults({});
    QCOMPARE(o.lruCacheSize, 4096);
    QCOMPARE(o.burstSize, 25);
    QCOMPARE(o.qps, 1.f / 300.f);
    QCOMPARE(o.maxEvents, 10);
    QCOMPARE(o.maxIntervalInSeconds, 600);
    QCOMPARE(o.clock, Clock::system());
    QVERIFY(o.keyFunc && o.messageFunc && o.spamKeyFunc);

    CorrelatorOptions custom;
    custom.burstSize = 3;
    custom.maxEvents = 4;
    const CorrelatorOptions kept = EventCorrelator::populateDefaults(custom);
    QCOMPARE(kept.burstSize, 3);
    QCOMPARE(kept.maxEvents, 4);
}

QTEST_GUILESS_MAIN(tst_EventCorrelator)
#include "tst_eventcorrelator.moc"
