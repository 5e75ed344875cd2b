// SPDX-License-Identifier: Apache-2.0
// SharedIndexInformer: client-go's shared_informer_test.go behaviours with a fake
// ListerWatcher. Handlers run on this test's thread (or their own QThread) through the
// event loop, which QTRY_* spins.
#include <qcm/cache/sharedindexinformer.h>
#include <qcm/client/codec.h>
#include <qcm/fakeclock.h>

#include <QtCore/QThread>
#include <QtTest/QtTest>

#include "fakelisterwatcher.h"

using namespace qcm::cache;
using namespace qcm::cache::testing;
using namespace std::chrono_literals;

namespace {

// What one handler saw, in order: "add ns/a initial", "update ns/a 5->6", "delete ns/a".
struct Recorder
{
    QStringList seen;
    ResourceEventHandler handler()
    {
        return {[this](const Object &o, bool initial) {
                    seen << QStringLiteral("add %1%2")
                                .arg(o.key(), initial ? QStringLiteral(" initial") : QString());
                },
            [this](const Object &a, const Object &b) {
                seen << QStringLiteral("update %1 %2->%3")
                            .arg(b.key(), a.resourceVersion(), b.resourceVersion());
            },
            [this](const Object &o, bool unknown) {
                seen << QStringLiteral("delete %1%2")
                            .arg(o.key(), unknown ? QStringLiteral(" tombstone") : QString());
            }};
    }
};

SharedIndexInformer::Options informerOptions(qcm::Clock *clock, qcm::Duration resync = {})
{
    SharedIndexInformer::Options o;
    o.clock = clock;
    o.resyncPeriod = resync;
    return o;
}

} // namespace

class tst_SharedIndexInformer : public QObject
{
    Q_OBJECT

private slots:
    void initialListThenEvents();
    void handlerAddedAfterSyncIsReplayed();
    void slowHandlerDoesNotBlockOthers();
    void handlerSpinningTheEventLoop();
    void removeWhileActive();
    void resyncGoesOnlyToDueHandlers();
    void resyncPeriodIsAtLeastOneSecond();
    void unchangedVersionIsASync();
    void transformAndErrorHandlerRefusedAfterStart();
    void waitForCacheSyncWithSignals();
    void relistDeletesWithTombstones();
    void addIndexersAfterStart();
    void throwingHandlerKeepsReceiving();
};

void tst_SharedIndexInformer::initialListThenEvents()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.lists.push_back(listOf({cm(QStringLiteral("a"), QStringLiteral("5")),
                                  cm(QStringLiteral("b"), QStringLiteral("6"))},
        QStringLiteral("10")));
    auto w = lw.scriptWatch();
    SharedIndexInformer informer(&lw, informerOptions(&clock));
    Recorder r;
    auto registration = informer.addEventHandler(this, r.handler());
    QSignalSpy addedSignals(registration.get(), &HandlerRegistration::added);
    informer.start();
    QTRY_VERIFY(registration->hasSynced());
    QCOMPARE(r.seen,
        (QStringList {QStringLiteral("add ns/a initial"), QStringLiteral("add ns/b initial")}));
    QCOMPARE(addedSignals.size(), 2);
    w->push(watchEvent(WatchEvent::Type::Modified, cm(QStringLiteral("a"), QStringLiteral("11"))));
    w->push(watchEvent(WatchEvent::Type::Added, cm(QStringLiteral("c"), QStringLiteral("12"))));
    w->push(watchEvent(WatchEvent::Type::Deleted, cm(QStringLiteral("b"), QStringLiteral("13"))));
    QTRY_COMPARE(r.seen.size(), 5);
    QCOMPARE(r.seen.mid(2),
        (QStringList {QStringLiteral("update ns/a 5->11"), QStringLiteral("add ns/c"),
            QStringLiteral("delete ns/b")}));
    QCOMPARE(informer.indexer().size(), 2);
    QCOMPARE(informer.lister().listByNamespace(QStringLiteral("ns")).size(), 2);
    QTRY_COMPARE(informer.lastSyncResourceVersion(), QStringLiteral("13"));
}

void tst_SharedIndexInformer::handlerAddedAfterSyncIsReplayed()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.lists.push_back(
        listOf({cm(QStringLiteral("a"), QStringLiteral("5"))}, QStringLiteral("10")));
    SharedIndexInformer informer(&lw, informerOptions(&clock));
    informer.start();
    QTRY_VERIFY(informer.hasSynced());
    Recorder late;
    auto registration = informer.addEventHandler(this, late.handler());
    QVERIFY(!registration->hasSynced()); // its initial adds are not delivered yet
    QTRY_COMPARE(late.seen, QStringList {QStringLiteral("add ns/a initial")});
    QVERIFY(registration->hasSynced());
}

