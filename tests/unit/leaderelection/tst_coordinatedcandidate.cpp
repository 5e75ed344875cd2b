// SPDX-License-Identifier: Apache-2.0
// LeaderElector in coordinated mode (KEP-4355): client-go's TestTryCoordinatedRenew, plus what
// its coordinated path promises: it never claims a Lease (not a free one, not an expired one,
// not a missing one), it renews only a term the election controller gave it, keeping the
// strategy, acquireTime and leaderTransitions, and a term marked ended by preferredHolder is
// renewed no more, so the leader steps down at its deadline. On a fake lock and clock.
#include "leaderelectorharness.h"

#include <QtTest/QtTest>

namespace {

LeaderElectionRecord coordinated(const QString &identity)
{
    LeaderElectionRecord record = holder(identity, 15);
    record.acquireTime = QDateTime::fromSecsSinceEpoch(1700000000, Qt::UTC);
    record.renewTime = record.acquireTime;
    record.leaderTransitions = 3;
    record.strategy = QStringLiteral("OldestEmulationVersion");
    return record;
}

} // namespace

using Harness = LeaderElectorHarness;

class tst_CoordinatedElection : public QObject
{
    Q_OBJECT

private slots:
    void dontAcquireFromLedObject();
    void renewAlreadyAcquiredObject();
    void neverClaimsAFreeExpiredOrMissingLease();
    void anEndedTermIsNotRenewed();
    void aLapsedTermOfItsOwnIsHandedBack();
    void followsTheHolderTheControllerWrites();
    void leadsAgainAfterHandingBackItsEndedTerm();
};

// client-go's "don't acquire from led, acked object".
void tst_CoordinatedElection::dontAcquireFromLedObject()
{
    Harness h([](LeaderElectionConfig &c) { c.coordinated = true; });
    h.lock->stored = holder(QStringLiteral("bing"));
    h.seedObserved({}, h.clock.now() + 1000h);
    QVERIFY(!h.tryCoordinatedRenew());
    QCOMPARE(h.observed().holderIdentity, QStringLiteral("bing"));
    QCOMPARE(h.lock->ops, QStringList {QStringLiteral("get")});
}

// client-go's "renew already acquired object": the record names this elector, so it renews,
// keeping what the election controller wrote and the term's history.
void tst_CoordinatedElection::renewAlreadyAcquiredObject()
{
    Harness h([](LeaderElectionConfig &c) { c.coordinated = true; });
    const LeaderElectionRecord given = coordinated(QStringLiteral("baz"));
    h.lock->stored = given;
    h.seedObserved(given, h.clock.now() + 1000h);
    QVERIFY(h.tryCoordinatedRenew());
    QCOMPARE(h.lock->ops, (QStringList {QStringLiteral("get"), QStringLiteral("update")}));
    QCOMPARE(h.lock->stored->holderIdentity, QStringLiteral("baz"));
    QCOMPARE(h.lock->stored->strategy, given.strategy);
    QCOMPARE(h.lock->stored->acquireTime, given.acquireTime);
    QCOMPARE(h.lock->stored->leaderTransitions, 3);
    QVERIFY(h.lock->stored->renewTime > given.renewTime);
    QCOMPARE(h.observed().holderIdentity, QStringLiteral("baz"));
}

// The plain path would take each of these; the coordinated one only reads.
void tst_CoordinatedElection::neverClaimsAFreeExpiredOrMissingLease()
{
    {
        Harness h([](LeaderElectionConfig &c) { c.coordinated = true; });
        QVERIFY(!h.tryCoordinatedRenew()); // no Lease: the controller writes it, not we
        QCOMPARE(h.lock->ops, QStringList {QStringLiteral("get")});
        QVERIFY(!h.lock->stored);
    }
    {
        Harness h([](LeaderElectionConfig &c) { c.coordinated = true; });
        h.lock->stored = holder(QString(), 15); // free
        QVERIFY(!h.tryCoordinatedRenew());
        QCOMPARE(h.lock->ops, QStringList {QStringLiteral("get")});
    }
    {
        Harness h([](LeaderElectionConfig &c) { c.coordinated = true; });
        const LeaderElectionRecord other = coordinated(QStringLiteral("bing"));
        h.lock->stored = other;
        h.seedObserved(other, h.clock.now() - 20s); // expired as observed
        QVERIFY(!h.tryCoordinatedRenew());
        QCOMPARE(h.lock->ops, QStringList {QStringLiteral("get")});
        QCOMPARE(h.lock->stored->holderIdentity, QStringLiteral("bing"));
    }
}

