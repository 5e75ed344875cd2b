// SPDX-License-Identifier: Apache-2.0
// e2e: sharding::RingLease on the real apiserver. A leader (its LeaderToken from a real
// LeaderElector) writes an epoch only after the alive members have differed from the epoch's
// list for the dwell, and a flap shorter than the dwell writes nothing; a follower reads every
// epoch and never writes; numbers grow past the highest ack; an annotation edited into
// garbage (kubectl annotate) is ignored by readers and written over by the leader; each epoch
// names the one it was written over; a number written again with another id is ignored by
// readers, and an ack of it makes the leader write the next epoch; a member known gone leaves
// without a dwell; a leader whose term has ended writes nothing.
#include "shardingsupport.h"

#include <qcm/client/restclient.h>
#include <qcm/sharding/ringlease.h>

#include <QtCore/QElapsedTimer>
#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::client;
using namespace qcm::sharding;
using namespace qcm::e2e;
using namespace std::chrono_literals;

namespace {

struct Reader
{
    Reader(const QString &group, const QString &ns)
        : rest(clusterConfig(QStringLiteral("admin"))), informers(&rest, Duration(0))
    {
        auto created = RingLease::create({group, ns, &rest, &informers, 1s, nullptr});
        if (!created)
            qFatal("%s", qPrintable(created.error().toString()));
        ring = std::move(*created);
        QObject::connect(ring.get(), &RingLease::epochWritten, ring.get(),
            [this](const Epoch &e) { written.append(e); });
        QObject::connect(ring.get(), &RingLease::epochChanged, ring.get(),
            [this](const Epoch &e) { seen.append(e); });
        ring->start();
    }

    RestClient rest;
    cache::SharedInformerFactory informers;
    std::unique_ptr<RingLease> ring;
    QList<Epoch> written;
    QList<Epoch> seen;
};

// Incarnations of `names`, each in term 1.
QStringList ids(std::initializer_list<const char *> names)
{
    QStringList result;
    for (const char *n : names)
        result.append(incarnation(QString::fromLatin1(n), u"1"));
    return result;
}

} // namespace

class tst_RingLease : public QObject
{
    Q_OBJECT

private slots:
    void aLeaderWritesEpochsAndReadersFollow();
};

