// SPDX-License-Identifier: Apache-2.0
// Reflector: client-go's reflector_test.go behaviours, against a fake ListerWatcher and a
// FakeClock. The reflector runs on its own thread; QTRY waits for it to reach each step.
#include <qcm/cache/deltafifo.h>
#include <qcm/cache/indexer.h>
#include <qcm/cache/reflector.h>
#include <qcm/fakeclock.h>

#include "fakelisterwatcher.h"
#include "fifotestsupport.h"

#include <QtTest/QtTest>

#include <condition_variable>
#include <deque>
#include <thread>

using namespace qcm::cache;
using namespace qcm::client;
using namespace std::chrono_literals;
using namespace qcm::cache::testing;

namespace {

Status status(int code, const char *reason)
{
    Status s;
    s.code = code;
    s.reason = QString::fromLatin1(reason);
    s.message = QStringLiteral("test");
    return s;
}

// Runs a reflector on its own thread for the length of a test.
struct Running
{
    Running(Reflector &r) : reflector(r), thread([&r] { r.run(); }) { }
    ~Running()
    {
        reflector.stop();
        thread.join();
    }
    Reflector &reflector;
    std::thread thread;
};

Reflector::Options reflectorOptions(qcm::Clock *clock, quint32 seed = 1, qcm::Duration resync = {},
    std::function<void(const Status &)> onError = {})
{
    Reflector::Options o;
    o.clock = clock;
    o.seed = seed;
    o.resyncPeriod = resync;
    o.watchErrorHandler = std::move(onError);
    return o;
}

QString keys(const DeltaFifo &fifo)
{
    return fifo.listKeys().join(QLatin1Char(' '));
}

} // namespace

class tst_Reflector : public QObject
{
    Q_OBJECT

private slots:
    void listAndWatch();
    void eventWithoutVersionKeepsTheLast();
    void listsInPages();
    void fullListIfContinueExpires();
    void relistFromLatestAfterExpiredList();
    void watchExpiredRelistsFromLastVersion();
    void relistPageSize_data();
    void relistPageSize();
    void noRelistOnTooManyRequests();
    void watchListStreamsThenWatches();
    void watchListFallsBackToList_data();
    void watchListFallsBackToList();
    void watchListRestartsIfCutShort();
    void watchListUnsupportedListerWatcherLists();
    void veryShortWatchIsAnError();
    void backoffDoublesAndCaps();
    void resync();
    void stopEndsAWatch();
};

void tst_Reflector::listAndWatch()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.lists.push_back(listOf({cm(QStringLiteral("a"), QStringLiteral("5")),
                                  cm(QStringLiteral("b"), QStringLiteral("6"))},
        QStringLiteral("10")));
    auto w = lw.scriptWatch();
    DeltaFifo fifo;
    Reflector reflector(&lw, &fifo, reflectorOptions(&clock));
    Running running(reflector);

    QTRY_COMPARE(lw.watchCalls().size(), 1);
    QCOMPARE(lw.listCalls().first().resourceVersion, QStringLiteral("0")); // the apiserver's cache
    QCOMPARE(lw.listCalls().first().limit, 500);
    const ListOptions watch = lw.watchCalls().first();
    QCOMPARE(watch.resourceVersion, QStringLiteral("10"));
    QVERIFY(watch.allowWatchBookmarks);
    QVERIFY(*watch.timeoutSeconds >= 300 && *watch.timeoutSeconds < 600);
    QCOMPARE(keys(fifo), QStringLiteral("ns/a ns/b"));

    w->push(watchEvent(WatchEvent::Type::Added, cm(QStringLiteral("c"), QStringLiteral("11"))));
    w->push(watchEvent(WatchEvent::Type::Modified, cm(QStringLiteral("a"), QStringLiteral("12"))));
    w->push(watchEvent(WatchEvent::Type::Deleted, cm(QStringLiteral("b"), QStringLiteral("13"))));
    w->push(watchEvent(WatchEvent::Type::Bookmark, cm(QString(), QStringLiteral("14"))));
    w->close(); // the server's timeout: watch again from the bookmark
    QTRY_COMPARE(lw.watchCalls().size(), 2);
    QCOMPARE(lw.watchCalls()[1].resourceVersion, QStringLiteral("14"));
    QCOMPARE(lw.listCalls().size(), 1); // no relist
    QCOMPARE(reflector.lastSyncResourceVersion(), QStringLiteral("14"));
    QCOMPARE(keys(fifo), QStringLiteral("ns/a ns/b ns/c"));
    QCOMPARE(fifo.getByKey(QStringLiteral("ns/a"))->size(), 2); // Sync, Updated
    QCOMPARE(fifo.getByKey(QStringLiteral("ns/b"))->last().type, DeltaType::Deleted);
}

