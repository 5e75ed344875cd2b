// SPDX-License-Identifier: Apache-2.0
// EventBroadcaster and its recorders, writing to a fake sink on a fake clock: client-go's
// event_test.go (TestNonRacyShutdown, TestEventf, TestWriteEventError, TestUpdateExpiredEvent,
// TestCancelEvent, TestLotsOfEvents, TestEventfNoNamespace, TestMultiSinkCache), plus the
// retry sleeps, the bounded queue, type validation, the consumers' lifecycle, and flushing and
// a bounded shutdown (what a process does before it exits).
#include "recordtestsupport.h"

#include <qcm/record/eventbroadcaster.h>

#include <QtCore/QElapsedTimer>
#include <QtTest/QtTest>

#include <future>
#include <mutex>
#include <thread>

using namespace qcm;
using namespace qcm::record;
using namespace qcm::record::testing;

class tst_EventBroadcaster : public QObject
{
    Q_OBJECT

private slots:
    void cleanup();
    void nonRacyShutdown();
    void eventf();
    void structuredLogging();
    void eventFields();
    void writeEventError_data();
    void writeEventError();
    void retriesSleepOnTheClock();
    void updateExpiredEvent();
    void cancelEvent();
    void lotsOfEvents();
    void eventfNoNamespace();
    void multiSinkCache();
    void droppedWhenTheQueueIsFull();
    void unsupportedTypeIsNotRecorded();
    void unreferenceableObjectIsNotRecorded();
    void stoppedWatcherGetsNothing();
    void stopFromInsideTheHandler();
    void shutdownFromInsideAHandler();
    void handlerExceptionIsCaught();
    void recorderOutlivesBroadcaster();
    void flushWritesWhatIsQueued();
    void flushTimesOutOnAWriteThatHangs();
    void shutdownWithTimeoutLeavesAHungWrite();
};

