// SPDX-License-Identifier: Apache-2.0
// ShardGate: the handover rules one by one, then the invariant of docs/scale-out.md under a
// random schedule: members that read epochs late and skip some, see acks late, learn of their
// own acks late (the write is in flight while others already read it), crash, and join, while
// a leader writes arbitrary epochs, and come back under the same identity as a new
// incarnation. At no step do two members reconcile one key, and once the chaos stops every key
// has exactly one member that may start it.
#include <qcm/sharding/shardgate.h>

#include <QtCore/QRandomGenerator>
#include <QtCore/QSet>
#include <QtTest/QtTest>

using namespace qcm::sharding;

class tst_ShardGate : public QObject
{
    Q_OBJECT

private slots:
    void nothingStartsBeforeTheFirstBarrier();
    void aGainedKeyWaitsForTheBarrier();
    void aLostKeyIsDrainedBeforeTheAck();
    void goneMembersAreSkipped();
    void anEpochSkippedOrNotYetAckedStillCounts();
    void aReturningMemberServesOnlyEpochsOfItsIncarnation();
    void aNumberWrittenTwiceIsToldApartByItsId();
    void noKeyRunsTwiceUnderARandomSchedule_data();
    void noKeyRunsTwiceUnderARandomSchedule();
};

namespace {

QStringList keys(int n)
{
    QStringList result;
    for (int i = 0; i < n; ++i)
        result.append(QStringLiteral("ns/key-%1").arg(i));
    return result;
}

// A key `member` owns in a ring of `members` and `other` does not own in `otherMembers`.
QString keyMoving(
    const QStringList &from, const QString &member, const QStringList &to, const QString &other)
{
    const HashRing a(from);
    const HashRing b(to);
    for (const QString &k : keys(1000))
        if (a.owner(k) == member && b.owner(k) == other)
            return k;
    return {};
}

} // namespace

void tst_ShardGate::nothingStartsBeforeTheFirstBarrier()
{
    ShardGate a(QStringLiteral("a"));
    const Epoch e1 = Epoch::make(1, {QStringLiteral("a"), QStringLiteral("b")});
    a.setEpoch(e1);
    QCOMPARE(a.pendingAck(), std::optional<quint64>(1)); // nothing in flight: at once
    const QString k = keyMoving(e1.members, QStringLiteral("a"), e1.members, QStringLiteral("a"));
    QVERIFY(a.owns(k));
    QVERIFY(!a.mayStart(k));
    a.acknowledged(1);
    QCOMPARE(a.servingEpoch(), quint64(1));
    a.setGroup({{QStringLiteral("a"), 1}}, {QStringLiteral("a"), QStringLiteral("b")}, {});
    QVERIFY(!a.mayStart(k)); // b has not acked
    QCOMPARE(a.baseEpoch(), quint64(0));
    a.setGroup({{QStringLiteral("a"), 1}, {QStringLiteral("b"), 1}},
        {QStringLiteral("a"), QStringLiteral("b")}, {});
    QCOMPARE(a.baseEpoch(), quint64(1));
    QVERIFY(a.mayStart(k));
}