// The reflector records the newest event's resourceVersion (it reads it when asked, from the
// event's bytes); an event without one, decoded or built, leaves the last one.
void tst_Reflector::eventWithoutVersionKeepsTheLast()
{
    const auto decoded = [](const char *name, const char *version) {
        QByteArray json = QByteArray(R"({"metadata":{"namespace":"ns","name":")") + name + '"';
        if (version)
            json += QByteArray(R"(,"resourceVersion":)") + version;
        return *Codec::defaultCodec()->decodeObject(json + "}}");
    };
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.lists.push_back(
        listOf({cm(QStringLiteral("a"), QStringLiteral("5"))}, QStringLiteral("10")));
    auto w = lw.scriptWatch();
    lw.scriptWatch();
    DeltaFifo fifo;
    Reflector reflector(&lw, &fifo, reflectorOptions(&clock));
    Running running(reflector);
    QTRY_COMPARE(lw.watchCalls().size(), 1);
    QCOMPARE(reflector.lastSyncResourceVersion(), QStringLiteral("10"));

    w->push(watchEvent(WatchEvent::Type::Added, decoded("b", R"("12")")));
    QTRY_COMPARE(reflector.lastSyncResourceVersion(), QStringLiteral("12"));
    w->push(watchEvent(WatchEvent::Type::Added, decoded("c", nullptr)));
    w->push(watchEvent(WatchEvent::Type::Added, decoded("d", R"("")")));
    w->push(watchEvent(WatchEvent::Type::Added, cm(QStringLiteral("e"), QString())));
    QTRY_COMPARE(keys(fifo), QStringLiteral("ns/a ns/b ns/c ns/d ns/e"));
    QCOMPARE(reflector.lastSyncResourceVersion(), QStringLiteral("12"));
    // A version the bytes spell with an escape is read as a string.
    w->push(watchEvent(WatchEvent::Type::Modified, decoded("b", R"("13")")));
    w->push(watchEvent(WatchEvent::Type::Added, decoded("f", nullptr)));
    QTRY_COMPARE(keys(fifo), QStringLiteral("ns/a ns/b ns/c ns/d ns/e ns/f"));
    QCOMPARE(reflector.lastSyncResourceVersion(), QStringLiteral("13"));
    w->close(); // the next watch starts from it
    QTRY_COMPARE(lw.watchCalls().size(), 2);
    QCOMPARE(lw.watchCalls()[1].resourceVersion, QStringLiteral("13"));
}

void tst_Reflector::listsInPages()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.lists.push_back(listOf(
        {cm(QStringLiteral("a"), QStringLiteral("1"))}, QStringLiteral("9"), QStringLiteral("c1")));
    lw.lists.push_back(listOf({cm(QStringLiteral("b"), QStringLiteral("2"))}, QStringLiteral("9")));
    DeltaFifo fifo;
    Reflector reflector(&lw, &fifo, reflectorOptions(&clock));
    Running running(reflector);
    QTRY_COMPARE(lw.watchCalls().size(), 1);
    QCOMPARE(lw.listCalls().size(), 2);
    QCOMPARE(lw.listCalls()[1].continueToken, QStringLiteral("c1"));
    QCOMPARE(lw.listCalls()[1].limit, 500);
    QCOMPARE(keys(fifo), QStringLiteral("ns/a ns/b"));
}