namespace {

const EventSource TestSource {QStringLiteral("eventTest"), QString()};

EventBroadcasterOptions optionsFor(Clock *clock, Duration sleepDuration = Duration::zero())
{
    EventBroadcasterOptions options;
    options.clock = clock;
    options.sleepDuration = sleepDuration;
    return options;
}

ObjectReference podRef(const QString &uid, const QString &fieldPath, const QString &ns = {})
{
    ObjectReference ref;
    ref.kind = QStringLiteral("Pod");
    ref.name = QStringLiteral("foo");
    ref.namespaceName = ns.isNull() ? QStringLiteral("baz") : ns;
    ref.uid = uid;
    ref.apiVersion = QStringLiteral("v1");
    ref.fieldPath = fieldPath;
    return ref;
}

// A uniquely named object, so that its events are neither aggregated nor spam-filtered.
ObjectReference uniqueRef(const QString &name)
{
    ObjectReference ref;
    ref.kind = QStringLiteral("Pod");
    ref.name = name;
    ref.namespaceName = QStringLiteral("baz");
    ref.uid = QStringLiteral("bar");
    ref.apiVersion = QStringLiteral("version");
    return ref;
}

const ObjectReference MarkerRef = uniqueRef(QStringLiteral("marker"));

Event expectedEvent(const ObjectReference &ref, const QString &reason, int count,
    const QString &ns = QStringLiteral("baz"),
    const QString &controller = QStringLiteral("eventTest"))
{
    Event e;
    e.name = QStringLiteral("foo");
    e.namespaceName = ns;
    e.involvedObject = ref;
    e.reason = reason;
    e.message = QStringLiteral("some verbose message: 1");
    e.source = TestSource;
    e.reportingController = controller;
    e.count = count;
    e.type = EventTypeNormal;
    return e;
}

// One row of client-go's TestEventf table: what to record about which object, and what the
// sink must then see.
struct Step
{
    std::function<void(EventRecorder &)> record;
    Event expect;
    QString expectLog;
    bool expectUpdate;
};

QList<Step> eventfTable()
{
    const ObjectReference testRef
        = podRef(QStringLiteral("bar"), QStringLiteral("spec.containers[2]"));
    const ObjectReference testRef2
        = podRef(QStringLiteral("differentUid"), QStringLiteral("spec.containers[3]"));
    const ObjectReference podItself = podRef(QStringLiteral("bar"), QString());
    const QString fmt = QStringLiteral("some verbose message: %1");
    const auto onRef = [fmt](const ObjectReference &ref, const QString &reason) {
        return [=](EventRecorder &r) { r.eventf(ref, EventTypeNormal, reason, fmt, 1); };
    };
    const auto log = [](const QString &ref, const QString &reason, const QString &message) {
        return QStringLiteral("Event(%1): type: 'Normal' reason: '%2' %3")
            .arg(ref, reason, message);
    };
    const QString ref1 = QStringLiteral(R"(v1.ObjectReference{Kind:"Pod", Namespace:"baz", )"
                                        R"(Name:"foo", UID:"bar", APIVersion:"v1", )"
                                        R"(ResourceVersion:"", FieldPath:"spec.containers[2]"})");
    const QString refPod = QStringLiteral(R"(v1.ObjectReference{Kind:"Pod", Namespace:"baz", )"
                                          R"(Name:"foo", UID:"bar", APIVersion:"v1", )"
                                          R"(ResourceVersion:"", FieldPath:""})");
    const QString ref2 = QStringLiteral(R"(v1.ObjectReference{Kind:"Pod", Namespace:"baz", )"
                                        R"(Name:"foo", UID:"differentUid", APIVersion:"v1", )"
                                        R"(ResourceVersion:"", FieldPath:"spec.containers[3]"})");
    const QString message = QStringLiteral("some verbose message: 1");

    Event killed = expectedEvent(podItself, QStringLiteral("Killed"), 1);
    killed.message = QStringLiteral("some other verbose message: 1");
    const QString started = QStringLiteral("Started");
    const QString stopped = QStringLiteral("Stopped");
    return {
        {onRef(testRef, started), expectedEvent(testRef, started, 1), log(ref1, started, message),
            false},
        {[](EventRecorder &r) {
             r.eventf(testPod(), EventTypeNormal, QStringLiteral("Killed"),
                 QStringLiteral("some other verbose message: %1"), 1);
         },
            killed,
            log(refPod, QStringLiteral("Killed"), QStringLiteral("some other verbose message: 1")),
            false},
        {onRef(testRef, started), expectedEvent(testRef, started, 2), log(ref1, started, message),
            true},
        {onRef(testRef2, started), expectedEvent(testRef2, started, 1), log(ref2, started, message),
            false},
        {onRef(testRef, started), expectedEvent(testRef, started, 3), log(ref1, started, message),
            true},
        {onRef(testRef2, stopped), expectedEvent(testRef2, stopped, 1), log(ref2, stopped, message),
            false},
        {onRef(testRef2, stopped), expectedEvent(testRef2, stopped, 2), log(ref2, stopped, message),
            true},
    };
}

// Plays the table through `recorder` and checks what `server` saw.
void playTable(
    FakeClock &clock, EventRecorder &recorder, FakeServer &server, Channel<QString> *logLines)
{
    const QList<Step> table = eventfTable();
    for (int index = 0; index < table.size(); ++index) {
        const Step &item = table[index];
        clock.step(std::chrono::seconds(1));
        item.record(recorder);
        if (logLines) {
            const auto line = logLines->pop();
            QVERIFY2(line, "no log line");
            QCOMPARE(*line, item.expectLog);
        }
        const auto actual = item.expectUpdate ? server.patched.pop() : server.created.pop();
        QVERIFY2(actual,
            qPrintable(QStringLiteral("step %1: no %2")
                           .arg(index)
                           .arg(item.expectUpdate ? "patch" : "create")));
        const QString problems = validateEvent(QString::number(index), *actual, item.expect);
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
    }
    QCOMPARE(server.created.size(), 0);
    QCOMPARE(server.patched.size(), 0);
}

// Waits until the consumer threads have handled everything recorded before: records an
// Event about MarkerRef and waits for `seen` to report it.
bool waitForMarker(EventRecorder &recorder, Channel<Event> &seen)
{
    recorder.event(MarkerRef, EventTypeNormal, QStringLiteral("Marker"), QStringLiteral("marker"));
    for (;;) {
        const auto e = seen.pop();
        if (!e)
            return false;
        if (e->involvedObject.name == MarkerRef.name)
            return true;
    }
}

// A broadcaster on a fake clock with a recorder, and a consumer that pushes every Event onto
// `seen`.
struct Harness
{
    Harness() : caster(optionsFor(&clock)), recorder(caster.newRecorder(TestSource))
    {
        caster.startEventWatcher([this](const Event &e) { seen.push(e); });
    }

    FakeClock clock;
    Channel<Event> seen; // outlives the consumer
    EventBroadcaster caster;
    std::shared_ptr<EventRecorder> recorder;
};

// A broadcaster on a fake clock with a recorder, writing to a FakeServer through a FakeSink,
// and logging with startLogging() onto `logLines`.
struct ServerHarness
{
    ServerHarness()
        : sink(std::make_shared<FakeSink>())
        , caster(optionsFor(&clock))
        , recorder(caster.newRecorder(TestSource))
    {
        server.attach(*sink);
        caster.startRecordingToSink(sink);
        caster.startLogging([this](const QString &line) { logLines.push(line); });
    }

    FakeClock clock;
    FakeServer server; // outlives the consumers
    Channel<QString> logLines;
    std::shared_ptr<FakeSink> sink;
    EventBroadcaster caster;
    std::shared_ptr<EventRecorder> recorder;
};

// The sink failures these tests provoke are logged as warnings; tests that expect them say
// so with quietWriteFailures().
void quietWriteFailures()
{
    QLoggingCategory::setFilterRules(QStringLiteral("qcm.record.warning=false"));
}

} // namespace

