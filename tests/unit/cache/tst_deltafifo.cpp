// SPDX-License-Identifier: Apache-2.0
// DeltaFifo: client-go's tools/cache/delta_fifo_test.go, with objects named by metadata.name
// and carrying a "val" (testFifoObject there).
#include <qcm/cache/deltafifo.h>

#include "fifotestsupport.h"

#include <QtTest/QtTest>

#include <atomic>
#include <thread>

using namespace qcm::cache;

namespace {

using namespace fifotest;

DeltaFifo::Options options(const KeyListerGetter *known = nullptr, bool replaced = false)
{
    DeltaFifo::Options o;
    o.keyFunction = nameKey;
    o.knownObjects = known;
    o.emitDeltaTypeReplaced = replaced;
    return o;
}

Deltas pop(DeltaFifo &f)
{
    auto deltas = f.pop({});
    if (!deltas)
        qFatal("pop: %s", qPrintable(deltas.error().toString()));
    return *deltas;
}

} // namespace

class tst_DeltaFifo : public QObject
{
    Q_OBJECT

private slots:
    void basic();
    void concurrentPopsMissNoWakeUp_data();
    void concurrentPopsMissNoWakeUp();
    void addUpdate();
    void addReplace();
    void transformer();
    void enqueueingNoLister();
    void enqueueingWithLister();
    void resyncNonExisting();
    void resync();
    void deleteExistingNonPropagated();
    void replaceMakesDeletions();
    void replaceMakesDeletionsReplaced();
    void replaceDeltaType();
    void updateResyncRace();
    void hasSyncedCorrectOnDeletion();
    void detectLineJumpers();
    void keyOf();
    void hasSynced();
    void popShouldUnblockWhenClosed();
    void replaceMakesDeletionsForObjectsOnlyInQueue_data();
    void replaceMakesDeletionsForObjectsOnlyInQueue();
    void splitKeys();
    void largeBacklogDrainedTwice();
    void addsWhileProcessRunsDoNotWait();
    void defaultKeysReadInPlace();
};

// TestDeltaFIFO_basic: two producers; each one's items come out in its order.
void tst_DeltaFifo::basic()
{
    DeltaFifo f(options());
    constexpr int amount = 500;
    std::thread a([&] {
        for (int i = 0; i < amount; ++i)
            f.add(obj(QStringLiteral("a%1").arg(i), i + 1));
    });
    std::thread b([&] {
        for (int i = 0; i < amount; ++i)
            f.add(obj(QStringLiteral("b%1").arg(i), i + 1));
    });
    int lastA = 0;
    int lastB = 0;
    for (int i = 0; i < amount * 2; ++i) {
        const Object o = pop(f).last().lastKnown();
        int &last = o.name().startsWith(QLatin1Char('a')) ? lastA : lastB;
        QVERIFY2(val(o) > last, qPrintable(QStringLiteral("%1 out of order").arg(o.name())));
        last = val(o);
    }
    a.join();
    b.join();
    QVERIFY(f.listKeys().isEmpty());
}

// Not from client-go: producers and consumers on every side of the empty queue. pop() waits
// only while the queue is empty and a push notifies only when it ends an empty spell, so a
// lost wake-up would strand deltas with every consumer asleep.
void tst_DeltaFifo::concurrentPopsMissNoWakeUp_data()
{
    QTest::addColumn<int>("producers");
    QTest::addColumn<int>("consumers");
    QTest::newRow("1x1") << 1 << 1;
    QTest::newRow("2x2") << 2 << 2;
    QTest::newRow("1x3") << 1 << 3;
}

void tst_DeltaFifo::concurrentPopsMissNoWakeUp()
{
    QFETCH(int, producers);
    QFETCH(int, consumers);
    const auto make = [] { return std::make_unique<DeltaFifo>(options()); };
    QCOMPARE(deltasStrandedUnderConcurrentPops(
                 make, producers, consumers, 200, std::chrono::milliseconds(700)),
        0);
}