void tst_Reflector::fullListIfContinueExpires()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.lists.push_back(listOf(
        {cm(QStringLiteral("a"), QStringLiteral("1"))}, QStringLiteral("9"), QStringLiteral("c1")));
    lw.lists.push_back(status(410, "Expired"));
    lw.lists.push_back(listOf({cm(QStringLiteral("x"), QStringLiteral("3")),
                                  cm(QStringLiteral("y"), QStringLiteral("4"))},
        QStringLiteral("20")));
    DeltaFifo fifo;
    Reflector reflector(&lw, &fifo, reflectorOptions(&clock));
    Running running(reflector);
    QTRY_COMPARE(lw.watchCalls().size(), 1);
    const ListOptions full = lw.listCalls()[2];
    QCOMPARE(full.limit, 0);
    QVERIFY(full.continueToken.isEmpty());
    QCOMPARE(keys(fifo), QStringLiteral("ns/x ns/y")); // only the full list's items
    QCOMPARE(lw.watchCalls().first().resourceVersion, QStringLiteral("20"));
}

void tst_Reflector::relistFromLatestAfterExpiredList()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.lists.push_back(status(410, "Expired"));
    lw.lists.push_back(listOf({}, QStringLiteral("30")));
    DeltaFifo fifo;
    Reflector reflector(&lw, &fifo, reflectorOptions(&clock));
    Running running(reflector);
    QTRY_COMPARE(lw.watchCalls().size(), 1);
    QCOMPARE(lw.listCalls().size(), 2); // at once, without a backoff
    QCOMPARE(lw.listCalls()[0].resourceVersion, QStringLiteral("0"));
    QCOMPARE(lw.listCalls()[1].resourceVersion, QString()); // a quorum read
}

void tst_Reflector::watchExpiredRelistsFromLastVersion()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.lists.push_back(
        listOf({cm(QStringLiteral("a"), QStringLiteral("5"))}, QStringLiteral("10")));
    auto w = lw.scriptWatch();
    QList<Status> errors;
    std::mutex errorsMutex;
    DeltaFifo fifo;
    Reflector reflector(&lw, &fifo, reflectorOptions(&clock, 1, {}, [&](const Status &s) {
        std::lock_guard lock(errorsMutex);
        errors << s;
    }));
    Running running(reflector);
    QTRY_COMPARE(lw.watchCalls().size(), 1);
    w->push(watchEvent(WatchEvent::Type::Added, cm(QStringLiteral("b"), QStringLiteral("11"))));
    WatchEvent gone;
    gone.status = status(410, "Expired");
    w->push(gone);
    QTRY_VERIFY(clock.hasWaiters()); // backing off
    {
        std::lock_guard lock(errorsMutex);
        QCOMPARE(errors.size(), 1);
        QVERIFY(errors.first().isResourceExpired());
    }
    clock.step(2s); // past any first backoff (800 ms to 1.6 s)
    QTRY_COMPARE(lw.listCalls().size(), 2);
    QCOMPARE(lw.listCalls()[1].resourceVersion, QStringLiteral("11")); // the last synced version
}

void tst_Reflector::relistPageSize_data()
{
    QTest::addColumn<bool>("firstListPaginated");
    QTest::addColumn<int>("configured");
    QTest::addColumn<int>("relistLimit");
    // No watch cache would page "0": the watch cache answers a list at a version only without
    // a limit, so client-go drops paging for it.
    QTest::newRow("unpaginated first list: no paging") << false << 0 << 0;
    QTest::newRow("paginated first list: keep paging") << true << 0 << 500;
    QTest::newRow("configured page size wins") << false << 7 << 7;
}