void tst_EventBroadcaster::cleanup()
{
    QLoggingCategory::setFilterRules(QString());
}

void tst_EventBroadcaster::nonRacyShutdown()
{
    // Recording from many threads, then shutting down from another, is safe.
    FakeClock clock;
    EventBroadcaster caster(optionsFor(&clock));
    auto sink = std::make_shared<FakeSink>();
    caster.startRecordingToSink(sink);
    auto recorder = caster.newRecorder(TestSource);
    std::vector<std::thread> threads;
    for (int i = 0; i < 100; ++i) {
        threads.emplace_back([recorder] {
            recorder->eventf(ObjectReference(), EventTypeNormal, QStringLiteral("Started"),
                QStringLiteral("blah"));
        });
    }
    for (auto &t : threads)
        t.join();
    caster.shutdown();
}

void tst_EventBroadcaster::eventf()
{
    ServerHarness h;
    playTable(h.clock, *h.recorder, h.server, &h.logLines);
}

namespace {
std::mutex g_logMutex;
QStringList g_logged;
QtMessageHandler g_previousHandler = nullptr;
void captureStructured(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (qstrcmp(context.category, "qcm.test.events") == 0) {
        std::lock_guard lock(g_logMutex);
        g_logged << message;
        return;
    }
    g_previousHandler(type, context, message);
}
} // namespace

void tst_EventBroadcaster::structuredLogging()
{
    static QLoggingCategory category("qcm.test.events");
    category.setEnabled(QtInfoMsg, true);
    g_previousHandler = qInstallMessageHandler(captureStructured);
    {
        FakeClock clock;
        EventBroadcaster caster(optionsFor(&clock));
        caster.startStructuredLogging(&category);
        auto recorder = caster.newRecorder(TestSource);
        recorder->eventf(podRef(QStringLiteral("bar"), QStringLiteral("spec.containers[2]")),
            EventTypeNormal, QStringLiteral("Started"), QStringLiteral("some verbose message: %1"),
            1);
        recorder->eventf(podRef(QStringLiteral("bar"), QString(), QString("")), EventTypeWarning,
            QStringLiteral("Failed"), QStringLiteral("said \"%1\""), QStringLiteral("no"));
        QTRY_COMPARE(([] {
            std::lock_guard lock(g_logMutex);
            return g_logged.size();
        }()),
            2);
    }
    qInstallMessageHandler(g_previousHandler);
    QCOMPARE(g_logged,
        (QStringList {QStringLiteral(R"(Event occurred object="baz/foo" )"
                                     R"(fieldPath="spec.containers[2]" kind="Pod" )"
                                     R"(apiVersion="v1" type="Normal" reason="Started" )"
                                     R"(message="some verbose message: 1")"),
            QStringLiteral(R"(Event occurred object="foo" fieldPath="" kind="Pod" )"
                           R"(apiVersion="v1" type="Warning" reason="Failed" )"
                           "message=\"said \\\"no\\\"\"")}));
}

void tst_EventBroadcaster::eventFields()
{
    Channel<Event> seen;
    FakeClock clock;
    EventBroadcaster caster(optionsFor(&clock));
    caster.startEventWatcher([&seen](const Event &e) { seen.push(e); });
    auto recorder
        = caster.newRecorder({QStringLiteral("foo-controller"), QStringLiteral("node-7")});

    client::Object pod = testPod();
    pod.setResourceVersion(QStringLiteral("42"));
    const WallTime before = wallNow();
    recorder->annotatedEventf(pod, {{QStringLiteral("note"), QStringLiteral("yes")}},
        EventTypeWarning, QStringLiteral("FailedSync"), QStringLiteral("%1 failed: %2"),
        QStringLiteral("sync"), QStringLiteral("boom"));
    const auto e = seen.pop();
    QVERIFY(e);
    // client-go's makeEvent and generateEvent.
    QCOMPARE(e->name,
        QStringLiteral("foo.") + QString::number(e->firstTimestamp.time_since_epoch().count(), 16));
    QCOMPARE(e->namespaceName, QStringLiteral("baz"));
    QCOMPARE(
        e->annotations, (QMap<QString, QString> {{QStringLiteral("note"), QStringLiteral("yes")}}));
    QCOMPARE(e->involvedObject.kind, QStringLiteral("Pod"));
    QCOMPARE(e->involvedObject.apiVersion, QStringLiteral("v1"));
    QCOMPARE(e->involvedObject.namespaceName, QStringLiteral("baz"));
    QCOMPARE(e->involvedObject.name, QStringLiteral("foo"));
    QCOMPARE(e->involvedObject.uid, QStringLiteral("bar"));
    QCOMPARE(e->involvedObject.resourceVersion, QStringLiteral("42"));
    QCOMPARE(e->reason, QStringLiteral("FailedSync"));
    QCOMPARE(e->message, QStringLiteral("sync failed: boom"));
    QCOMPARE(e->source, (EventSource {QStringLiteral("foo-controller"), QStringLiteral("node-7")}));
    QCOMPARE(e->reportingController, QStringLiteral("foo-controller"));
    QCOMPARE(e->reportingInstance, QStringLiteral("node-7"));
    QCOMPARE(e->count, 1);
    QCOMPARE(e->type, EventTypeWarning);
    QCOMPARE(e->firstTimestamp, e->lastTimestamp);
    // Wall-clock time, moving with the fake clock.
    QVERIFY(e->firstTimestamp >= before - std::chrono::seconds(1));
    clock.step(std::chrono::hours(1));
    recorder->event(pod, EventTypeNormal, QStringLiteral("Later"), QStringLiteral("later"));
    const auto later = seen.pop();
    QVERIFY(later);
    QCOMPARE(later->firstTimestamp - e->firstTimestamp, std::chrono::hours(1));
}