void tst_ShardGate::aGainedKeyWaitsForTheBarrier()
{
    const QStringList ab {QStringLiteral("a"), QStringLiteral("b")};
    const QStringList abc {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")};
    ShardGate c(QStringLiteral("c"));
    // c joins: epoch 1 without it, epoch 2 with it.
    c.setEpoch(Epoch::make(1, ab));
    c.acknowledged(1);
    c.setGroup(
        {{QStringLiteral("a"), 1}, {QStringLiteral("b"), 1}, {QStringLiteral("c"), 1}}, abc, {});
    QCOMPARE(c.baseEpoch(), quint64(1));
    c.setEpoch(Epoch::make(2, abc));
    c.acknowledged(*c.pendingAck());
    const QString gained = keyMoving(ab, QStringLiteral("a"), abc, QStringLiteral("c"));
    QVERIFY(!gained.isEmpty());
    QVERIFY(c.owns(gained));
    QVERIFY(!c.mayStart(gained)); // a may still be running it
    c.setGroup(
        {{QStringLiteral("a"), 2}, {QStringLiteral("b"), 1}, {QStringLiteral("c"), 2}}, abc, {});
    QVERIFY(!c.mayStart(gained)); // b too must have entered epoch 2
    c.setGroup(
        {{QStringLiteral("a"), 2}, {QStringLiteral("b"), 2}, {QStringLiteral("c"), 2}}, abc, {});
    QVERIFY(c.mayStart(gained));
}

void tst_ShardGate::aLostKeyIsDrainedBeforeTheAck()
{
    const QStringList ab {QStringLiteral("a"), QStringLiteral("b")};
    const QStringList abc {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")};
    ShardGate a(QStringLiteral("a"));
    a.setEpoch(Epoch::make(1, ab));
    a.acknowledged(1);
    a.setGroup({{QStringLiteral("a"), 1}, {QStringLiteral("b"), 1}}, ab, {});
    const QString lost = keyMoving(ab, QStringLiteral("a"), abc, QStringLiteral("c"));
    const QString kept = keyMoving(ab, QStringLiteral("a"), abc, QStringLiteral("a"));
    QVERIFY(a.mayStart(lost));
    a.started(lost);
    a.setEpoch(Epoch::make(2, abc));
    QVERIFY(!a.mayStart(lost)); // lost in the epoch read: it does not start again
    QVERIFY(!a.owns(lost));
    QVERIFY(a.mayStart(kept)); // kept: it goes on, before and after the ack
    QCOMPARE(a.inFlightLost(), QStringList {lost});
    QVERIFY(!a.pendingAck()); // the lost key is still running
    a.finished(lost);
    QCOMPARE(a.pendingAck(), std::optional<quint64>(2));
    a.acknowledged(2);
    QVERIFY(a.mayStart(kept)); // no wait for epoch 2's barrier: kept since the base
    QVERIFY(!a.mayStart(lost));
}

void tst_ShardGate::goneMembersAreSkipped()
{
    const QStringList abc {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")};
    const QStringList ab {QStringLiteral("a"), QStringLiteral("b")};
    ShardGate a(QStringLiteral("a"));
    a.setEpoch(Epoch::make(1, abc));
    a.acknowledged(1);
    const QHash<QString, quint64> acks {{QStringLiteral("a"), 1}, {QStringLiteral("b"), 1}};
    a.setGroup(acks, ab, {}); // c is listed, not acked, not known gone: wait
    QCOMPARE(a.baseEpoch(), quint64(0));
    a.setGroup(acks, ab, {QStringLiteral("c")}); // c's Lease expired (confirmed) or deleted
    QCOMPARE(a.baseEpoch(), quint64(1));
    // An alive member outside the epoch's list is waited for too (it may hold older keys).
    ShardGate b(QStringLiteral("b"));
    b.setEpoch(Epoch::make(1, ab));
    b.acknowledged(1);
    b.setGroup(acks, abc, {});
    QCOMPARE(b.baseEpoch(), quint64(0));
}

// Found in review of the first gate, which kept only the epochs it had acknowledged: X owns k
// in e1; e2 drops X (a leader's lagging view); Y acks e2 and waits for its barrier. X reads e3
// (X back) without having entered e2. Y counts X's ack of 3 as X having gone through e2, so X
// must not treat k as kept since e1.
void tst_ShardGate::anEpochSkippedOrNotYetAckedStillCounts()
{
    const QString x = QStringLiteral("x");
    const QString y = QStringLiteral("y");
    const Epoch e1 = Epoch::make(1, {x, y});
    const Epoch e2 = Epoch::make(2, {y});
    const Epoch e3 = Epoch::make(3, {x, y});
    const QString k = keyMoving(e1.members, x, e3.members, x); // X's in e1 and e3
    const auto serveFirst = [&](ShardGate &g) {
        g.setEpoch(e1);
        g.acknowledged(*g.pendingAck());
        g.setGroup({{x, 1}, {y, 1}}, {x, y}, {});
        QCOMPARE(g.baseEpoch(), quint64(1));
    };
    // X skips e2.
    {
        ShardGate gx(x);
        serveFirst(gx);
        QVERIFY(gx.mayStart(k));
        gx.started(k);
        gx.setEpoch(e3); // a gap
        QVERIFY(!gx.mayStart(k));
        QVERIFY(!gx.pendingAck()); // not while k runs
        gx.finished(k);
        QCOMPARE(gx.pendingAck(), std::optional<quint64>(3));
        gx.acknowledged(3);
        gx.setGroup({{x, 3}, {y, 2}}, {x, y}, {});
        QVERIFY(!gx.mayStart(k)); // e3's barrier needs Y's ack of 3
        // Y, meanwhile, serving e2 with k gained: X's ack of 3 is newer than e2, so e2's
        // barrier does not pass; Y reads e3 first, where k is not Y's.
        ShardGate gy(y);
        serveFirst(gy);
        gy.setEpoch(e2);
        gy.acknowledged(*gy.pendingAck());
        gy.setGroup({{x, 3}, {y, 2}}, {x, y}, {});
        QVERIFY(!gy.mayStart(k));
        gy.setEpoch(e3);
        gy.acknowledged(*gy.pendingAck());
        gy.setGroup({{x, 3}, {y, 3}}, {x, y}, {});
        QVERIFY(!gy.mayStart(k));
        gx.setGroup({{x, 3}, {y, 3}}, {x, y}, {});
        QVERIFY(gx.mayStart(k)); // now X's again, after everyone entered e3
    }
    // X reads e2 and e3 before its ack of e2 returns: e2 stays in its chain.
    {
        ShardGate gx(x);
        serveFirst(gx);
        gx.setEpoch(e2);
        QVERIFY(!gx.mayStart(k)); // lost in e2
        gx.setEpoch(e3);
        QVERIFY(!gx.mayStart(k)); // still: e2 is in the chain
        QVERIFY(gx.acknowledged(2)); // the earlier ack returns late: not thrown away
        QCOMPARE(gx.servingEpoch(), quint64(2));
        QVERIFY(!gx.acknowledged(2));
        gx.acknowledged(*gx.pendingAck());
        QCOMPARE(gx.servingEpoch(), quint64(3));
        gx.setGroup({{x, 3}, {y, 3}}, {x, y}, {});
        QCOMPARE(gx.baseEpoch(), quint64(3));
        QVERIFY(gx.mayStart(k));
    }
}

// The known gap of the first gate (docs/scale-out.md): X pauses past its lease; Y counts it
// gone, enters e2 without it and starts X's key. X comes back under its identity, reads the
// stale e1 and sees acks from before e2. Served as before, e1's barrier would pass (every ack
// of e1 is there, no newer one seen) and X would start the key Y runs. As a new incarnation,
// X does not serve e1 (it lists X's earlier incarnation): it starts nothing until an epoch
// that lists it, or none of its identity, has passed its barrier.
void tst_ShardGate::aReturningMemberServesOnlyEpochsOfItsIncarnation()
{
    const QString x1 = QStringLiteral("x/1");
    const QString x2 = QStringLiteral("x/2");
    const QString y = QStringLiteral("y/1");
    const Epoch e1 = Epoch::make(1, {x1, y});
    const Epoch e2 = Epoch::make(2, {y});
    const Epoch e3 = Epoch::make(3, {x2, y});
    const QString k = keyMoving({QStringLiteral("x"), QStringLiteral("y")}, QStringLiteral("x"),
        {QStringLiteral("x"), QStringLiteral("y")}, QStringLiteral("x"));
    QVERIFY(!k.isEmpty());
    ShardGate gx(x1);
    gx.setEpoch(e1);
    gx.acknowledged(*gx.pendingAck());
    gx.setGroup({{x1, 1}, {y, 1}}, {x1, y}, {});
    QVERIFY(gx.mayStart(k));
    // Y's side: x/1 is gone; e2 gives Y the key.
    ShardGate gy(y);
    gy.setEpoch(e1);
    gy.acknowledged(*gy.pendingAck());
    gy.setEpoch(e2);
    gy.acknowledged(*gy.pendingAck());
    gy.setGroup({{x1, 1}, {y, 2}}, {y}, {x1});
    QVERIFY(gy.mayStart(k));
    gy.started(k);
    // X's new term: a new incarnation, reading e1 again with a view from before e2.
    gx.reset(x2);
    gx.setEpoch(e1);
    gx.setGroup({{x1, 1}, {y, 1}}, {x1, y}, {});
    QVERIFY(!gx.pendingAck()); // e1 is not served: nothing to ack
    QVERIFY(!gx.mayStart(k));
    QCOMPARE(gx.targetEpoch(), quint64(0));
    // e2 does not list X: it owns nothing there, and acks at once.
    gx.setEpoch(e2);
    QCOMPARE(gx.pendingAck(), std::optional<quint64>(2));
    gx.acknowledged(2);
    gx.setGroup({{x2, 2}, {y, 2}}, {x2, y}, {x1});
    QVERIFY(!gx.mayStart(k));
    // e3 lists x/2: the key comes back only after Y entered e3 (and so stopped it).
    gx.setEpoch(e3);
    gx.acknowledged(*gx.pendingAck());
    gx.setGroup({{x2, 3}, {y, 2}}, {x2, y}, {x1});
    QVERIFY(!gx.mayStart(k));
    gy.setEpoch(e3);
    QVERIFY(!gy.pendingAck()); // Y still runs k
    gy.finished(k);
    gy.acknowledged(*gy.pendingAck());
    gx.setGroup({{x2, 3}, {y, 3}}, {x2, y}, {x1});
    QVERIFY(gx.mayStart(k));
    // An epoch that lists x/1 after x/2's was served (a new leader with a lagging view) is
    // skipped too, and the next one counts as after a gap.
    gx.setEpoch(Epoch::make(4, {x1, y}));
    QCOMPARE(gx.targetEpoch(), quint64(3));
    QVERIFY(gx.mayStart(k));
    gx.setEpoch(Epoch::make(5, {x2, y}));
    QVERIFY(!gx.mayStart(k));
    QCOMPARE(gx.baseEpoch(), quint64(0));
}

// The ring annotation is lost after epoch 2 (id x) was read by A, and a new leader writes
// another epoch 2 (id y) over nothing, which B reads. Numbers alone would let A count B's ack
// of 2 as an ack of its 2, and the other way round. With ids: B sees that its 2 does not
// follow the 1 it read (a gap: it starts again from nothing), and neither barrier passes on the
// other's ack. The next epoch, written over 2y, is a gap for A: both hand over from nothing.
void tst_ShardGate::aNumberWrittenTwiceIsToldApartByItsId()
{
    const QString a = QStringLiteral("a/1");
    const QString b = QStringLiteral("b/1");
    const QString c = QStringLiteral("c/1");
    const Epoch e1 = Epoch::make(1, {a, b}, QStringLiteral("e1"));
    const Epoch e2x = Epoch::make(2, {a, c}, QStringLiteral("e2x"), QStringLiteral("e1"));
    const Epoch e2y = Epoch::make(2, {b, c}, QStringLiteral("e2y"));
    const Epoch e3 = Epoch::make(3, {a, b, c}, QStringLiteral("e3"), QStringLiteral("e2y"));
    const auto ack = [](quint64 n, const char *id) { return Ack {n, QLatin1String(id)}; };
    ShardGate ga(a);
    ShardGate gb(b);
    for (ShardGate *g : {&ga, &gb}) {
        g->setEpoch(e1);
        QVERIFY(g->acknowledged(*g->pendingAck()));
        QCOMPARE(g->ackOf(1), ack(1, "e1"));
        g->setGroup({{a, ack(1, "e1")}, {b, ack(1, "e1")}}, {a, b}, {});
        QCOMPARE(g->baseEpoch(), quint64(1));
    }
    ga.setEpoch(e2x);
    ga.acknowledged(*ga.pendingAck());
    QCOMPARE(ga.ackOf(2), ack(2, "e2x"));
    gb.setEpoch(e2y); // previous is not e1: a gap
    QCOMPARE(gb.baseEpoch(), quint64(0));
    gb.acknowledged(*gb.pendingAck());
    QCOMPARE(gb.ackOf(2), ack(2, "e2y"));
    // c acks whichever 2 it read; every view has both acks of 2.
    for (const Ack &cAck : {ack(2, "e2x"), ack(2, "e2y")}) {
        const QHash<QString, Ack> acks {{a, ack(2, "e2x")}, {b, ack(2, "e2y")}, {c, cAck}};
        ga.setGroup(acks, {a, b, c}, {});
        gb.setGroup(acks, {a, b, c}, {});
        QCOMPARE(ga.baseEpoch(), quint64(1)); // 2x does not pass
        QCOMPARE(gb.baseEpoch(), quint64(0)); // nor 2y
    }
    // The next epoch is written over 2y: for A, a gap.
    ga.setEpoch(e3);
    gb.setEpoch(e3);
    QCOMPARE(ga.baseEpoch(), quint64(0));
    ga.acknowledged(*ga.pendingAck());
    gb.acknowledged(*gb.pendingAck());
    const QHash<QString, Ack> acks {{a, ack(3, "e3")}, {b, ack(3, "e3")}, {c, ack(3, "e3")}};
    ga.setGroup(acks, {a, b, c}, {});
    gb.setGroup(acks, {a, b, c}, {});
    QCOMPARE(ga.baseEpoch(), quint64(3));
    QCOMPARE(gb.baseEpoch(), quint64(3));
    for (const QString &k : keys(200))
        QVERIFY(!(ga.mayStart(k) && gb.mayStart(k)));
    // A member that died with an ack of the other 2 (or of anything newer) holds nothing up
    // once it is known gone: it runs nothing.
    ShardGate gc(c);
    gc.setEpoch(e2y);
    gc.acknowledged(*gc.pendingAck());
    gc.setEpoch(e3);
    gc.acknowledged(*gc.pendingAck());
    const QString dead = QStringLiteral("d/1");
    QHash<QString, Ack> withDead = acks;
    withDead.insert(dead, ack(3, "other"));
    gc.setGroup(withDead, {a, b, c}, {});
    QCOMPARE(gc.baseEpoch(), quint64(0)); // not known gone yet: it may run keys of its 3
    gc.setGroup(withDead, {a, b, c}, {dead});
    QCOMPARE(gc.baseEpoch(), quint64(3));
}

void tst_ShardGate::noKeyRunsTwiceUnderARandomSchedule_data()
{
    QTest::addColumn<quint32>("seed");
    for (quint32 seed = 1; seed <= 100; ++seed)
        QTest::newRow(qPrintable(QStringLiteral("seed %1").arg(seed))) << seed;
}

void tst_ShardGate::noKeyRunsTwiceUnderARandomSchedule()
{
    QFETCH(quint32, seed);
    QRandomGenerator random(seed);
    const QStringList allKeys = keys(40);
    struct Member
    {
        QString id; // the identity
        QString inc; // the current incarnation, id/term
        std::unique_ptr<ShardGate> gate;
        bool dead = false;
        bool paused = false; // its term is over; it comes back as a new incarnation
        QSet<QString> inFlight;
        qsizetype epochsRead = 0;
        QList<quint64> acksInFlight; // written (others may see them), not yet told the gate
        QSet<QString> seen; // incarnations this member has seen (the watch lags on new ones)
        qsizetype acksSeen = 0; // the index in ackHistory its view has reached
    };
    std::vector<Member> members;
    QList<Epoch> epochs;
    QHash<QString, quint64> acks; // by incarnation, as written
    // Every state `acks` went through: a view is one of them, never going back, maybe old.
    QList<QHash<QString, quint64>> ackHistory {acks};
    QStringList incarnations; // every incarnation there ever was
    QSet<QString> ended; // incarnations whose term is over: the dead and the replaced
    int nextId = 0;
    int nextTerm = 0;
    const auto newIncarnation = [&](const QString &id) {
        const QString inc = id + QStringLiteral("/%1").arg(nextTerm++, 0, 16);
        incarnations.append(inc);
        return inc;
    };
    const auto join = [&] {
        const QString id = QStringLiteral("m%1").arg(nextId++);
        const QString inc = newIncarnation(id);
        Member m;
        m.id = id;
        m.inc = inc;
        m.gate = std::make_unique<ShardGate>(inc, 20);
        members.push_back(std::move(m));
    };
    const auto live = [&] {
        std::vector<Member *> result;
        for (Member &m : members)
            if (!m.dead && !m.paused)
                result.push_back(&m);
        return result;
    };
    const auto anyLive = [&]() -> Member & {
        auto l = live();
        return *l[random.bounded(int(l.size()))];
    };
    const auto refresh = [&](Member &m, bool everything) {
        QStringList alive, gone;
        for (const Member &o : members) {
            // A live incarnation, once seen, is always seen alive; a new one maybe not yet.
            if (!o.dead && !o.paused
                && (everything || m.seen.contains(o.inc) || random.bounded(2))) {
                m.seen.insert(o.inc);
                alive.append(o.inc);
            }
        }
        for (const QString &inc : std::as_const(ended))
            if (everything || random.bounded(2))
                gone.append(inc); // only ended incarnations are ever seen gone
        const qsizetype latest = ackHistory.size() - 1;
        m.acksSeen
            = everything ? latest : m.acksSeen + random.bounded(int(latest - m.acksSeen + 1));
        m.gate->setGroup(ackHistory[m.acksSeen], alive, gone);
    };
    for (int i = 0; i < 3; ++i)
        join();
    int starts = 0;
    for (int step = 0; step < 20000; ++step) {
        // Weights: epochs, crashes and pauses are rare next to reads, acks and reconciles, so
        // that barriers pass and handovers happen while reconciles are in flight.
        const int roll = int(random.bounded(1000));
        const int action = roll < 10 ? 0
            : roll < 160             ? 1
            : roll < 310             ? 2
            : roll < 400             ? 3
            : roll < 460             ? 5
            : roll < 760             ? 4
            : roll < 992             ? 6
            : roll < 994             ? 7
            : roll < 998             ? 9
                                     : 8;
        switch (action) {
        case 0: { // the leader writes an epoch: any non-empty set of incarnations
            // Mostly the live members, as a leader sees them; sometimes any set at all, ended
            // incarnations too (a leader's view may lag, and safety must not depend on the
            // epoch's content).
            const bool noise = random.bounded(4) == 0;
            QStringList list;
            if (noise) {
                for (const QString &inc : std::as_const(incarnations))
                    if (random.bounded(3) == 0)
                        list.append(inc);
            } else {
                for (const Member &m : members)
                    if (!m.dead && !m.paused)
                        list.append(m.inc);
            }
            if (list.isEmpty())
                list.append(members[random.bounded(int(members.size()))].inc);
            epochs.append(Epoch::make(quint64(epochs.size() + 1), list));
            break;
        }
        case 1: { // a member reads a newer epoch, maybe skipping some
            Member &m = anyLive();
            if (m.epochsRead < epochs.size()) {
                m.epochsRead += 1 + random.bounded(int(epochs.size() - m.epochsRead));
                m.gate->setEpoch(epochs[m.epochsRead - 1]);
            }
            break;
        }
        case 2: // a member's view of the group (acks as written so far, or older)
            refresh(anyLive(), false);
            break;
        case 3: { // a member writes an ack; its gate learns of it later (case 5)
            Member &m = anyLive();
            if (const auto e = m.gate->pendingAck();
                e && (m.acksInFlight.isEmpty() || m.acksInFlight.last() < *e)) {
                acks[m.inc] = std::max(acks.value(m.inc), *e);
                ackHistory.append(acks);
                m.acksInFlight.append(*e);
            }
            break;
        }
        case 5: { // the write of an ack returns
            Member &m = anyLive();
            if (!m.acksInFlight.isEmpty())
                m.gate->acknowledged(m.acksInFlight.takeFirst());
            break;
        }
        case 4: { // a member starts a key
            Member &m = anyLive();
            const QString &k = allKeys[random.bounded(int(allKeys.size()))];
            if (m.inFlight.contains(k) || !m.gate->mayStart(k))
                break;
            for (const Member &o : members)
                QVERIFY2(o.dead || !o.inFlight.contains(k),
                    qPrintable(QStringLiteral("step %1: %2 starts %3 while %4 runs it")
                                   .arg(step)
                                   .arg(m.inc, k, o.inc)));
            m.inFlight.insert(k);
            m.gate->started(k);
            ++starts;
            break;
        }
        case 6: { // a reconcile ends
            Member &m = anyLive();
            if (!m.inFlight.isEmpty()) {
                const QString k = *m.inFlight.begin();
                m.inFlight.remove(k);
                m.gate->finished(k);
            }
            break;
        }
        case 7: // a crash (nothing of it runs any more); at least one member stays
            if (live().size() > 1) {
                Member &m = anyLive();
                m.dead = true;
                ended.insert(m.inc);
                m.inFlight.clear();
                m.acksInFlight.clear();
            }
            break;
        case 9: { // a pause past the lease, or the end of one
            std::vector<Member *> paused;
            for (Member &m : members)
                if (m.paused)
                    paused.push_back(&m);
            if (!paused.empty() && random.bounded(2)) {
                // Back under the same identity: a new term, a new incarnation, going on from
                // the newest epoch it had read (the others may have moved on meanwhile).
                Member &m = *paused[random.bounded(int(paused.size()))];
                m.paused = false;
                m.inc = newIncarnation(m.id);
                m.gate->reset(m.inc);
                if (m.epochsRead > 0)
                    m.gate->setEpoch(epochs[m.epochsRead - 1]);
            } else if (live().size() > 1) {
                // Its reconciles end (the leader term's limit: they are short next to the
                // lease); acks of the old term still in flight never reach the new term.
                Member &m = anyLive();
                for (const QString &k : std::as_const(m.inFlight))
                    m.gate->finished(k);
                m.inFlight.clear();
                m.acksInFlight.clear();
                m.paused = true;
                ended.insert(m.inc);
            }
            break;
        }
        case 8: // a replica starts (a new identity, as qcm's default identity is per process)
            if (members.size() < 12)
                join();
            break;
        }
    }
    QVERIFY2(starts > 1000, qPrintable(QString::number(starts))); // the schedule did work

    // The chaos stops: one epoch of the live members; every member reads it and acks once
    // its work is done; views catch up. Then each key has exactly one member that may start it.
    for (Member *m : live()) {
        for (const QString &k : std::as_const(m->inFlight))
            m->gate->finished(k);
        m->inFlight.clear();
    }
    QStringList liveIds;
    for (Member *m : live())
        liveIds.append(m->inc);
    const Epoch last = Epoch::make(quint64(epochs.size() + 1), liveIds);
    for (Member *m : live()) {
        for (const quint64 e : std::as_const(m->acksInFlight))
            m->gate->acknowledged(e);
        m->acksInFlight.clear();
        m->gate->setEpoch(last);
        const auto e = m->gate->pendingAck();
        QVERIFY(e);
        acks[m->inc] = *e;
        ackHistory.append(acks);
        m->gate->acknowledged(*e);
    }
    for (Member *m : live())
        refresh(*m, true);
    for (const QString &k : allKeys) {
        int may = 0;
        for (Member *m : live())
            may += m->gate->mayStart(k) ? 1 : 0;
        QVERIFY2(
            may == 1, qPrintable(QStringLiteral("%1: %2 members may start it").arg(k).arg(may)));
    }
}

QTEST_APPLESS_MAIN(tst_ShardGate)
#include "tst_shardgate.moc"