// TestDeltaFIFO_addUpdate
void tst_DeltaFifo::addUpdate()
{
    DeltaFifo f(options());
    f.add(obj(QStringLiteral("foo"), 10));
    f.update(obj(QStringLiteral("foo"), 12));
    f.remove(obj(QStringLiteral("foo"), 15));
    QCOMPARE(f.list().size(), 1);
    QCOMPARE(val(f.list().first()), 15);
    QCOMPARE(f.listKeys(), QStringList {QStringLiteral("foo")});
    QCOMPARE(text(pop(f)), QStringLiteral("Added foo=10, Updated foo=12, Deleted foo=15"));
    QVERIFY(!f.getByKey(QStringLiteral("foo")).has_value());
}

// TestDeltaFIFO_addReplace
void tst_DeltaFifo::addReplace()
{
    DeltaFifo f(options());
    f.add(obj(QStringLiteral("foo"), 10));
    f.replace({obj(QStringLiteral("foo"), 15)}, QStringLiteral("0"));
    QCOMPARE(text(pop(f)), QStringLiteral("Added foo=10, Sync foo=15"));
    QVERIFY(f.listKeys().isEmpty());
}

// TestDeltaFIFO_transformer: every enqueue is transformed once, tombstones are not.
void tst_DeltaFifo::transformer()
{
    auto opts = options();
    opts.transformer = [](Object o) -> qcm::Result<Object> {
        o.json().insert(QStringLiteral("xfrm"), o.json().value(QStringLiteral("xfrm")).toInt() + 1);
        return o;
    };
    DeltaFifo f(opts);
    f.add(obj(QStringLiteral("foo"), 10));
    f.add(obj(QStringLiteral("bar"), 11));
    f.update(obj(QStringLiteral("foo"), 12));
    f.remove(obj(QStringLiteral("foo"), 15));
    f.replace({}, {});
    f.add(obj(QStringLiteral("bar"), 16));
    f.replace({}, {});
    QCOMPARE(f.listKeys(), (QStringList {QStringLiteral("foo"), QStringLiteral("bar")}));
    const Deltas foo = pop(f);
    QVERIFY(!foo.last().isTombstone());
    QCOMPARE(val(foo.last().lastKnown()), 15);
    QCOMPARE(foo.last().lastKnown().json().value(QStringLiteral("xfrm")).toInt(), 1);
    const Deltas bar = pop(f);
    QVERIFY(bar.last().isTombstone());
    QCOMPARE(val(bar.last().lastKnown()), 16);
    QCOMPARE(bar.last().lastKnown().json().value(QStringLiteral("xfrm")).toInt(), 1);
}

// TestDeltaFIFO_enqueueingNoLister: a delete of an unknown key is ignored.
void tst_DeltaFifo::enqueueingNoLister()
{
    DeltaFifo f(options());
    f.remove(obj(QStringLiteral("ghost"), 1));
    QVERIFY(f.listKeys().isEmpty());
    f.add(obj(QStringLiteral("foo"), 1));
    f.remove(obj(QStringLiteral("foo"), 2));
    f.remove(obj(QStringLiteral("foo"), 3)); // two Deleted in a row keep the older
    QCOMPARE(text(pop(f)), QStringLiteral("Added foo=1, Deleted foo=2"));
}

// TestDeltaFIFO_enqueueingWithLister: ignored only if absent from both store and queue.
void tst_DeltaFifo::enqueueingWithLister()
{
    const Known known({obj(QStringLiteral("foo"), 5), obj(QStringLiteral("bar"), 6),
        obj(QStringLiteral("baz"), 7)});
    DeltaFifo f(options(&known));
    f.add(obj(QStringLiteral("foo"), 10));
    f.update(obj(QStringLiteral("bar"), 15));
    f.remove(obj(QStringLiteral("baz"), 20)); // known: queued
    f.remove(obj(QStringLiteral("qux"), 30)); // unknown and not queued: ignored
    QCOMPARE(f.listKeys(),
        (QStringList {QStringLiteral("foo"), QStringLiteral("bar"), QStringLiteral("baz")}));
    QCOMPARE(text(pop(f)), QStringLiteral("Added foo=10"));
    QCOMPARE(text(pop(f)), QStringLiteral("Updated bar=15"));
    QCOMPARE(text(pop(f)), QStringLiteral("Deleted baz=20"));
}