void tst_EventBroadcaster::writeEventError_data()
{
    QTest::addColumn<int>("timesToSendError");
    QTest::addColumn<int>("attemptsWanted");
    QTest::addColumn<client::Status>("error");

    QTest::newRow("giveUp1: request construction")
        << 1000 << 1 << EventSink::requestConstructionError(QStringLiteral("bad request"));
    QTest::newRow("giveUp2: server status")
        << 1000 << 1 << client::Status::fromResponse(422, QByteArray());
    QTest::newRow("giveUp3: already exists")
        << 1000 << 1
        << client::Status::fromResponse(
               409, R"({"kind":"Status","code":409,"reason":"AlreadyExists","message":"exists"})");
    QTest::newRow("retry1: unexpected object")
        << 1000 << 12
        << client::Status::transportError(QStringLiteral("DecodeError"), QStringLiteral("bad"));
    QTest::newRow("retry2: a weird error")
        << 1000 << 12
        << client::Status::transportError(QStringLiteral("Weird"), QStringLiteral("A weird error"));
    QTest::newRow("succeedEventually")
        << 2 << 2
        << client::Status::transportError(QStringLiteral("Weird"), QStringLiteral("A weird error"));
}

void tst_EventBroadcaster::writeEventError()
{
    quietWriteFailures();
    QFETCH(int, timesToSendError);
    QFETCH(int, attemptsWanted);
    QFETCH(client::Status, error);

    std::atomic<int> attempts {0};
    Channel<Event> seen;
    auto sink = std::make_shared<FakeSink>();
    sink->onCreate = [&](const Event &e) -> SinkResult {
        if (e.involvedObject.name == MarkerRef.name) {
            seen.push(e);
            return e;
        }
        if (++attempts < timesToSendError)
            return error;
        return e;
    };
    FakeClock clock;
    EventBroadcaster caster(optionsFor(&clock));
    caster.startRecordingToSink(sink);
    auto recorder = caster.newRecorder(TestSource);
    recorder->event(
        uniqueRef(QStringLiteral("x")), EventTypeNormal, QStringLiteral("R"), QStringLiteral("m"));
    QVERIFY(waitForMarker(*recorder, seen));
    QCOMPARE(attempts.load(), attemptsWanted);
}

void tst_EventBroadcaster::retriesSleepOnTheClock()
{
    quietWriteFailures();
    Channel<int> attempts;
    std::atomic<int> count {0};
    Channel<Event> seen;
    auto sink = std::make_shared<FakeSink>();
    sink->onCreate = [&](const Event &e) -> SinkResult {
        if (e.involvedObject.name == MarkerRef.name) {
            seen.push(e);
            return e;
        }
        attempts.push(++count);
        return client::Status::transportError(
            QStringLiteral("ConnectionRefused"), QStringLiteral("connection refused"));
    };
    FakeClock clock;
    EventBroadcaster caster(optionsFor(&clock, DefaultSleepDuration));
    caster.startRecordingToSink(sink);
    auto recorder = caster.newRecorder(TestSource);
    recorder->event(
        uniqueRef(QStringLiteral("x")), EventTypeNormal, QStringLiteral("R"), QStringLiteral("m"));

    QCOMPARE(attempts.pop(), std::optional<int>(1));
    // The first sleep is randomized: at most 10 s.
    QTRY_VERIFY(clock.hasWaiters());
    clock.step(DefaultSleepDuration);
    QCOMPARE(attempts.pop(), std::optional<int>(2));
    // Then exactly 10 s between tries, up to 12 tries.
    for (int attempt = 3; attempt <= MaxTriesPerEvent; ++attempt) {
        QTRY_VERIFY(clock.hasWaiters());
        clock.step(DefaultSleepDuration - Duration(1));
        QVERIFY(clock.hasWaiters());
        QCOMPARE(attempts.size(), 0);
        clock.step(Duration(1));
        QCOMPARE(attempts.pop(), std::optional<int>(attempt));
    }
    // Given up: no more sleeps, and the next event is written.
    QVERIFY(waitForMarker(*recorder, seen));
    QCOMPARE(count.load(), MaxTriesPerEvent);
    QVERIFY(!clock.hasWaiters());
}

