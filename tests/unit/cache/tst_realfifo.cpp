// SPDX-License-Identifier: Apache-2.0
// RealFifo: client-go's tools/cache/the_real_fifo_test.go (the non-atomic cases), with objects
// named by metadata.name and carrying a "val" (testFifoObject there).
#include <qcm/cache/realfifo.h>

#include "fifotestsupport.h"

#include <QtTest/QtTest>

#include <atomic>
#include <thread>

using namespace qcm::cache;

namespace {

using namespace fifotest;

const QString foo = QStringLiteral("foo");
const QString bar = QStringLiteral("bar");
const QString baz = QStringLiteral("baz");

RealFifo::Options options(const KeyListerGetter *known)
{
    RealFifo::Options o;
    o.keyFunction = nameKey;
    o.knownObjects = known;
    return o;
}

Deltas pop(RealFifo &f, bool *isInInitialList = nullptr)
{
    auto deltas = f.pop([&](const Deltas &, bool initial) {
        if (isInInitialList)
            *isInInitialList = initial;
        return std::optional<qcm::Error>();
    });
    if (!deltas)
        qFatal("pop: %s", qPrintable(deltas.error().toString()));
    if (deltas->size() != 1)
        qFatal("pop: a RealFifo hands out one delta at a time, got %d", int(deltas->size()));
    return *deltas;
}

// Pops every queued delta, as one line.
QString popAll(RealFifo &f)
{
    Deltas all;
    for (qsizetype n = f.items().size(); n > 0; --n)
        all << pop(f);
    return text(all);
}

} // namespace

class tst_RealFifo : public QObject
{
    Q_OBJECT

private slots:
    void basic();
    void concurrentPopsMissNoWakeUp_data();
    void concurrentPopsMissNoWakeUp();
    void replaceWithDeleteDeltaIn();
    void replaceMakesDeletionsForObjectsOnlyInQueue_data();
    void replaceMakesDeletionsForObjectsOnlyInQueue();
    void addUpdate();
    void transformer();
    void enqueueingNoLister();
    void enqueueingWithLister();
    void addReplace();
    void resyncNonExisting();
    void resync();
    void deleteExistingNonPropagated();
    void replaceMakesDeletions();
    void replaceMakesDeletionsReplaced();
    void updateResyncRace();
    void hasSyncedCorrectOnDeletion();
    void detectLineJumpers();
    void hasSynced_data();
    void hasSynced();
    void hasSyncedOnlyAfterProcessing();
    void processNextReusesItsList();
    void popShouldUnblockWhenClosed();
    void metrics();
};

// TestRealFIFO_basic: two producers; each one's items come out in its order.
void tst_RealFifo::basic()
{
    const Known known;
    RealFifo f(options(&known));
    constexpr int amount = 500;
    std::thread a([&] {
        for (int i = 0; i < amount; ++i)
            f.add(obj(QStringLiteral("a%1").arg(i), i + 1));
    });
    std::thread b([&] {
        for (int i = 0; i < amount; ++i)
            f.add(obj(QStringLiteral("b%1").arg(i), i + 1));
    });
    int lastA = 0, lastB = 0;
    for (int i = 0; i < amount * 2; ++i) {
        const Object o = pop(f).first().lastKnown();
        int &last = o.name().startsWith(QLatin1Char('a')) ? lastA : lastB;
        QVERIFY2(val(o) > last, qPrintable(QStringLiteral("%1 out of order").arg(o.name())));
        last = val(o);
    }
    a.join();
    b.join();
    QCOMPARE(lastA, amount);
    QCOMPARE(lastB, amount);
}

// Not from client-go: producers and consumers on every side of the empty queue. pop() waits
// only while the queue is empty and a push notifies only when it ends an empty spell, so a
// lost wake-up would strand deltas with every consumer asleep.
void tst_RealFifo::concurrentPopsMissNoWakeUp_data()
{
    QTest::addColumn<int>("producers");
    QTest::addColumn<int>("consumers");
    QTest::newRow("1x1") << 1 << 1;
    QTest::newRow("2x2") << 2 << 2;
    QTest::newRow("1x3") << 1 << 3;
}

void tst_RealFifo::concurrentPopsMissNoWakeUp()
{
    QFETCH(int, producers);
    QFETCH(int, consumers);
    const auto make = [] { return std::make_unique<RealFifo>(options(nullptr)); };
    QCOMPARE(deltasStrandedUnderConcurrentPops(
                 make, producers, consumers, 200, std::chrono::milliseconds(700)),
        0);
}