// client-go's page-size choice for relists (reflector.go's list(): WatchListPageSize,
// paginatedResult, and no paging for ResourceVersion != "" and != "0").
void tst_Reflector::relistPageSize()
{
    QFETCH(bool, firstListPaginated);
    QFETCH(int, configured);
    QFETCH(int, relistLimit);
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    if (firstListPaginated)
        lw.lists.push_back(listOf({cm(QStringLiteral("a"), QStringLiteral("5"))},
            QStringLiteral("10"), QStringLiteral("c1")));
    lw.lists.push_back(
        listOf({cm(QStringLiteral("b"), QStringLiteral("6"))}, QStringLiteral("10")));
    auto w = lw.scriptWatch();
    DeltaFifo fifo;
    auto options = reflectorOptions(&clock);
    options.pageSize = configured;
    Reflector reflector(&lw, &fifo, options);
    Running running(reflector);
    QTRY_COMPARE(lw.watchCalls().size(), 1);
    QCOMPARE(lw.listCalls().first().limit, configured ? configured : 500);
    WatchEvent gone;
    gone.status = status(410, "Expired");
    w->push(gone);
    QTRY_VERIFY(clock.hasWaiters()); // backing off
    clock.step(2s);
    const int first = firstListPaginated ? 2 : 1;
    QTRY_COMPARE(lw.listCalls().size(), first + 1);
    QCOMPARE(lw.listCalls()[first].resourceVersion, QStringLiteral("10"));
    QCOMPARE(lw.listCalls()[first].limit, relistLimit);
}

namespace {

WatchEvent initialEventsEnd(const QString &rv)
{
    Object bookmark = cm(QString(), rv);
    bookmark.setAnnotations(
        {{QStringLiteral("k8s.io/initial-events-end"), QStringLiteral("true")}});
    return watchEvent(WatchEvent::Type::Bookmark, bookmark);
}

Reflector::Options watchListOptions(qcm::Clock *clock)
{
    auto options = reflectorOptions(clock);
    options.useWatchList = true;
    return options;
}

} // namespace

// client-go's watchList(): one watch streams the objects up to the initial-events-end
// bookmark, the store gets them in one replace, and the same watch goes on.
void tst_Reflector::watchListStreamsThenWatches()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.watchListSupported = true;
    auto w = lw.scriptWatch();
    const fifotest::Known known;
    DeltaFifo::Options fifoOptions;
    fifoOptions.knownObjects = &known;
    fifoOptions.emitDeltaTypeReplaced = true;
    DeltaFifo fifo(fifoOptions);
    Reflector reflector(&lw, &fifo, watchListOptions(&clock));
    Running running(reflector);
    QTRY_COMPARE(lw.watchCalls().size(), 1);
    const ListOptions asked = lw.watchCalls().first();
    QVERIFY(asked.sendInitialEvents);
    QCOMPARE(asked.resourceVersionMatch, QStringLiteral("NotOlderThan"));
    QVERIFY(asked.resourceVersion.isEmpty());
    QVERIFY(asked.allowWatchBookmarks);
    w->push(watchEvent(WatchEvent::Type::Added, cm(QStringLiteral("a"), QStringLiteral("5"))));
    w->push(watchEvent(WatchEvent::Type::Added, cm(QStringLiteral("b"), QStringLiteral("6"))));
    w->push(watchEvent(WatchEvent::Type::Added, cm(QStringLiteral("c"), QStringLiteral("7"))));
    w->push(watchEvent(WatchEvent::Type::Deleted, cm(QStringLiteral("c"), QStringLiteral("8"))));
    QTest::qWait(20);
    QVERIFY(fifo.listKeys().isEmpty()); // nothing reaches the store before the bookmark
    w->push(initialEventsEnd(QStringLiteral("10")));
    QTRY_COMPARE(keys(fifo), QStringLiteral("ns/a ns/b"));
    QCOMPARE(fifo.getByKey(QStringLiteral("ns/a"))->first().type, DeltaType::Replaced);
    QCOMPARE(reflector.lastSyncResourceVersion(), QStringLiteral("10"));
    w->push(watchEvent(WatchEvent::Type::Modified, cm(QStringLiteral("a"), QStringLiteral("11"))));
    QTRY_COMPARE(reflector.lastSyncResourceVersion(), QStringLiteral("11"));
    QCOMPARE(fifo.getByKey(QStringLiteral("ns/a"))->last().type, DeltaType::Updated);
    QCOMPARE(lw.watchCalls().size(), 1); // the same stream went on
    QVERIFY(lw.listCalls().isEmpty());
}