// A handler that spins its thread's event loop (a nested QEventLoop, a dialog-like wait) gets
// no nested delivery of its own registration: what arrives meanwhile comes after it returns,
// in order, once each.
void tst_SharedIndexInformer::handlerSpinningTheEventLoop()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    auto w = lw.scriptWatch();
    SharedIndexInformer informer(&lw, informerOptions(&clock));
    QStringList seen;
    bool inHandler = false;
    bool nested = false;
    informer.addEventHandler(this,
        {[&](const Object &o, bool) {
             nested = nested || inHandler;
             inHandler = true;
             seen << o.name();
             if (seen.size() == 1) {
                 // The rest arrive while this handler waits in a nested event loop.
                 for (int i = 1; i < 20; ++i)
                     w->push(watchEvent(WatchEvent::Type::Added,
                         cm(QStringLiteral("o%1").arg(i), QString::number(100 + i))));
                 QTRY_COMPARE(informer.indexer().size(), 20);
                 QTest::qWait(20);
             }
             inHandler = false;
         },
            {}, {}});
    informer.start();
    w->push(watchEvent(WatchEvent::Type::Added, cm(QStringLiteral("o0"), QStringLiteral("100"))));
    QTRY_COMPARE(seen.size(), 20);
    QVERIFY(!nested);
    QStringList expected;
    for (int i = 0; i < 20; ++i)
        expected << QStringLiteral("o%1").arg(i);
    QCOMPARE(seen, expected);
}

// A handler whose thread is stuck does not hold up the informer or the other handlers.
void tst_SharedIndexInformer::slowHandlerDoesNotBlockOthers()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    auto w = lw.scriptWatch();
    SharedIndexInformer informer(&lw, informerOptions(&clock));

    QThread slowThread;
    QObject slowReceiver;
    slowReceiver.moveToThread(&slowThread);
    slowThread.start();
    std::mutex gate;
    gate.lock(); // the slow handler blocks on this
    std::atomic<int> slowSeen {0};
    informer.addEventHandler(&slowReceiver,
        {[&](const Object &, bool) {
             std::lock_guard hold(gate);
             ++slowSeen;
         },
            {}, {}});
    Recorder fast;
    informer.addEventHandler(this, fast.handler());
    informer.start();
    for (int i = 0; i < 50; ++i)
        w->push(watchEvent(
            WatchEvent::Type::Added, cm(QStringLiteral("o%1").arg(i), QString::number(100 + i))));
    QTRY_COMPARE(fast.seen.size(), 50);
    QCOMPARE(informer.indexer().size(), 50);
    QCOMPARE(slowSeen.load(), 0); // still stuck on the first
    gate.unlock();
    QTRY_COMPARE(slowSeen.load(), 50); // and nothing was lost meanwhile
    informer.stop();
    slowThread.quit();
    slowThread.wait();
}

void tst_SharedIndexInformer::removeWhileActive()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    auto w = lw.scriptWatch();
    SharedIndexInformer informer(&lw, informerOptions(&clock));
    Recorder kept;
    Recorder removed;
    informer.addEventHandler(this, kept.handler());
    auto registration = informer.addEventHandler(this, removed.handler());
    informer.start();
    w->push(watchEvent(WatchEvent::Type::Added, cm(QStringLiteral("a"), QStringLiteral("1"))));
    QTRY_COMPARE(removed.seen.size(), 1);
    informer.removeEventHandler(registration);
    informer.removeEventHandler(registration); // idempotent
    QVERIFY(registration->isRemoved());
    w->push(watchEvent(WatchEvent::Type::Added, cm(QStringLiteral("b"), QStringLiteral("2"))));
    QTRY_COMPARE(kept.seen.size(), 2);
    QCOMPARE(removed.seen.size(), 1);
}