// TestRealFIFO_replaceWithDeleteDeltaIn (kubernetes#83810): a queued Delete of a key does not
// stop replace() from queueing the listed object.
void tst_RealFifo::replaceWithDeleteDeltaIn()
{
    const Known known({obj(foo, 1)});
    RealFifo f(options(&known));
    f.remove(obj(foo, 1));
    f.replace({obj(foo, 2)}, {});
    QCOMPARE(text(f.items()), QStringLiteral("Deleted foo=1, Replaced foo=2"));
}

void tst_RealFifo::replaceMakesDeletionsForObjectsOnlyInQueue_data()
{
    QTest::addColumn<QString>("ops");
    QTest::addColumn<QString>("expected");
    QTest::newRow("added, then replaced away")
        << QStringLiteral("add2 replace") << QStringLiteral("Added foo=2, Deleted DFSU(foo) foo=2");
    QTest::newRow("deleted object: one delete")
        << QStringLiteral("add2 delete2 replace") << QStringLiteral("Added foo=2, Deleted foo=2");
    QTest::newRow("synced object: one delete")
        << QStringLiteral("add2 replace2 replace2 replace")
        << QStringLiteral("Added foo=2, Replaced foo=2, Replaced foo=2, Deleted DFSU(foo) foo=2");
    QTest::newRow("one delete over several replaces") << QStringLiteral(
        "add2 replace replace") << QStringLiteral("Added foo=2, Deleted DFSU(foo) foo=2");
    QTest::newRow("added, deleted, added again")
        << QStringLiteral("add2 delete2 add3 replace")
        << QStringLiteral("Added foo=2, Deleted foo=2, Added foo=3, Deleted DFSU(foo) foo=3");
}

// TestRealFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue.
void tst_RealFifo::replaceMakesDeletionsForObjectsOnlyInQueue()
{
    QFETCH(QString, ops);
    QFETCH(QString, expected);
    const Known empty;
    RealFifo f(options(&empty));
    for (const QString &step : ops.split(QLatin1Char(' '))) {
        if (step.startsWith(QLatin1String("add")))
            f.add(obj(foo, step.mid(3).toInt()));
        else if (step.startsWith(QLatin1String("delete")))
            f.remove(obj(foo, step.mid(6).toInt()));
        else if (step == QLatin1String("replace"))
            f.replace({}, QStringLiteral("0"));
        else
            f.replace({obj(foo, step.mid(7).toInt())}, QStringLiteral("0"));
    }
    QCOMPARE(popAll(f), expected);
    QVERIFY(f.items().isEmpty()); // no extra deltas
}

// TestRealFIFO_addUpdate: every notification is kept, in order.
void tst_RealFifo::addUpdate()
{
    const Known known;
    RealFifo f(options(&known));
    f.add(obj(foo, 10));
    f.update(obj(foo, 12));
    f.remove(obj(foo, 15));
    QCOMPARE(text(f.items()), QStringLiteral("Added foo=10, Updated foo=12, Deleted foo=15"));
    QCOMPARE(text(pop(f)), QStringLiteral("Added foo=10"));
    QCOMPARE(text(pop(f)), QStringLiteral("Updated foo=12"));
    QCOMPARE(text(pop(f)), QStringLiteral("Deleted foo=15"));
    QVERIFY(f.items().isEmpty());
}

// TestRealFIFO_transformer: every enqueue is transformed once; tombstones carry the
// transformed object and are not transformed again.
void tst_RealFifo::transformer()
{
    const Known known;
    auto opts = options(&known);
    opts.transformer = [](Object o) -> qcm::Result<Object> {
        o.json().insert(QStringLiteral("xfrm"), o.json().value(QStringLiteral("xfrm")).toInt() + 1);
        return o;
    };
    RealFifo f(opts);
    f.add(obj(foo, 10));
    f.add(obj(bar, 11));
    f.update(obj(foo, 12));
    f.remove(obj(foo, 15));
    f.replace({}, {});
    f.add(obj(bar, 16));
    f.replace({}, {});
    const Deltas items = f.items();
    QCOMPARE(text(items),
        QStringLiteral("Added foo=10, Added bar=11, Updated foo=12, Deleted foo=15, Deleted "
                       "DFSU(bar) bar=11, Added bar=16, Deleted DFSU(bar) bar=16"));
    for (const Delta &d : items)
        QCOMPARE(d.lastKnown().json().value(QStringLiteral("xfrm")).toInt(), 1);
}