// TestDeltaFIFO_ResyncNonExisting
void tst_DeltaFifo::resyncNonExisting()
{
    const Known known({obj(QStringLiteral("foo"), 5)});
    DeltaFifo f(options(&known));
    f.remove(obj(QStringLiteral("foo"), 10));
    f.resync();
    QCOMPARE(text(*f.getByKey(QStringLiteral("foo"))), QStringLiteral("Deleted foo=10"));
}

// TestDeltaFIFO_Resync: Sync for every known key without deltas.
void tst_DeltaFifo::resync()
{
    const Known known({obj(QStringLiteral("foo"), 5)});
    DeltaFifo f(options(&known));
    f.resync();
    QCOMPARE(text(pop(f)), QStringLiteral("Sync foo=5"));
    DeltaFifo none(options());
    QVERIFY(!none.resync().has_value()); // no known objects: nothing
    QVERIFY(none.listKeys().isEmpty());
}

// TestDeltaFIFO_DeleteExistingNonPropagated
void tst_DeltaFifo::deleteExistingNonPropagated()
{
    const Known known;
    DeltaFifo f(options(&known));
    f.add(obj(QStringLiteral("foo"), 5));
    f.remove(obj(QStringLiteral("foo"), 6));
    QCOMPARE(
        text(*f.getByKey(QStringLiteral("foo"))), QStringLiteral("Added foo=5, Deleted foo=6"));
}

// TestDeltaFIFO_ReplaceMakesDeletions, all five cases.
void tst_DeltaFifo::replaceMakesDeletions()
{
    const Known known({obj(QStringLiteral("foo"), 5), obj(QStringLiteral("bar"), 6),
        obj(QStringLiteral("baz"), 7)});
    {
        DeltaFifo f(options(&known));
        f.remove(obj(QStringLiteral("baz"), 10));
        f.replace({obj(QStringLiteral("foo"), 5)}, QStringLiteral("0"));
        QCOMPARE(text(pop(f)), QStringLiteral("Deleted baz=10"));
        QCOMPARE(text(pop(f)), QStringLiteral("Sync foo=5"));
        QCOMPARE(text(pop(f)), QStringLiteral("Deleted DFSU(bar) bar=6"));
    }
    {
        DeltaFifo f(options(&known));
        f.add(obj(QStringLiteral("baz"), 10));
        f.replace({obj(QStringLiteral("foo"), 5)}, QStringLiteral("0"));
        QCOMPARE(text(pop(f)), QStringLiteral("Added baz=10, Deleted DFSU(baz) baz=10"));
        QCOMPARE(text(pop(f)), QStringLiteral("Sync foo=5"));
        QCOMPARE(text(pop(f)), QStringLiteral("Deleted DFSU(bar) bar=6"));
    }
    {
        DeltaFifo f(options(&known));
        f.remove(obj(QStringLiteral("bar"), 6));
        f.add(obj(QStringLiteral("bar"), 100));
        f.replace({obj(QStringLiteral("foo"), 5)}, QStringLiteral("0"));
        QCOMPARE(text(pop(f)),
            QStringLiteral("Deleted bar=6, Added bar=100, Deleted DFSU(bar) bar=100"));
        QCOMPARE(text(pop(f)), QStringLiteral("Sync foo=5"));
        QCOMPARE(text(pop(f)), QStringLiteral("Deleted DFSU(baz) baz=7"));
    }
    {
        DeltaFifo f(options(&known));
        f.replace(
            {obj(QStringLiteral("bar"), 100), obj(QStringLiteral("foo"), 5)}, QStringLiteral("0"));
        f.replace({obj(QStringLiteral("foo"), 5)}, QStringLiteral("0"));
        QCOMPARE(text(pop(f)), QStringLiteral("Sync bar=100, Deleted DFSU(bar) bar=100"));
        QCOMPARE(text(pop(f)), QStringLiteral("Sync foo=5, Sync foo=5"));
        QCOMPARE(text(pop(f)), QStringLiteral("Deleted DFSU(baz) baz=7"));
    }
    {
        DeltaFifo f(options());
        f.add(obj(QStringLiteral("baz"), 10));
        f.replace({obj(QStringLiteral("foo"), 5)}, QStringLiteral("0"));
        QCOMPARE(text(pop(f)), QStringLiteral("Added baz=10, Deleted DFSU(baz) baz=10"));
        QCOMPARE(text(pop(f)), QStringLiteral("Sync foo=5"));
    }
}