// TestListenerResyncPeriods: resyncs go only to the handlers that are due.
void tst_SharedIndexInformer::resyncGoesOnlyToDueHandlers()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.lists.push_back(
        listOf({cm(QStringLiteral("a"), QStringLiteral("5"))}, QStringLiteral("10")));
    SharedIndexInformer informer(&lw, informerOptions(&clock, 1s));
    Recorder every1s;
    Recorder every2s;
    Recorder never;
    informer.addEventHandler(this, every1s.handler(), 1s);
    informer.addEventHandler(this, every2s.handler(), 2s);
    informer.addEventHandler(this, never.handler(), qcm::Duration::zero());
    informer.start();
    QTRY_COMPARE(never.seen.size(), 1); // the initial add
    const QString resync = QStringLiteral("update ns/a 5->5");
    clock.step(1s);
    QTRY_COMPARE(every1s.seen.size(), 2);
    QCOMPARE(every1s.seen.last(), resync);
    clock.step(1s);
    QTRY_COMPARE(every1s.seen.size(), 3);
    QTRY_COMPARE(every2s.seen.size(), 2);
    QCOMPARE(every2s.seen.last(), resync);
    QCOMPARE(never.seen.size(), 1);
}

// client-go's OnUpdate: an update whose resourceVersion equals the stored one's is a resync,
// for the handlers due one only. Decoded objects are told apart by their bytes where both
// versions are plain ASCII, and as strings otherwise (an escape, a number, U+FEFF).
void tst_SharedIndexInformer::unchangedVersionIsASync()
{
    const auto decoded = [](const char *version) {
        return *qcm::client::Codec::defaultCodec()->decodeObject(
            QByteArray(R"({"metadata":{"name":"a","namespace":"ns","resourceVersion":)") + version
            + "}}");
    };
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.lists.push_back(listOf({decoded(R"("5")")}, QStringLiteral("10")));
    auto w = lw.scriptWatch();
    SharedIndexInformer informer(&lw, informerOptions(&clock));
    Recorder r;
    informer.addEventHandler(this, r.handler());
    informer.start();
    QTRY_COMPARE(r.seen.size(), 1);
    const char *versions[] = {
        R"("5")", // unchanged: a sync
        R"("55")", // the old one its prefix
        R"("\u0035\u0035")", // escaped, the same string: a sync
        R"("\u0036")", // escaped, another
        R"("6")", // plain, the same string as the escaped one before: a sync
        "6", // a number reads as "": another
        R"("")", // "" again: a sync
        "\"\xef\xbb\xbf"
        "7\"", // U+FEFF then 7
        R"("7")", // the string that decodes to (U+FEFF dropped): a sync
    };
    for (const char *version : versions)
        w->push(watchEvent(WatchEvent::Type::Modified, decoded(version)));
    w->push(watchEvent(WatchEvent::Type::Modified, decoded(R"("8")")));
    QTRY_COMPARE(r.seen.last(), QStringLiteral("update ns/a 7->8"));
    QCOMPARE(r.seen.mid(1),
        (QStringList {QStringLiteral("update ns/a 5->55"), QStringLiteral("update ns/a 55->6"),
            QStringLiteral("update ns/a 6->"), QStringLiteral("update ns/a ->7"),
            QStringLiteral("update ns/a 7->8")}));
}

// client-go's minimumResyncPeriod: a handler asking for 100 ms is resynced every second.
void tst_SharedIndexInformer::resyncPeriodIsAtLeastOneSecond()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.lists.push_back(
        listOf({cm(QStringLiteral("a"), QStringLiteral("5"))}, QStringLiteral("10")));
    SharedIndexInformer informer(&lw, informerOptions(&clock));
    Recorder fast;
    informer.addEventHandler(this, fast.handler(), 100ms);
    informer.start();
    QTRY_COMPARE(fast.seen.size(), 1); // the initial add
    QTRY_COMPARE(lw.watchCalls().size(), 1); // the resync timer runs from here
    for (int i = 0; i < 9; ++i)
        clock.step(100ms);
    QTest::qWait(50);
    QCOMPARE(fast.seen.size(), 1); // no resync before a second
    clock.step(100ms);
    QTRY_COMPARE(fast.seen.size(), 2);
    QCOMPARE(fast.seen.last(), QStringLiteral("update ns/a 5->5"));
}

void tst_SharedIndexInformer::transformAndErrorHandlerRefusedAfterStart()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    SharedIndexInformer informer(&lw, informerOptions(&clock));
    QVERIFY(!informer.setTransform([](Object o) -> qcm::Result<Object> { return o; }).has_value());
    informer.start();
    auto refused = informer.setTransform([](Object o) -> qcm::Result<Object> { return o; });
    QVERIFY(refused.has_value());
    QCOMPARE(refused->reason, QStringLiteral("informer has already started"));
    QVERIFY(informer.setWatchErrorHandler([](const Status &) {}).has_value());
}