// TestRealFIFO_enqueueingNoLister: without known objects every delete is queued too.
void tst_RealFifo::enqueueingNoLister()
{
    const Known known;
    RealFifo f(options(&known));
    f.add(obj(foo, 10));
    f.update(obj(bar, 15));
    f.add(obj(QStringLiteral("qux"), 17));
    f.remove(obj(QStringLiteral("qux"), 18));
    f.remove(obj(baz, 20));
    QCOMPARE(popAll(f),
        QStringLiteral(
            "Added foo=10, Updated bar=15, Added qux=17, Deleted qux=18, Deleted baz=20"));
}

// TestRealFIFO_enqueueingWithLister
void tst_RealFifo::enqueueingWithLister()
{
    const Known known({obj(foo, 5), obj(bar, 6), obj(baz, 7)});
    RealFifo f(options(&known));
    f.add(obj(foo, 10));
    f.update(obj(bar, 15));
    f.remove(obj(baz, 20));
    QCOMPARE(popAll(f), QStringLiteral("Added foo=10, Updated bar=15, Deleted baz=20"));
}

// TestRealFIFO_addReplace: both the add and the replacement come out.
void tst_RealFifo::addReplace()
{
    const Known known;
    RealFifo f(options(&known));
    f.add(obj(foo, 10));
    f.replace({obj(foo, 15)}, QStringLiteral("0"));
    QCOMPARE(popAll(f), QStringLiteral("Added foo=10, Replaced foo=15"));
}

// TestRealFIFO_ResyncNonExisting: a key with a queued delta gets no Sync.
void tst_RealFifo::resyncNonExisting()
{
    const Known known({obj(foo, 5)});
    RealFifo f(options(&known));
    f.remove(obj(foo, 10));
    f.resync();
    QCOMPARE(text(f.items()), QStringLiteral("Deleted foo=10"));
}

// TestRealFIFO_Resync
void tst_RealFifo::resync()
{
    const Known known({obj(foo, 5)});
    RealFifo f(options(&known));
    f.resync();
    QCOMPARE(text(f.items()), QStringLiteral("Sync foo=5"));
}

// TestRealFIFO_DeleteExistingNonPropagated
void tst_RealFifo::deleteExistingNonPropagated()
{
    const Known known;
    RealFifo f(options(&known));
    f.add(obj(foo, 5));
    f.remove(obj(foo, 6));
    QCOMPARE(text(f.items()), QStringLiteral("Added foo=5, Deleted foo=6"));
}

// TestRealFIFO_ReplaceMakesDeletions: deletes first (queued keys, then known keys), then the
// replacements.
void tst_RealFifo::replaceMakesDeletions()
{
    const Known known({obj(foo, 5), obj(bar, 6), obj(baz, 7)});
    {
        RealFifo f(options(&known));
        f.remove(obj(baz, 10));
        f.replace({obj(foo, 5)}, QStringLiteral("0"));
        QCOMPARE(
            popAll(f), QStringLiteral("Deleted baz=10, Deleted DFSU(bar) bar=6, Replaced foo=5"));
    }
    {
        RealFifo f(options(&known));
        f.add(obj(baz, 10));
        f.replace({obj(foo, 5)}, QStringLiteral("0"));
        QCOMPARE(popAll(f),
            QStringLiteral("Added baz=10, Deleted DFSU(baz) baz=10, Deleted DFSU(bar) bar=6, "
                           "Replaced foo=5"));
    }
    {
        // Deleted and re-created in the queue: the tombstone carries the newest queued object.
        RealFifo f(options(&known));
        f.remove(obj(bar, 6));
        f.add(obj(bar, 100));
        f.replace({obj(foo, 5)}, QStringLiteral("0"));
        QCOMPARE(popAll(f),
            QStringLiteral("Deleted bar=6, Added bar=100, Deleted DFSU(bar) bar=100, Deleted "
                           "DFSU(baz) baz=7, Replaced foo=5"));
    }
    {
        RealFifo f(options(&known));
        f.replace({obj(bar, 100), obj(foo, 5)}, QStringLiteral("0"));
        f.replace({obj(foo, 5)}, QStringLiteral("0"));
        QCOMPARE(popAll(f),
            QStringLiteral("Deleted DFSU(baz) baz=7, Replaced bar=100, Replaced foo=5, Deleted "
                           "DFSU(bar) bar=100, Replaced foo=5"));
    }
    {
        const Known empty;
        RealFifo f(options(&empty));
        f.add(obj(baz, 10));
        f.replace({obj(foo, 5)}, QStringLiteral("0"));
        QCOMPARE(
            popAll(f), QStringLiteral("Added baz=10, Deleted DFSU(baz) baz=10, Replaced foo=5"));
    }
}