// TestDeltaFIFO_ReplaceMakesDeletionsReplaced
void tst_DeltaFifo::replaceMakesDeletionsReplaced()
{
    const Known known({obj(QStringLiteral("foo"), 5), obj(QStringLiteral("bar"), 6),
        obj(QStringLiteral("baz"), 7)});
    DeltaFifo f(options(&known, true));
    f.remove(obj(QStringLiteral("baz"), 10));
    f.replace({obj(QStringLiteral("foo"), 6)}, QStringLiteral("0"));
    QCOMPARE(text(pop(f)), QStringLiteral("Deleted baz=10"));
    QCOMPARE(text(pop(f)), QStringLiteral("Replaced foo=6"));
    QCOMPARE(text(pop(f)), QStringLiteral("Deleted DFSU(bar) bar=6"));
}

// TestDeltaFIFO_ReplaceDeltaType
void tst_DeltaFifo::replaceDeltaType()
{
    const Known known({obj(QStringLiteral("foo"), 5)});
    DeltaFifo f(options(&known, true));
    f.replace({obj(QStringLiteral("foo"), 5)}, QStringLiteral("0"));
    QCOMPARE(text(pop(f)), QStringLiteral("Replaced foo=5"));
}

// TestDeltaFIFO_UpdateResyncRace: resync skips keys that have queued deltas.
void tst_DeltaFifo::updateResyncRace()
{
    const Known known({obj(QStringLiteral("foo"), 5)});
    DeltaFifo f(options(&known));
    f.update(obj(QStringLiteral("foo"), 6));
    f.resync();
    QCOMPARE(text(pop(f)), QStringLiteral("Updated foo=6"));
}

// TestDeltaFIFO_HasSyncedCorrectOnDeletion
void tst_DeltaFifo::hasSyncedCorrectOnDeletion()
{
    const Known known({obj(QStringLiteral("foo"), 5), obj(QStringLiteral("bar"), 6),
        obj(QStringLiteral("baz"), 7)});
    DeltaFifo f(options(&known));
    f.replace({obj(QStringLiteral("foo"), 5)}, QStringLiteral("0"));
    const QStringList expected {QStringLiteral("Sync foo=5"),
        QStringLiteral("Deleted DFSU(bar) bar=6"), QStringLiteral("Deleted DFSU(baz) baz=7")};
    for (const QString &e : expected) {
        QVERIFY(!f.hasSynced());
        QCOMPARE(text(pop(f)), e);
    }
    QVERIFY(f.hasSynced());
}

// TestDeltaFIFO_detectLineJumpers: a key keeps its place in line when it changes again.
void tst_DeltaFifo::detectLineJumpers()
{
    DeltaFifo f(options());
    f.add(obj(QStringLiteral("foo"), 10));
    f.add(obj(QStringLiteral("bar"), 1));
    f.add(obj(QStringLiteral("foo"), 11));
    f.add(obj(QStringLiteral("foo"), 13));
    f.add(obj(QStringLiteral("zab"), 30));
    QCOMPARE(val(pop(f).last().lastKnown()), 13);
    f.add(obj(QStringLiteral("foo"), 14)); // foo goes to the back now
    QCOMPARE(val(pop(f).last().lastKnown()), 1);
    QCOMPARE(val(pop(f).last().lastKnown()), 30);
    QCOMPARE(val(pop(f).last().lastKnown()), 14);
}

// TestDeltaFIFO_KeyOf
void tst_DeltaFifo::keyOf()
{
    DeltaFifo f;
    Object cm = obj(QStringLiteral("a"), 1);
    cm.setNamespaceName(QStringLiteral("ns"));
    QCOMPARE(*f.keyOf(Delta {DeltaType::Added, cm}), QStringLiteral("ns/a"));
    QCOMPARE(
        *f.keyOf(Delta {DeltaType::Deleted, DeletedFinalStateUnknown {QStringLiteral("x/y"), {}}}),
        QStringLiteral("x/y"));
    QVERIFY(!f.keyOf(Delta {DeltaType::Added, Object()}));
    QVERIFY(f.add(Object()).has_value()); // no key: an error, nothing queued
    QVERIFY(f.listKeys().isEmpty());
}