// A server that refuses the streaming request, or closes it at once with nothing in it
// (client-go's VeryShortWatchError), gets a regular list instead of a loop of streams.
void tst_Reflector::watchListFallsBackToList_data()
{
    QTest::addColumn<bool>("refused");
    QTest::newRow("refused (422)") << true;
    QTest::newRow("very short stream") << false;
}

void tst_Reflector::watchListFallsBackToList()
{
    QFETCH(bool, refused);
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.watchListSupported = true;
    if (refused)
        lw.watches.push_back(status(422, "Invalid"));
    else
        lw.scriptWatch()->close();
    lw.lists.push_back(listOf({cm(QStringLiteral("a"), QStringLiteral("5"))}, QStringLiteral("9")));
    DeltaFifo fifo;
    Reflector reflector(&lw, &fifo, watchListOptions(&clock));
    Running running(reflector);
    QTRY_COMPARE(lw.watchCalls().size(), 2);
    QVERIFY(lw.watchCalls()[0].sendInitialEvents);
    QCOMPARE(lw.listCalls().size(), 1);
    QVERIFY(!lw.watchCalls()[1].sendInitialEvents); // the regular watch after the list
    QCOMPARE(lw.watchCalls()[1].resourceVersion, QStringLiteral("9"));
    QCOMPARE(keys(fifo), QStringLiteral("ns/a"));
}

// A stream that ends before its bookmark is thrown away and asked for again from a clean
// slate; a 410 asks again from the latest version.
void tst_Reflector::watchListRestartsIfCutShort()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.watchListSupported = true;
    auto first = lw.scriptWatch();
    WatchEvent gone;
    gone.status = status(410, "Expired");
    auto second = lw.scriptWatch();
    auto third = lw.scriptWatch();
    DeltaFifo fifo;
    Reflector reflector(&lw, &fifo, watchListOptions(&clock));
    Running running(reflector);
    QTRY_COMPARE(lw.watchCalls().size(), 1);
    first->push(
        watchEvent(WatchEvent::Type::Added, cm(QStringLiteral("stale"), QStringLiteral("5"))));
    first->close();
    QTRY_COMPARE(lw.watchCalls().size(), 2);
    second->push(gone);
    QTRY_COMPARE(lw.watchCalls().size(), 3);
    QVERIFY(lw.watchCalls()[2].sendInitialEvents);
    QVERIFY(lw.watchCalls()[2].resourceVersion.isEmpty());
    third->push(watchEvent(WatchEvent::Type::Added, cm(QStringLiteral("a"), QStringLiteral("6"))));
    third->push(initialEventsEnd(QStringLiteral("12")));
    QTRY_COMPARE(keys(fifo), QStringLiteral("ns/a")); // nothing of the first stream
    QVERIFY(lw.listCalls().isEmpty());
}

// A ListerWatcher that cannot stream (the fake client's) is listed even with WatchList on.
void tst_Reflector::watchListUnsupportedListerWatcherLists()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw; // watchListSupported is false
    lw.lists.push_back(listOf({cm(QStringLiteral("a"), QStringLiteral("5"))}, QStringLiteral("9")));
    Reflector::Options options = watchListOptions(&clock);
    QVERIFY(options.useWatchList);
    DeltaFifo fifo;
    Reflector reflector(&lw, &fifo, options);
    Running running(reflector);
    QTRY_COMPARE(lw.watchCalls().size(), 1);
    QCOMPARE(lw.listCalls().size(), 1);
    QVERIFY(!lw.watchCalls()[0].sendInitialEvents);
    QCOMPARE(keys(fifo), QStringLiteral("ns/a"));
}