void tst_SharedIndexInformer::waitForCacheSyncWithSignals()
{
    qcm::FakeClock clock;
    FakeListerWatcher slowList;
    FakeListerWatcher quickList;
    SharedIndexInformer a(&slowList, informerOptions(&clock));
    SharedIndexInformer b(&quickList, informerOptions(&clock));
    QVERIFY(!waitForCacheSync({&a, &b}, 50ms)); // not started: times out
    a.start();
    b.start();
    QVERIFY(waitForCacheSync({&a, &b}, 10s));
    QVERIFY(a.hasSynced() && b.hasSynced());
}

// After a relist, objects that vanished meanwhile arrive as tombstone deletes.
void tst_SharedIndexInformer::relistDeletesWithTombstones()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.lists.push_back(listOf({cm(QStringLiteral("a"), QStringLiteral("5")),
                                  cm(QStringLiteral("b"), QStringLiteral("6"))},
        QStringLiteral("10")));
    lw.lists.push_back(
        listOf({cm(QStringLiteral("a"), QStringLiteral("5"))}, QStringLiteral("20")));
    auto w = lw.scriptWatch();
    SharedIndexInformer informer(&lw, informerOptions(&clock));
    Recorder r;
    informer.addEventHandler(this, r.handler());
    informer.start();
    QTRY_COMPARE(r.seen.size(), 2);
    WatchEvent gone;
    gone.status.code = 410;
    gone.status.reason = QStringLiteral("Expired");
    w->push(gone); // relist after a backoff
    QTRY_VERIFY(clock.hasWaiters());
    clock.step(2s);
    QTRY_COMPARE(r.seen.size(), 3);
    QCOMPARE(r.seen.last(), QStringLiteral("delete ns/b tombstone"));
    QVERIFY(!informer.indexer().getByKey(QStringLiteral("ns/b")).has_value());
}

// client-go's AddIndexers: an index added after sync covers what the cache holds and what
// comes later; a name already in use is an error.
void tst_SharedIndexInformer::addIndexersAfterStart()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.lists.push_back(
        listOf({cm(QStringLiteral("a"), QStringLiteral("5"))}, QStringLiteral("10")));
    auto w = lw.scriptWatch();
    SharedIndexInformer informer(&lw, informerOptions(&clock));
    informer.start();
    QVERIFY(waitForCacheSync({&informer}, std::chrono::seconds(10)));
    const auto byFirstLetter = [](const Object &o) { return QStringList {o.name().left(1)}; };
    QVERIFY(!informer.addIndexers({{QStringLiteral("letter"), byFirstLetter}}));
    QVERIFY(informer.addIndexers({{QStringLiteral("letter"), byFirstLetter}}).has_value());
    QCOMPARE(
        informer.indexer().indexKeys(QStringLiteral("letter"), QStringLiteral("a"))->size(), 1);
    w->push(watchEvent(WatchEvent::Type::Added, cm(QStringLiteral("ab"), QStringLiteral("11"))));
    QTRY_COMPARE(
        informer.indexer().indexKeys(QStringLiteral("letter"), QStringLiteral("a"))->size(), 2);
    informer.stop();
}

// Notifications are delivered in batches; a handler that throws loses only the notification
// it threw on, and keeps receiving the rest of the batch and later ones.
void tst_SharedIndexInformer::throwingHandlerKeepsReceiving()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.lists.push_back(listOf(
        {cm(QStringLiteral("a"), QStringLiteral("5")), cm(QStringLiteral("b"), QStringLiteral("6")),
            cm(QStringLiteral("c"), QStringLiteral("7"))},
        QStringLiteral("10")));
    auto w = lw.scriptWatch();
    SharedIndexInformer informer(&lw, informerOptions(&clock));
    QStringList seen;
    ResourceEventHandler handler;
    handler.onAdd = [&](const Object &o, bool) {
        seen << o.key();
        if (o.name() == QLatin1String("a"))
            throw std::runtime_error("handler bug");
    };
    auto registration = informer.addEventHandler(this, handler);
    QTest::ignoreMessage(QtWarningMsg, "an event handler threw: handler bug");
    informer.start();
    QTRY_COMPARE(seen,
        (QStringList {QStringLiteral("ns/a"), QStringLiteral("ns/b"), QStringLiteral("ns/c")}));
    w->push(watchEvent(WatchEvent::Type::Added, cm(QStringLiteral("d"), QStringLiteral("12"))));
    QTRY_COMPARE(seen.size(), 4);
    QCOMPARE(seen.last(), QStringLiteral("ns/d"));
    informer.stop();
}

QTEST_GUILESS_MAIN(tst_SharedIndexInformer)
#include "tst_sharedindexinformer.moc"