// Beyond client-go: its own term, once expired as observed, is not renewed but released, so
// that the election controller writes the holder again (it leaves a lapsed Lease alone when it
// would elect the same holder). Not by a leader, and a write in between wins.
void tst_CoordinatedElection::aLapsedTermOfItsOwnIsHandedBack()
{
    {
        Harness h([](LeaderElectionConfig &c) { c.coordinated = true; });
        LeaderElectionRecord mine = coordinated(QStringLiteral("baz"));
        mine.preferredHolder = QStringLiteral("bing");
        h.lock->stored = mine;
        h.seedObserved(mine, h.clock.now() - 20s);
        QVERIFY(!h.tryCoordinatedRenew());
        QCOMPARE(h.lock->ops, (QStringList {QStringLiteral("get"), QStringLiteral("update")}));
        QCOMPARE(h.lock->stored->holderIdentity, QString());
        QCOMPARE(h.lock->stored->leaseDurationSeconds, 1);
        QCOMPARE(h.lock->stored->leaderTransitions, 3);
        QCOMPARE(h.lock->stored->strategy, mine.strategy);
        QCOMPARE(h.lock->stored->preferredHolder, QStringLiteral("bing"));
        QCOMPARE(h.observed().holderIdentity, QString());
        // Released: the next try finds no holder and writes nothing.
        QVERIFY(!h.tryCoordinatedRenew());
        QCOMPARE(h.lock->ops.count(QStringLiteral("update")), 1);
    }
    {
        // Not yet expired as observed (15 s from the observation): left alone.
        Harness h([](LeaderElectionConfig &c) { c.coordinated = true; });
        LeaderElectionRecord mine = coordinated(QStringLiteral("baz"));
        mine.preferredHolder = QStringLiteral("bing");
        h.lock->stored = mine;
        h.seedObserved(mine, h.clock.now() - 14s);
        QVERIFY(!h.tryCoordinatedRenew());
        QCOMPARE(h.lock->ops, QStringList {QStringLiteral("get")});
    }
    {
        // A leader does not release a term in its hands; its deadline ends it first.
        Harness h([](LeaderElectionConfig &c) { c.coordinated = true; });
        const LeaderElectionRecord mine = coordinated(QStringLiteral("baz"));
        h.lock->stored = mine;
        h.seedObserved(mine, h.clock.now() - 20s);
        h.setLeading(true);
        QVERIFY(!h.tryCoordinatedRenew());
        QCOMPARE(h.lock->ops, QStringList {QStringLiteral("get")});
        h.setLeading(false);
    }
    {
        // The controller wrote between the read and the release: the release conflicts.
        Harness h([](LeaderElectionConfig &c) { c.coordinated = true; });
        const LeaderElectionRecord mine = coordinated(QStringLiteral("baz"));
        h.lock->stored = mine;
        h.seedObserved(mine, h.clock.now() - 20s);
        LeaderElectionRecord again = mine;
        again.renewTime = mine.renewTime.addSecs(30);
        h.lock->onUpdate
            = [&h, again](int, const LeaderElectionRecord &) -> std::optional<WriteResult> {
            h.lock->writeByOther(again);
            return std::nullopt; // the store's answer: a conflict
        };
        QVERIFY(!h.tryCoordinatedRenew());
        QCOMPARE(*h.lock->stored, again);
    }
}

void tst_CoordinatedElection::anEndedTermIsNotRenewed()
{
    Harness h([](LeaderElectionConfig &c) { c.coordinated = true; });
    LeaderElectionRecord ended = coordinated(QStringLiteral("baz"));
    ended.preferredHolder = QStringLiteral("bing");
    h.lock->stored = ended;
    h.seedObserved(ended, h.clock.now());
    QVERIFY(!h.tryCoordinatedRenew());
    QCOMPARE(h.lock->ops, QStringList {QStringLiteral("get")});
    QCOMPARE(*h.lock->stored, ended);
}