// TestRealFIFO_ReplaceMakesDeletionsReplaced
void tst_RealFifo::replaceMakesDeletionsReplaced()
{
    const Known known({obj(foo, 5), obj(bar, 6), obj(baz, 7)});
    RealFifo f(options(&known));
    f.remove(obj(baz, 10));
    f.replace({obj(foo, 6)}, QStringLiteral("0"));
    QCOMPARE(popAll(f), QStringLiteral("Deleted baz=10, Deleted DFSU(bar) bar=6, Replaced foo=6"));
}

// TestRealFIFO_UpdateResyncRace: a resync never queues a stale object behind a newer event.
void tst_RealFifo::updateResyncRace()
{
    const Known known({obj(foo, 5)});
    RealFifo f(options(&known));
    f.update(obj(foo, 6));
    f.resync();
    QCOMPARE(popAll(f), QStringLiteral("Updated foo=6"));
}

// TestRealFIFO_HasSyncedCorrectOnDeletion: the tombstones of the first replace are part of
// the initial list.
void tst_RealFifo::hasSyncedCorrectOnDeletion()
{
    const Known known({obj(foo, 5), obj(bar, 6), obj(baz, 7)});
    RealFifo f(options(&known));
    f.replace({obj(foo, 5)}, QStringLiteral("0"));
    const QStringList expected {QStringLiteral("Deleted DFSU(bar) bar=6"),
        QStringLiteral("Deleted DFSU(baz) baz=7"), QStringLiteral("Replaced foo=5")};
    for (const QString &e : expected) {
        QVERIFY(!f.hasSynced());
        bool initial = false;
        QCOMPARE(text(pop(f, &initial)), e);
        QVERIFY(initial);
    }
    QVERIFY(f.hasSynced());
}

// TestRealFIFO_detectLineJumpers: every event is delivered in arrival order.
void tst_RealFifo::detectLineJumpers()
{
    const Known known;
    RealFifo f(options(&known));
    f.add(obj(foo, 10));
    f.add(obj(bar, 1));
    f.add(obj(foo, 11));
    f.add(obj(foo, 13));
    f.add(obj(QStringLiteral("zab"), 30));
    QCOMPARE(val(pop(f).first().lastKnown()), 10);
    f.add(obj(foo, 14)); // foo does not jump back in line
    for (int expected : {1, 11, 13, 30, 14})
        QCOMPARE(val(pop(f).first().lastKnown()), expected);
}

void tst_RealFifo::hasSynced_data()
{
    QTest::addColumn<QString>("actions");
    QTest::addColumn<bool>("synced");
    QTest::newRow("nothing") << QString() << false;
    QTest::newRow("add") << QStringLiteral("add") << true;
    QTest::newRow("empty replace") << QStringLiteral("replace0") << true;
    QTest::newRow("replace of two") << QStringLiteral("replace2") << false;
    QTest::newRow("replace of two, one pop") << QStringLiteral("replace2 pop") << false;
    QTest::newRow("replace of two, two pops") << QStringLiteral("replace2 pop pop") << true;
    // Every event is delivered: a key listed twice must be popped twice.
    QTest::newRow("duplicate key, two pops") << QStringLiteral("replaceDup pop pop") << true;
    QTest::newRow("duplicate key, one pop") << QStringLiteral("replaceDup pop") << false;
}

// TestRealFIFO_HasSynced
void tst_RealFifo::hasSynced()
{
    QFETCH(QString, actions);
    QFETCH(bool, synced);
    const Known known;
    RealFifo f(options(&known));
    for (const QString &action : actions.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (action == QLatin1String("add"))
            f.add(obj(QStringLiteral("a"), 1));
        else if (action == QLatin1String("replace0"))
            f.replace({}, QStringLiteral("0"));
        else if (action == QLatin1String("replace2"))
            f.replace(
                {obj(QStringLiteral("a"), 1), obj(QStringLiteral("b"), 2)}, QStringLiteral("0"));
        else if (action == QLatin1String("replaceDup"))
            f.replace(
                {obj(QStringLiteral("a"), 1), obj(QStringLiteral("a"), 2)}, QStringLiteral("0"));
        else
            pop(f);
    }
    QCOMPARE(f.hasSynced(), synced);
}