void tst_RingLease::aLeaderWritesEpochsAndReadersFollow()
{
    RestClient admin(clusterConfig(QStringLiteral("admin")));
    const QString ns = createNamespace(admin, QStringLiteral("ringlease"));
    const QString group = QStringLiteral("r%1").arg(QDateTime::currentMSecsSinceEpoch() % 100000);

    // The group's leader: a real term.
    auto elector = groupLeader(admin, ns, group, QStringLiteral("qcm-a"));
    QTRY_VERIFY_WITH_TIMEOUT(elector->isLeader(), 10000);

    Reader leader(group, ns);
    Reader follower(group, ns);
    leader.ring->setLeader(elector->token());
    follower.ring->setMembers(ids({"x"}), {}); // a follower never writes

    // The first epoch: only after the dwell (1 s).
    QElapsedTimer dwell;
    dwell.start();
    leader.ring->setMembers(ids({"qcm-b", "qcm-a"}), {});
    QTRY_COMPARE_WITH_TIMEOUT(leader.written.size(), 1, 10000);
    QVERIFY2(dwell.elapsed() >= 900, qPrintable(QString::number(dwell.elapsed())));
    QCOMPARE(leader.written[0].number, quint64(1));
    QCOMPARE(leader.written[0].members, ids({"qcm-a", "qcm-b"}));
    QVERIFY(parseTerm(leader.written[0].id));
    QCOMPARE(leader.written[0].previous, QString()); // nothing read before
    QTRY_COMPARE_WITH_TIMEOUT(follower.ring->epoch(), leader.written[0], 10000);
    QString out;
    QVERIFY(
        kubectl({QStringLiteral("get"), QStringLiteral("lease"), QStringLiteral("-n"), ns,
                    RingLease::leaseName(group), QStringLiteral("-o"),
                    QStringLiteral("jsonpath={.metadata.annotations.scale-out\\.qcm\\.io/epoch}")},
            &out));
    QCOMPARE(out.trimmed(),
        QStringLiteral(R"({"id":"%1","members":["qcm-a/1","qcm-b/1"],"number":1})")
            .arg(leader.written[0].id));

    // A flap shorter than the dwell writes nothing.
    leader.ring->setMembers(ids({"qcm-a"}), {});
    QTest::qWait(300);
    leader.ring->setMembers(ids({"qcm-a", "qcm-b"}), {});
    QTest::qWait(1500);
    QCOMPARE(leader.written.size(), 1);

    // Numbers grow past the highest ack.
    leader.ring->setMembers(ids({"qcm-a", "qcm-b", "qcm-c"}), {Ack {7, QStringLiteral("77")}});
    QTRY_COMPARE_WITH_TIMEOUT(leader.written.size(), 2, 10000);
    QCOMPARE(leader.written[1].number, quint64(8));
    QCOMPARE(leader.written[1].previous, leader.written[0].id); // written over epoch 1
    QTRY_COMPARE_WITH_TIMEOUT(follower.ring->epoch().number, quint64(8), 10000);

    // Garbage edited in: readers keep epoch 8, and the leader writes 9 over it.
    QVERIFY(kubectl({QStringLiteral("annotate"), QStringLiteral("--overwrite"),
        QStringLiteral("-n"), ns, QStringLiteral("lease"), RingLease::leaseName(group),
        QStringLiteral("scale-out.qcm.io/epoch={")}));
    leader.ring->setMembers(ids({"qcm-a", "qcm-c"}), {});
    QTRY_COMPARE_WITH_TIMEOUT(leader.written.size(), 3, 10000);
    QCOMPARE(leader.written[2].number, quint64(9));
    QCOMPARE(leader.written[2].members, ids({"qcm-a", "qcm-c"}));
    QCOMPARE(leader.written[2].previous, leader.written[1].id);
    QTRY_COMPARE_WITH_TIMEOUT(follower.ring->epoch().number, quint64(9), 10000);
    for (const Epoch &e : std::as_const(follower.seen)) // never went back, never garbage
        QVERIFY(e.number == 1 || e.number == 8 || e.number == 9);
    QVERIFY(follower.written.isEmpty());

    // Epoch 9 written again with another id (as after the annotation was lost): readers keep
    // the one they read. A member's ack of that other 9 is an epoch the leader has not read:
    // it writes 10 over its own 9, though the members are the same.
    const Epoch other = Epoch::make(9, ids({"qcm-c"}), QStringLiteral("abc"));
    QVERIFY(kubectl({QStringLiteral("annotate"), QStringLiteral("--overwrite"),
        QStringLiteral("-n"), ns, QStringLiteral("lease"), RingLease::leaseName(group),
        QStringLiteral("scale-out.qcm.io/epoch=") + QString::fromUtf8(other.toJson())}));
    QTest::qWait(1500);
    QCOMPARE(follower.ring->epoch(), leader.written[2]);
    QCOMPARE(leader.ring->epoch(), leader.written[2]);
    leader.ring->setMembers(ids({"qcm-a", "qcm-c"}), {Ack {9, QStringLiteral("abc")}});
    QTRY_COMPARE_WITH_TIMEOUT(leader.written.size(), 4, 10000);
    QCOMPARE(leader.written[3].number, quint64(10));
    QCOMPARE(leader.written[3].members, ids({"qcm-a", "qcm-c"}));
    QCOMPARE(leader.written[3].previous, leader.written[2].id);
    QTRY_COMPARE_WITH_TIMEOUT(follower.ring->epoch(), leader.written[3], 10000);

    // A member known gone (its Lease deleted, or expired and confirmed) leaves without a dwell.
    QElapsedTimer gone;
    gone.start();
    leader.ring->setMembers(ids({"qcm-a"}), {}, ids({"qcm-c"}));
    QTRY_COMPARE_WITH_TIMEOUT(leader.written.size(), 5, 10000);
    QVERIFY2(gone.elapsed() < 700, qPrintable(QString::number(gone.elapsed()))); // dwell: 1 s
    QCOMPARE(leader.written[4].members, ids({"qcm-a"}));

    // The term ends: no more writes.
    elector->stop();
    QVERIFY(!leader.ring->epoch().members.contains(QStringLiteral("qcm-d/1")));
    leader.ring->setMembers(ids({"qcm-a", "qcm-d"}), {});
    QTest::qWait(2500);
    QCOMPARE(leader.written.size(), 5);
}

QTEST_MAIN(tst_RingLease)
#include "tst_ringlease.moc"