// TestDeltaFIFO_HasSynced
void tst_DeltaFifo::hasSynced()
{
    {
        DeltaFifo f(options());
        QVERIFY(!f.hasSynced());
        f.add(obj(QStringLiteral("a"), 1)); // before any replace: synced at once
        QVERIFY(f.hasSynced());
    }
    {
        DeltaFifo f(options());
        f.replace({}, QStringLiteral("0"));
        QVERIFY(f.hasSynced()); // an empty first list
    }
    {
        DeltaFifo f(options());
        f.replace({obj(QStringLiteral("a"), 1), obj(QStringLiteral("b"), 2)}, QStringLiteral("0"));
        QVERIFY(!f.hasSynced());
        bool initial = false;
        f.pop([&](const Deltas &, bool isInInitialList) {
            initial = isInInitialList;
            return std::nullopt;
        });
        QVERIFY(initial);
        QVERIFY(!f.hasSynced());
        f.pop([&](const Deltas &, bool isInInitialList) {
            initial = isInInitialList;
            return std::nullopt;
        });
        QVERIFY(initial); // computed before the counter moves
        QVERIFY(f.hasSynced());
        f.add(obj(QStringLiteral("c"), 3));
        f.pop([&](const Deltas &, bool isInInitialList) {
            initial = isInInitialList;
            return std::nullopt;
        });
        QVERIFY(!initial);
    }
    {
        // A second replace does not reset the count.
        DeltaFifo f(options());
        f.replace({obj(QStringLiteral("a"), 1)}, QStringLiteral("0"));
        f.replace({obj(QStringLiteral("a"), 1), obj(QStringLiteral("b"), 2)}, QStringLiteral("1"));
        pop(f);
        QVERIFY(f.hasSynced());
    }
}

// TestDeltaFIFO_PopShouldUnblockWhenClosed
void tst_DeltaFifo::popShouldUnblockWhenClosed()
{
    DeltaFifo f(options());
    QCOMPARE(popsReleasedByClose(f, 10), 10);
    QVERIFY(f.isClosed());
}

void tst_DeltaFifo::replaceMakesDeletionsForObjectsOnlyInQueue_data()
{
    QTest::addColumn<QString>("ops");
    QTest::addColumn<QString>("expected");
    QTest::newRow("added, then replaced away")
        << QStringLiteral("add2 replace") << QStringLiteral("Added foo=2, Deleted DFSU(foo) foo=2");
    QTest::newRow("replaced object: one delete")
        << QStringLiteral("R add2 replace2 replace")
        << QStringLiteral("Added foo=2, Replaced foo=2, Deleted DFSU(foo) foo=2");
    QTest::newRow("deleted object: one delete")
        << QStringLiteral("add2 delete2 replace") << QStringLiteral("Added foo=2, Deleted foo=2");
    QTest::newRow("synced object: one delete")
        << QStringLiteral("add2 replace2 replace2 replace")
        << QStringLiteral("Added foo=2, Sync foo=2, Sync foo=2, Deleted DFSU(foo) foo=2");
    QTest::newRow("one delete over several replaces") << QStringLiteral(
        "add2 replace replace") << QStringLiteral("Added foo=2, Deleted DFSU(foo) foo=2");
    QTest::newRow("added, deleted, added again")
        << QStringLiteral("add2 delete2 add3 replace")
        << QStringLiteral("Added foo=2, Deleted foo=2, Added foo=3, Deleted DFSU(foo) foo=3");
}

// TestDeltaFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue, with and without a store.
void tst_DeltaFifo::replaceMakesDeletionsForObjectsOnlyInQueue()
{
    QFETCH(QString, ops);
    QFETCH(QString, expected);
    const Known empty;
    for (const KeyListerGetter *known : {static_cast<const KeyListerGetter *>(&empty),
             static_cast<const KeyListerGetter *>(nullptr)}) {
        const QStringList steps = ops.split(QLatin1Char(' '));
        DeltaFifo f(options(known, steps.first() == QLatin1String("R")));
        for (const QString &step : steps) {
            if (step.startsWith(QLatin1String("add")))
                f.add(obj(QStringLiteral("foo"), step.mid(3).toInt()));
            else if (step.startsWith(QLatin1String("delete")))
                f.remove(obj(QStringLiteral("foo"), step.mid(6).toInt()));
            else if (step == QLatin1String("replace"))
                f.replace({}, QStringLiteral("0"));
            else if (step.startsWith(QLatin1String("replace")))
                f.replace({obj(QStringLiteral("foo"), step.mid(7).toInt())}, QStringLiteral("0"));
        }
        QCOMPARE(text(pop(f)), expected);
        QVERIFY(f.listKeys().isEmpty()); // no extra deltas
    }
}