void tst_EventBroadcaster::updateExpiredEvent()
{
    Channel<Event> created;
    std::atomic<int> patches {0};
    auto sink = std::make_shared<FakeSink>();
    sink->onCreate = [&](const Event &e) -> SinkResult {
        created.push(e);
        Event stored = e;
        stored.resourceVersion = QStringLiteral("updated-resource-version");
        return stored;
    };
    sink->onPatch = [&](const Event &, const QByteArray &) -> SinkResult {
        ++patches;
        return client::Status::fromResponse(
            404, R"({"kind":"Status","code":404,"reason":"NotFound","message":"not found"})");
    };
    FakeClock clock;
    EventBroadcaster caster(optionsFor(&clock));
    caster.startRecordingToSink(sink);
    auto recorder = caster.newRecorder(TestSource);
    const ObjectReference ref = uniqueRef(QStringLiteral("x"));
    recorder->event(ref, EventTypeNormal, QStringLiteral("R"), QStringLiteral("m"));
    const auto first = created.pop();
    QVERIFY(first);
    clock.step(std::chrono::seconds(1));
    recorder->event(ref, EventTypeNormal, QStringLiteral("R"), QStringLiteral("m"));
    // The patch finds the Event gone: it is created again, without its old resourceVersion.
    const auto second = created.pop();
    QVERIFY2(second, "Event did not get created after patch failed");
    QCOMPARE(patches.load(), 1);
    QCOMPARE(second->resourceVersion, QString());
    QCOMPARE(second->name, first->name);
    QCOMPARE(second->count, 2);
}

void tst_EventBroadcaster::cancelEvent()
{
    quietWriteFailures();
    std::atomic<int> attempts {0};
    auto sink = std::make_shared<FakeSink>();
    sink->onCreate = [&](const Event &) -> SinkResult {
        ++attempts;
        return client::Status::transportError(QStringLiteral("DecodeError"), QStringLiteral("x"));
    };
    FakeClock clock;
    EventBroadcaster caster(optionsFor(&clock, std::chrono::seconds(1)));
    caster.startRecordingToSink(sink);
    caster.newRecorder(TestSource)
        ->event(uniqueRef(QStringLiteral("x")), EventTypeNormal, QStringLiteral("R"),
            QStringLiteral("m"));
    QTRY_VERIFY(clock.hasWaiters()); // sleeping after the first try
    // Shutting down cuts the sleep short: no second try.
    caster.shutdown();
    QCOMPARE(attempts.load(), 1);
    QVERIFY(!clock.hasWaiters());
}

void tst_EventBroadcaster::lotsOfEvents()
{
    quietWriteFailures();
    // Fail each event a few times, to put some load on the retries.
    std::array<std::atomic<int>, MaxQueuedEvents> counts {};
    std::atomic<int> recorded {0};
    std::atomic<int> logged {0};
    auto sink = std::make_shared<FakeSink>();
    sink->onCreate = [&](const Event &e) -> SinkResult {
        bool ok = false;
        const int num = e.message.toInt(&ok);
        if (!ok || num < 0 || num >= MaxQueuedEvents)
            return e;
        if (++counts[num] < 5)
            return client::Status::transportError(
                QStringLiteral("Fake"), QStringLiteral("fake error"));
        ++recorded;
        return e;
    };
    FakeClock clock;
    EventBroadcaster caster(optionsFor(&clock));
    caster.startRecordingToSink(sink);
    caster.startLogging([&logged](const QString &) { ++logged; });
    auto recorder = caster.newRecorder(TestSource);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([recorder, t] {
            for (int i = t; i < MaxQueuedEvents; i += 4) {
                // A unique object, against the spam filter; a unique reason, against
                // aggregation.
                recorder->eventf(uniqueRef(QStringLiteral("foo-%1").arg(i)), EventTypeNormal,
                    QStringLiteral("Reason-%1").arg(i), QStringLiteral("%1"), i);
            }
        });
    }
    for (auto &t : threads)
        t.join();
    // No listener dropped an event.
    QTRY_COMPARE_WITH_TIMEOUT(recorded.load(), MaxQueuedEvents, 60000);
    QTRY_COMPARE(logged.load(), MaxQueuedEvents);
    for (int i = 0; i < MaxQueuedEvents; ++i)
        QCOMPARE(counts[i].load(), 5);
}