void tst_Reflector::noRelistOnTooManyRequests()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.watches.push_back(status(429, "TooManyRequests"));
    DeltaFifo fifo;
    Reflector reflector(&lw, &fifo, reflectorOptions(&clock));
    Running running(reflector);
    QTRY_COMPARE(lw.watchCalls().size(), 1);
    QTRY_VERIFY(clock.hasWaiters());
    clock.step(2s);
    QTRY_COMPARE(lw.watchCalls().size(), 2);
    QCOMPARE(lw.listCalls().size(), 1); // watched again without a relist
}

void tst_Reflector::veryShortWatchIsAnError()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    auto w = lw.scriptWatch();
    QList<QString> reasons;
    std::mutex m;
    DeltaFifo fifo;
    Reflector reflector(&lw, &fifo, reflectorOptions(&clock, 1, {}, [&](const Status &s) {
        std::lock_guard lock(m);
        reasons << s.reason;
    }));
    Running running(reflector);
    QTRY_COMPARE(lw.watchCalls().size(), 1);
    w->close(); // no events, no time passed
    QTRY_VERIFY(clock.hasWaiters());
    {
        std::lock_guard lock(m);
        QCOMPARE(reasons, QList<QString> {QStringLiteral("VeryShortWatch")});
    }
    clock.step(2s);
    QTRY_COMPARE(lw.listCalls().size(), 2); // relisted after the backoff
}

// 800 ms doubling, with jitter 1.0: the n-th wait lies in [800*2^n, 1600*2^n) ms, capped.
void tst_Reflector::backoffDoublesAndCaps()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    for (int i = 0; i < 8; ++i)
        lw.lists.push_back(status(500, "InternalError"));
    DeltaFifo fifo;
    Reflector reflector(&lw, &fifo, reflectorOptions(&clock, 7, {}, [](const Status &) {}));
    Running running(reflector);
    qint64 low = 800;
    for (int attempt = 1; attempt <= 7; ++attempt) {
        QTRY_COMPARE(lw.listCalls().size(), attempt);
        QTRY_VERIFY(clock.hasWaiters());
        const qint64 floor = std::min<qint64>(low, 30000);
        clock.step(std::chrono::milliseconds(floor - 10));
        QTest::qWait(20);
        QCOMPARE(lw.listCalls().size(), attempt); // not before the floor
        clock.step(std::chrono::milliseconds(floor + 20)); // past the ceiling (2 x floor)
        low *= 2;
    }
    QTRY_COMPARE(lw.listCalls().size(), 8);
}

void tst_Reflector::resync()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    lw.lists.push_back(
        listOf({cm(QStringLiteral("a"), QStringLiteral("5"))}, QStringLiteral("10")));
    Indexer store; // the informer's store, which the FIFO resyncs from
    DeltaFifo::Options options;
    options.knownObjects = &store;
    DeltaFifo fifo(options);
    Reflector reflector(&lw, &fifo, reflectorOptions(&clock, 1, 30s));
    Running running(reflector);
    QTRY_COMPARE(lw.watchCalls().size(), 1);
    // What an informer does: pop the list and store it.
    auto deltas = fifo.pop({});
    store.add(deltas->last().lastKnown());
    QVERIFY(fifo.listKeys().isEmpty());
    clock.step(30s);
    QTRY_COMPARE(fifo.listKeys(), QStringList {QStringLiteral("ns/a")});
    QCOMPARE(fifo.getByKey(QStringLiteral("ns/a"))->first().type, DeltaType::Sync);
}

void tst_Reflector::stopEndsAWatch()
{
    qcm::FakeClock clock;
    FakeListerWatcher lw;
    DeltaFifo fifo;
    Reflector reflector(&lw, &fifo, reflectorOptions(&clock));
    std::thread thread([&] { reflector.run(); });
    QTRY_COMPARE(lw.watchCalls().size(), 1); // blocked in the watch
    reflector.stop();
    thread.join(); // returns: the watch was stopped
    QCOMPARE(lw.listCalls().size(), 1);
}

QTEST_GUILESS_MAIN(tst_Reflector)
#include "tst_reflector.moc"