void tst_DeltaFifo::splitKeys()
{
    QCOMPARE(splitMetaNamespaceKey(QStringLiteral("ns/name"))->namespaceName, QStringLiteral("ns"));
    QCOMPARE(splitMetaNamespaceKey(QStringLiteral("name"))->name, QStringLiteral("name"));
    QVERIFY(splitMetaNamespaceKey(QStringLiteral("name"))->namespaceName.isEmpty());
    QVERIFY(!splitMetaNamespaceKey(QStringLiteral("a/b/c")));
    Object named;
    named.setName(QStringLiteral("n"));
    QCOMPARE(*metaNamespaceKey(named), QStringLiteral("n"));
    QVERIFY(!metaNamespaceKey(Object()));
}

// Not from client-go: the deltas live in a pool of nodes that is recycled as keys are popped
// and given back when the queue drains after a backlog larger than the pool keeps (4096
// nodes). A backlog of 6000 keys (two deltas each, a third for every fifth key that merges
// two deletions): half queued, a quarter popped, the other half queued, the rest popped; then
// the same again on the FIFO that freed its pool: every key comes out once, in order, with its
// own deltas.
void tst_DeltaFifo::largeBacklogDrainedTwice()
{
    DeltaFifo f(options());
    for (int round = 0; round < 2; ++round) {
        constexpr int keys = 6000;
        const auto name = [&](int i) { return QStringLiteral("r%1-k%2").arg(round).arg(i); };
        const auto push = [&](int i) {
            f.add(obj(name(i), i));
            if (i % 5 == 0) {
                f.remove(obj(name(i), i + 1));
                f.remove(obj(name(i), i + 2)); // merges with the deletion before it
            } else {
                f.update(obj(name(i), i + 1));
            }
        };
        const auto expected = [&](int i) {
            return i % 5 == 0
                ? QStringLiteral("Added %1=%2, Deleted %1=%3").arg(name(i)).arg(i).arg(i + 1)
                : QStringLiteral("Added %1=%2, Updated %1=%3").arg(name(i)).arg(i).arg(i + 1);
        };
        for (int i = 0; i < keys / 2; ++i)
            push(i);
        QCOMPARE(text(*f.getByKey(name(7))), expected(7));
        for (int i = 0; i < keys / 4; ++i)
            QCOMPARE(text(pop(f)), expected(i));
        for (int i = keys / 2; i < keys; ++i)
            push(i);
        QCOMPARE(f.listKeys().size(), keys - keys / 4);
        QCOMPARE(f.listKeys().first(), name(keys / 4));
        QCOMPARE(val(f.list().last()), keys);
        for (int i = keys / 4; i < keys; ++i)
            QCOMPARE(text(pop(f)), expected(i));
        QVERIFY(f.listKeys().isEmpty());
        QVERIFY(!f.getByKey(name(7)).has_value());
    }
}