void tst_EventBroadcaster::eventfNoNamespace()
{
    ServerHarness h;
    const ObjectReference testRef
        = podRef(QStringLiteral("bar"), QStringLiteral("spec.containers[2]"), QString(""));
    h.clock.step(std::chrono::seconds(1));
    h.recorder->eventf(testRef, EventTypeNormal, QStringLiteral("Started"),
        QStringLiteral("some verbose message: %1"), 1);
    QCOMPARE(h.logLines.pop(),
        std::optional<QString>(QStringLiteral(
            R"(Event(v1.ObjectReference{Kind:"Pod", Namespace:"", Name:"foo", UID:"bar", )"
            R"(APIVersion:"v1", ResourceVersion:"", FieldPath:"spec.containers[2]"}): )"
            R"(type: 'Normal' reason: 'Started' some verbose message: 1)")));
    const auto actual = h.server.created.pop();
    QVERIFY(actual);
    // An object without a namespace gets its Events in "default".
    const QString problems = validateEvent(QStringLiteral("0"), *actual,
        expectedEvent(testRef, QStringLiteral("Started"), 1, QStringLiteral("default")));
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
}

void tst_EventBroadcaster::multiSinkCache()
{
    // The servers outlive the broadcaster's consumers.
    FakeServer server1;
    FakeServer server2;
    auto sink1 = std::make_shared<FakeSink>();
    auto sink2 = std::make_shared<FakeSink>();
    server1.attach(*sink1);
    server2.attach(*sink2);
    FakeClock clock;
    EventBroadcaster caster(optionsFor(&clock));
    auto recorder = caster.newRecorder(TestSource);

    EventWatcher sinkWatcher = caster.startRecordingToSink(sink1);
    playTable(clock, *recorder, server1, nullptr);
    if (QTest::currentTestFailed())
        return;
    sinkWatcher.stop();
    QVERIFY(sinkWatcher.isStopped());

    // Another sink starts with clean caches: the same table gives the same counts.
    caster.startRecordingToSink(sink2);
    playTable(clock, *recorder, server2, nullptr);
    QCOMPARE(server1.created.size(), 0);
}

void tst_EventBroadcaster::droppedWhenTheQueueIsFull()
{
    std::promise<void> entered;
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    std::atomic<int> created {0};
    Channel<Event> seen;
    auto sink = std::make_shared<FakeSink>();
    sink->onCreate = [&](const Event &e) -> SinkResult {
        if (e.involvedObject.name == QLatin1String("blocker")) {
            entered.set_value();
            released.wait();
        } else if (e.involvedObject.name == MarkerRef.name) {
            seen.push(e);
            return e;
        }
        ++created;
        return e;
    };
    FakeClock clock;
    EventBroadcaster caster(optionsFor(&clock));
    caster.startRecordingToSink(sink);
    auto recorder = caster.newRecorder(TestSource);
    recorder->event(uniqueRef(QStringLiteral("blocker")), EventTypeNormal, QStringLiteral("Block"),
        QStringLiteral("blocks"));
    entered.get_future().wait(); // the writer is busy: nothing leaves the queue

    // 1000 fit in the queue; the next ones are dropped, and recording never waits.
    for (int i = 0; i < MaxQueuedEvents; ++i)
        recorder->event(uniqueRef(QStringLiteral("queued-%1").arg(i)), EventTypeNormal,
            QStringLiteral("R%1").arg(i), QStringLiteral("m"));
    for (int i = 0; i < 5; ++i) {
        QTest::ignoreMessage(QtWarningMsg,
            QRegularExpression(QStringLiteral(
                "^Unable to record event: too many queued events, dropped event for 1 .*dropped-%1")
                                   .arg(i)));
        recorder->event(uniqueRef(QStringLiteral("dropped-%1").arg(i)), EventTypeNormal,
            QStringLiteral("D%1").arg(i), QStringLiteral("m"));
    }
    release.set_value();
    QTRY_COMPARE(created.load(), 1 + MaxQueuedEvents);
    // Nothing else comes: the dropped events are gone.
    QVERIFY(waitForMarker(*recorder, seen));
    QCOMPARE(created.load(), 1 + MaxQueuedEvents);
}

void tst_EventBroadcaster::unsupportedTypeIsNotRecorded()
{
    Harness h;
    QTest::ignoreMessage(
        QtWarningMsg, QRegularExpression(QStringLiteral("^Unsupported event type: \"Info\"")));
    h.recorder->event(uniqueRef(QStringLiteral("x")), QStringLiteral("Info"), QStringLiteral("R"),
        QStringLiteral("m"));
    // Only the marker arrives.
    QVERIFY(waitForMarker(*h.recorder, h.seen));
    QCOMPARE(h.seen.size(), 0);
}

void tst_EventBroadcaster::unreferenceableObjectIsNotRecorded()
{
    Harness h;
    client::Object noKind = testPod();
    noKind.json().remove(QStringLiteral("kind"));
    QTest::ignoreMessage(QtWarningMsg,
        QRegularExpression(QStringLiteral("^Could not construct reference, will not report event: "
                                          "baz/foo: kind: ")));
    h.recorder->event(noKind, EventTypeNormal, QStringLiteral("R"), QStringLiteral("m"));
    QVERIFY(waitForMarker(*h.recorder, h.seen));
    QCOMPARE(h.seen.size(), 0);
}