// Through run(): a candidate until the controller names it, then the leader, renewing; once
// the controller marks the term ended it renews no more, and steps down at renewDeadline.
void tst_CoordinatedElection::followsTheHolderTheControllerWrites()
{
    Harness h([](LeaderElectionConfig &c) { c.coordinated = true; });
    h.lock->stored = coordinated(QStringLiteral("bing"));
    h.elector->run();
    settle();
    for (int i = 0; i < 5; ++i)
        h.advance(2200ms);
    QVERIFY(!h.signalsSeen.contains(QStringLiteral("started")));
    QCOMPARE(h.lock->ops.count(QStringLiteral("update")), 0);

    LeaderElectionRecord given = coordinated(QStringLiteral("baz"));
    given.renewTime = given.renewTime.addSecs(60);
    h.lock->writeByOther(given); // the election controller picks this candidate
    h.advance(2200ms);
    QVERIFY(h.signalsSeen.contains(QStringLiteral("started")));
    QVERIFY(h.elector->isLeader());
    h.advance(1s);
    h.advance(1s);
    QVERIFY(h.lock->ops.count(QStringLiteral("update")) >= 2);
    QCOMPARE(h.lock->stored->strategy, given.strategy);

    LeaderElectionRecord ended = *h.lock->stored;
    ended.preferredHolder = QStringLiteral("bing");
    h.lock->writeByOther(ended);
    const int updates = int(h.lock->ops.count(QStringLiteral("update")));
    for (int i = 0; i < 4 && h.elector->isLeader(); ++i)
        h.advance(1s);
    QVERIFY(!h.elector->isLeader());
    QVERIFY(h.signalsSeen.contains(QStringLiteral("stopped")));
    QCOMPARE(int(h.lock->ops.count(QStringLiteral("update"))), updates);
    QCOMPARE(h.lock->stored->preferredHolder, QStringLiteral("bing"));
    h.elector->stop();
    settle();
}

// Through run(), the stall the hand-back ends: the term is marked ended, the leader steps
// down, and the controller would elect it again, so it leaves the lapsed Lease as it is. The
// candidate releases it once it lapsed as observed; the controller names it again (without
// preferredHolder), and it leads a second term.
void tst_CoordinatedElection::leadsAgainAfterHandingBackItsEndedTerm()
{
    Harness h([](LeaderElectionConfig &c) {
        c.coordinated = true;
        c.mode = LeaderElectionConfig::Mode::Rejoin;
    });
    LeaderElectionRecord given = coordinated(QStringLiteral("baz"));
    given.renewTime = QDateTime::currentDateTimeUtc();
    h.lock->stored = given;
    h.elector->run();
    settle();
    QVERIFY(h.elector->isLeader());

    LeaderElectionRecord ended = *h.lock->stored;
    ended.preferredHolder = QStringLiteral("ghost");
    h.lock->writeByOther(ended);
    for (int i = 0; i < 4 && h.elector->isLeader(); ++i)
        h.advance(1s);
    QVERIFY(!h.elector->isLeader());
    QCOMPARE(h.lock->stored->holderIdentity, QStringLiteral("baz")); // lapsing, not released
    for (int i = 0; i < 10; ++i)
        h.advance(1s);
    QCOMPARE(h.lock->stored->holderIdentity, QStringLiteral("baz")); // 15 s not yet over
    for (int i = 0; i < 10 && !h.lock->stored->holderIdentity.isEmpty(); ++i)
        h.advance(1s);
    QCOMPARE(h.lock->stored->holderIdentity, QString());
    QCOMPARE(h.signalsSeen.count(QStringLiteral("started")), 1);

    LeaderElectionRecord again = given; // the controller: holder written, preferredHolder gone
    again.renewTime = QDateTime::currentDateTimeUtc();
    h.lock->writeByOther(again);
    for (int i = 0; i < 3 && !h.elector->isLeader(); ++i)
        h.advance(1s);
    QVERIFY(h.elector->isLeader());
    QCOMPARE(h.signalsSeen.count(QStringLiteral("started")), 2);
    h.elector->stop();
    settle();
}

QTEST_MAIN(tst_CoordinatedElection)
#include "tst_coordinatedcandidate.moc"