// Not from client-go: pop() runs process under the lock. Meanwhile add() and update() (no
// transformer) push onto the inbox and return instead of waiting, and the next lock holder
// applies them in push order: the deltas come out merged and ordered as if added under the
// lock, and a remove() after them sees the key queued.
void tst_DeltaFifo::addsWhileProcessRunsDoNotWait()
{
    DeltaFifo f(options());
    f.add(obj(QStringLiteral("first"), 1));
    std::atomic<bool> entered {false};
    std::atomic<bool> release {false};
    QString processed;
    std::thread consumer([&] {
        (void)f.pop([&](const Deltas &deltas, bool) {
            processed = text(deltas);
            entered = true;
            while (!release)
                std::this_thread::yield();
            return std::optional<qcm::Error>();
        });
    });
    const bool inProcess = QTest::qWaitFor([&] { return entered.load(); }, 5000);
    std::atomic<bool> producerReturned {false};
    std::thread producer([&] {
        f.add(obj(QStringLiteral("foo"), 10));
        f.update(obj(QStringLiteral("foo"), 11));
        f.add(obj(QStringLiteral("bar"), 20));
        f.update(obj(QStringLiteral("foo"), 12));
        producerReturned = true;
    });
    const bool returned = QTest::qWaitFor([&] { return producerReturned.load(); }, 5000);
    release = true;
    consumer.join();
    producer.join();
    QVERIFY(inProcess);
    QVERIFY2(returned, "add() and update() waited for process to finish");
    QCOMPARE(processed, QStringLiteral("Added first=1"));
    f.remove(obj(QStringLiteral("bar"), 21));
    QCOMPARE(f.listKeys(), (QStringList {QStringLiteral("foo"), QStringLiteral("bar")}));
    QCOMPARE(text(pop(f)), QStringLiteral("Added foo=10, Updated foo=11, Updated foo=12"));
    QCOMPARE(text(pop(f)), QStringLiteral("Added bar=20, Deleted bar=21"));
    QVERIFY(f.listKeys().isEmpty());
}

// Not from client-go: with the default key function and no transformer, add() and update()
// key a delta by the key its object caches, read in place, on the inbox (while process runs)
// and under the lock alike; an object whose JSON was lent out is keyed by that JSON as it is
// when it is added, and an object without a name is refused.
void tst_DeltaFifo::defaultKeysReadInPlace()
{
    const auto make = [](const QString &ns, const QString &name, int v) {
        return Object(QJsonObject {
            {QStringLiteral("metadata"),
                QJsonObject {{QStringLiteral("namespace"), ns}, {QStringLiteral("name"), name}}},
            {QStringLiteral("val"), v}});
    };
    const auto lentAndRenamed = [&](const QString &name, int v) {
        Object o = make(QStringLiteral("ns"), QStringLiteral("before"), v);
        QJsonObject &json = o.json();
        json.insert(QStringLiteral("metadata"),
            QJsonObject {{QStringLiteral("namespace"), QStringLiteral("ns")},
                {QStringLiteral("name"), name}});
        return o;
    };
    DeltaFifo f;
    f.add(make(QStringLiteral("ns"), QStringLiteral("first"), 1));
    std::atomic<bool> entered {false};
    std::atomic<bool> release {false};
    std::thread consumer([&] {
        (void)f.pop([&](const Deltas &, bool) {
            entered = true;
            while (!release)
                std::this_thread::yield();
            return std::optional<qcm::Error>();
        });
    });
    QVERIFY(QTest::qWaitFor([&] { return entered.load(); }, 5000));
    std::thread producer([&] { // onto the inbox: pop() holds the lock
        f.add(make(QStringLiteral("ns"), QStringLiteral("foo"), 10));
        f.add(make(QStringLiteral("other"), QStringLiteral("foo"), 20));
        f.add(lentAndRenamed(QStringLiteral("bar"), 30));
        f.update(make(QStringLiteral("ns"), QStringLiteral("foo"), 11));
    });
    producer.join();
    release = true;
    consumer.join();
    const Object kept = make(QStringLiteral("ns"), QStringLiteral("foo"), 12);
    QVERIFY(!f.update(kept)); // under the lock
    QVERIFY(!f.update(lentAndRenamed(QStringLiteral("bar"), 31)));
    const auto refused = f.add(Object(QJsonObject {{QStringLiteral("val"), 1}}));
    QVERIFY(refused.has_value());
    QCOMPARE(refused->field, QStringLiteral("metadata.name"));
    QCOMPARE(f.listKeys(),
        (QStringList {
            QStringLiteral("ns/foo"), QStringLiteral("other/foo"), QStringLiteral("ns/bar")}));
    QCOMPARE(text(pop(f)), QStringLiteral("Added foo=10, Updated foo=11, Updated foo=12"));
    QCOMPARE(text(pop(f)), QStringLiteral("Added foo=20"));
    QCOMPARE(text(pop(f)), QStringLiteral("Added bar=30, Updated bar=31"));
    QCOMPARE(kept.key(), QStringLiteral("ns/foo"));
    QVERIFY(f.listKeys().isEmpty());
}

QTEST_GUILESS_MAIN(tst_DeltaFifo)
#include "tst_deltafifo.moc"