void tst_EventBroadcaster::stoppedWatcherGetsNothing()
{
    std::atomic<int> stoppedCalls {0};
    Harness h;
    EventWatcher stopped = h.caster.startEventWatcher([&](const Event &) { ++stoppedCalls; });
    QVERIFY(!stopped.isStopped());
    stopped.stop();
    stopped.stop(); // idempotent
    QVERIFY(stopped.isStopped());
    QVERIFY(waitForMarker(*h.recorder, h.seen));
    QCOMPARE(stoppedCalls.load(), 0);
}

void tst_EventBroadcaster::stopFromInsideTheHandler()
{
    std::mutex mutex;
    EventWatcher self; // guarded by mutex
    std::atomic<int> calls {0};
    Harness h;
    EventWatcher watcher = h.caster.startEventWatcher([&](const Event &) {
        ++calls;
        std::lock_guard lock(mutex);
        self.stop(); // must not wait for itself
    });
    {
        std::lock_guard lock(mutex);
        self = watcher;
    }
    h.recorder->event(
        uniqueRef(QStringLiteral("a")), EventTypeNormal, QStringLiteral("R"), QStringLiteral("m"));
    QTRY_VERIFY(watcher.isStopped());
    QVERIFY(waitForMarker(*h.recorder, h.seen));
    QCOMPARE(calls.load(), 1);
}

void tst_EventBroadcaster::shutdownFromInsideAHandler()
{
    // Held by the handler: its thread is not joined, so it may still be using it.
    auto handled = std::make_shared<Channel<int>>();
    FakeClock clock;
    auto caster = std::make_unique<EventBroadcaster>(optionsFor(&clock));
    EventBroadcaster *raw = caster.get();
    caster->startEventWatcher([raw, handled](const Event &) {
        raw->shutdown(); // does not wait for this consumer
        handled->push(1);
    });
    auto recorder = caster->newRecorder(TestSource);
    recorder->event(
        uniqueRef(QStringLiteral("a")), EventTypeNormal, QStringLiteral("R"), QStringLiteral("m"));
    QVERIFY(handled->pop());
    QTest::ignoreMessage(QtWarningMsg,
        QRegularExpression(
            QStringLiteral("^Unable to record event: the broadcaster is shut down")));
    recorder->event(
        uniqueRef(QStringLiteral("b")), EventTypeNormal, QStringLiteral("R"), QStringLiteral("m"));
    caster.reset(); // shutdown() again: idempotent
    QCOMPARE(handled->size(), 0);
}

void tst_EventBroadcaster::handlerExceptionIsCaught()
{
    Channel<Event> seen;
    FakeClock clock;
    EventBroadcaster caster(optionsFor(&clock));
    caster.startEventWatcher([&seen](const Event &e) {
        if (e.reason == QLatin1String("Throw"))
            throw std::runtime_error("handler failed");
        seen.push(e);
    });
    auto recorder = caster.newRecorder(TestSource);
    recorder->event(uniqueRef(QStringLiteral("a")), EventTypeNormal, QStringLiteral("Throw"),
        QStringLiteral("m"));
    // The consumer goes on with the next event.
    QVERIFY(waitForMarker(*recorder, seen));
}

void tst_EventBroadcaster::recorderOutlivesBroadcaster()
{
    FakeClock clock;
    std::shared_ptr<EventRecorder> recorder;
    std::atomic<int> calls {0};
    {
        EventBroadcaster caster(optionsFor(&clock));
        caster.startEventWatcher([&calls](const Event &) { ++calls; });
        recorder = caster.newRecorder(TestSource);
    }
    QTest::ignoreMessage(QtWarningMsg,
        QRegularExpression(
            QStringLiteral("^Unable to record event: the broadcaster is shut down")));
    recorder->event(
        uniqueRef(QStringLiteral("a")), EventTypeNormal, QStringLiteral("R"), QStringLiteral("m"));
    QCOMPARE(calls.load(), 0);

    // A broadcaster that is shut down starts no consumers.
    EventBroadcaster caster(optionsFor(&clock));
    caster.shutdown();
    QTest::ignoreMessage(
        QtWarningMsg, QRegularExpression(QStringLiteral("^Unable to start an event watcher")));
    QVERIFY(caster.startEventWatcher([](const Event &) {}).isStopped());
}