// client-go decrements the initial count after `process` returns: hasSynced() and onSynced
// wait until the last item of the first list has been handled.
void tst_RealFifo::hasSyncedOnlyAfterProcessing()
{
    const Known known;
    auto opts = options(&known);
    int syncedCalls = 0;
    opts.onSynced = [&] { ++syncedCalls; };
    RealFifo f(opts);
    f.replace({obj(foo, 1)}, QStringLiteral("0"));
    int callsDuringProcess = -1;
    f.pop([&](const Deltas &, bool initial) {
        callsDuringProcess = syncedCalls;
        return initial ? std::optional<qcm::Error>() : qcm::Error {{}, {}, QStringLiteral("x")};
    });
    QCOMPARE(callsDuringProcess, 0);
    QCOMPARE(syncedCalls, 1);
    QVERIFY(f.hasSynced());
    f.add(obj(bar, 2));
    QCOMPARE(syncedCalls, 1); // once
}

// processNext(): tryPop() for a caller that keeps nothing. The same order and initial-list
// accounting, one delta at a time, in one list kept across calls; a copy process keeps is
// left alone.
void tst_RealFifo::processNextReusesItsList()
{
    const Known known;
    auto opts = options(&known);
    int syncedCalls = 0;
    opts.onSynced = [&] { ++syncedCalls; };
    RealFifo f(opts);
    const auto noop = [](const Deltas &, bool) { return std::optional<qcm::Error>(); };
    QVERIFY(!f.processNext(noop));
    f.replace({obj(foo, 1), obj(bar, 2)}, QStringLiteral("0"));
    f.update(obj(foo, 3));

    QStringList seen;
    QList<bool> initial;
    QList<const Delta *> storage;
    Deltas kept;
    const auto record = [&](const Deltas &deltas, bool isInInitialList) {
        seen << text(deltas);
        initial << isInInitialList;
        storage << deltas.constData();
        if (seen.size() == 2)
            kept = deltas; // process keeps a copy of the second list
        return std::optional<qcm::Error>(qcm::Error {{}, {}, QStringLiteral("dropped")});
    };
    QVERIFY(f.processNext(record));
    QCOMPARE(syncedCalls, 0);
    QVERIFY(f.processNext(record));
    QCOMPARE(syncedCalls, 1); // the first list's last item processed
    QVERIFY(f.processNext(record));
    QVERIFY(!f.processNext(record));
    QCOMPARE(seen,
        QStringList({QStringLiteral("Replaced foo=1"), QStringLiteral("Replaced bar=2"),
            QStringLiteral("Updated foo=3")}));
    QCOMPARE(initial, QList<bool>({true, true, false}));
    QCOMPARE(storage[1], storage[0]); // the same list
    QVERIFY(storage[2] != storage[1]); // the kept copy is not written over
    QCOMPARE(text(kept), QStringLiteral("Replaced bar=2"));
    QVERIFY(f.items().isEmpty());
}

// TestRealFIFO_PopShouldUnblockWhenClosed
void tst_RealFifo::popShouldUnblockWhenClosed()
{
    const Known known({obj(foo, 5)});
    RealFifo f(options(&known));
    QCOMPARE(popsReleasedByClose(f, 10), 10);
    QVERIFY(f.isClosed());
}

namespace {

class Gauge : public qcm::workqueue::SettableGaugeMetric
{
public:
    void set(double value) override { values << value; }
    QList<double> values;
};

class Histogram : public qcm::workqueue::HistogramMetric
{
public:
    void observe(double value) override { values << value; }
    QList<double> values;
};

} // namespace

// The queued-items gauge follows the queue's length; every processed pop is timed.
void tst_RealFifo::metrics()
{
    const Known known;
    auto opts = options(&known);
    auto queued = std::make_shared<Gauge>();
    auto latency = std::make_shared<Histogram>();
    opts.metrics.queuedItems = queued;
    opts.metrics.processingLatency = latency;
    RealFifo f(opts);
    f.add(obj(foo, 1));
    f.add(obj(bar, 1));
    f.pop([](const Deltas &, bool) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return std::optional<qcm::Error>();
    });
    QCOMPARE(queued->values, (QList<double> {1, 2, 1}));
    QCOMPARE(latency->values.size(), 1);
    QVERIFY2(
        latency->values.first() >= 0.005, qPrintable(QString::number(latency->values.first())));
    f.pop({}); // nothing to time without a process function
    QCOMPARE(latency->values.size(), 1);
    QCOMPARE(queued->values.last(), 0.0);
}

QTEST_GUILESS_MAIN(tst_RealFifo)
#include "tst_realfifo.moc"