// flush() waits until the sink has written every Event recorded before it; shutdown() alone
// would discard what is still queued.
void tst_EventBroadcaster::flushWritesWhatIsQueued()
{
    std::atomic<int> created {0};
    auto sink = std::make_shared<FakeSink>();
    sink->onCreate = [&](const Event &e) -> SinkResult {
        std::this_thread::sleep_for(std::chrono::milliseconds(5)); // a round trip
        ++created;
        return e;
    };
    std::atomic<int> logged {0};
    FakeClock clock;
    EventBroadcaster caster(optionsFor(&clock));
    caster.startRecordingToSink(sink);
    caster.startEventWatcher([&](const Event &) { ++logged; });
    auto recorder = caster.newRecorder(TestSource);
    constexpr int Events = 40;
    for (int i = 0; i < Events; ++i)
        recorder->event(uniqueRef(QStringLiteral("e-%1").arg(i)), EventTypeNormal,
            QStringLiteral("R%1").arg(i), QStringLiteral("m"));
    QVERIFY(created.load() < Events); // still queued: the sink is slower than the recorder
    QVERIFY(caster.flush(std::chrono::seconds(30)));
    QCOMPARE(created.load(), Events);
    QCOMPARE(logged.load(), Events);
    QVERIFY(caster.shutdown(std::chrono::seconds(5)));
    QCOMPARE(created.load(), Events);
    QVERIFY(caster.flush(Duration::zero())); // no consumer left: nothing to wait for
}

namespace {

// A sink whose create() does not return until release(): a write to an API server that hangs.
// Its handler holds only shared state, so the consumer's thread may outlive this object;
// release() also runs on destruction, so that a failed check never leaves a write hanging.
struct HungWrite
{
    struct State
    {
        std::promise<void> entered;
        std::promise<void> release;
        std::shared_future<void> released = release.get_future().share();
        std::promise<void> finished;
        std::once_flag releasedOnce;
    };

    HungWrite() : state(std::make_shared<State>()), sink(std::make_shared<FakeSink>())
    {
        sink->onCreate = [state = state](const Event &e) -> SinkResult {
            state->entered.set_value();
            state->released.wait();
            state->finished.set_value();
            return e;
        };
    }
    ~HungWrite() { release(); }
    HungWrite(const HungWrite &) = delete;
    HungWrite &operator=(const HungWrite &) = delete;

    // Records an Event through `caster` and waits until its consumer is inside the write.
    void start(EventBroadcaster &caster)
    {
        std::future<void> entered = state->entered.get_future();
        caster.newRecorder(TestSource)
            ->event(uniqueRef(QStringLiteral("hangs")), EventTypeNormal, QStringLiteral("R"),
                QStringLiteral("m"));
        entered.wait();
    }
    void release()
    {
        std::call_once(state->releasedOnce, [this] { state->release.set_value(); });
    }

    std::shared_ptr<State> state;
    std::shared_ptr<FakeSink> sink;
};

} // namespace

// A write that does not return: flush() gives up at its timeout, and succeeds once the write
// returns.
void tst_EventBroadcaster::flushTimesOutOnAWriteThatHangs()
{
    FakeClock clock;
    EventBroadcaster caster(optionsFor(&clock));
    HungWrite hung; // destroyed first: the write returns before the broadcaster joins
    caster.startRecordingToSink(hung.sink);
    hung.start(caster);
    QElapsedTimer timer;
    timer.start();
    QVERIFY(!caster.flush(std::chrono::milliseconds(100)));
    QVERIFY(timer.elapsed() >= 90);
    QVERIFY(timer.elapsed() < 5000);
    hung.release();
    QVERIFY(caster.flush(std::chrono::seconds(30)));
}

// shutdown(timeout) does not wait longer than its timeout for a write that does not return:
// the consumer's thread is left to finish it, holding its sink, and then ends on its own.
void tst_EventBroadcaster::shutdownWithTimeoutLeavesAHungWrite()
{
    FakeClock clock;
    HungWrite hung;
    std::future<void> writeFinished = hung.state->finished.get_future();
    std::weak_ptr<FakeSink> sinkAlive = hung.sink;
    {
        EventBroadcaster caster(optionsFor(&clock));
        caster.startRecordingToSink(std::move(hung.sink));
        hung.start(caster);
        QElapsedTimer timer;
        timer.start();
        QVERIFY(!caster.shutdown(std::chrono::milliseconds(100)));
        QVERIFY(timer.elapsed() < 5000);
        QVERIFY(sinkAlive.lock()); // the thread still has it
    } // the destructor's shutdown() has nothing left to wait for
    hung.release();
    QCOMPARE(writeFinished.wait_for(std::chrono::seconds(30)), std::future_status::ready);
    QTRY_VERIFY(!sinkAlive.lock()); // released once the thread ended

    // A broadcaster whose consumers are idle shuts down within the timeout.
    EventBroadcaster idle(optionsFor(&clock));
    idle.startRecordingToSink(std::make_shared<FakeSink>());
    QVERIFY(idle.shutdown(std::chrono::seconds(5)));
}

QTEST_GUILESS_MAIN(tst_EventBroadcaster)
#include "tst_eventbroadcaster.moc"
