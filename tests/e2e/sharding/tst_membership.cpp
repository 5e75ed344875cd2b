// SPDX-License-Identifier: Apache-2.0
// e2e: sharding::Membership on the real apiserver. Three members of one group in one process
// (each with its own RestClient and informers, as separate replicas have): each holds its own
// labelled Lease and a term, all see all three alive, acks written by one reach the others and
// never go down, a graceful leave deletes the Lease and the others drop the member well within
// leaseDuration, and a member that vanishes without leaving (its Lease left behind, as after
// SIGKILL) is dropped once leaseDuration has passed without a renewal. Both count as gone (for
// the barrier): the one that left, and the one whose expiry a fresh read confirmed.
#include "shardingsupport.h"

#include <qcm/client/restclient.h>
#include <qcm/sharding/membership.h>

#include <QtCore/QElapsedTimer>
#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::client;
using namespace qcm::sharding;
using namespace qcm::e2e;
using namespace std::chrono_literals;

namespace {

// One replica: its clients, informers and Membership.
struct Replica
{
    Replica(const QString &group, const QString &identity, const QString &ns)
        : rest(clusterConfig(QStringLiteral("admin"))), informers(&rest, Duration(0))
    {
        Membership::Config config;
        config.group = group;
        config.identity = identity;
        config.namespaceName = ns;
        config.client = &rest;
        config.informers = &informers;
        config.leaseDuration = TestLeaseDuration;
        config.renewDeadline = TestRenewDeadline;
        config.retryPeriod = TestRetryPeriod;
        auto created = Membership::create(config);
        if (!created)
            qFatal("%s", qPrintable(created.error().toString()));
        membership = std::move(*created);
        QObject::connect(membership.get(), &Membership::termStarted, membership.get(),
            [this](const leaderelection::LeaderToken &) { ++terms; });
    }

    RestClient rest;
    cache::SharedInformerFactory informers;
    std::unique_ptr<Membership> membership;
    int terms = 0;
};

} // namespace

class tst_Membership : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void aGroupSeesItsMembersAcksAndLeaves();
    void aBadGroupIsRefused();

private:
    QString m_ns;
};

void tst_Membership::initTestCase()
{
    RestClient admin(clusterConfig(QStringLiteral("admin")));
    m_ns = createNamespace(admin, QStringLiteral("membership"));
}

void tst_Membership::aGroupSeesItsMembersAcksAndLeaves()
{
    const QString group = QStringLiteral("g%1").arg(QDateTime::currentMSecsSinceEpoch() % 100000);
    std::vector<std::unique_ptr<Replica>> replicas;
    for (const char *id : {"qcm-a", "qcm-b", "qcm-c"}) {
        replicas.push_back(std::make_unique<Replica>(group, QLatin1String(id), m_ns));
        replicas.back()->membership->start();
    }
    const QStringList all {
        QStringLiteral("qcm-a"), QStringLiteral("qcm-b"), QStringLiteral("qcm-c")};
    for (auto &r : replicas) {
        QTRY_VERIFY_WITH_TIMEOUT(r->membership->term().isValid(), 15000);
        QTRY_COMPARE_WITH_TIMEOUT(r->membership->aliveMembers(), all, 15000);
    }
    // kubectl sees three Leases with the group's label, each held by its member.
    QString out;
    QVERIFY(kubectl({QStringLiteral("get"), QStringLiteral("leases"), QStringLiteral("-n"), m_ns,
                        QStringLiteral("-l"), Membership::GroupLabel + QLatin1Char('=') + group,
                        QStringLiteral("-o"),
                        QStringLiteral("jsonpath={range .items[*]}{.metadata.name}={.spec."
                                       "holderIdentity} {end}")},
        &out));
    QStringList leases = out.trimmed().split(QLatin1Char(' '));
    leases.sort();
    QStringList expected;
    for (const QString &id : all)
        expected.append(Membership::leaseName(group, id) + QLatin1Char('=') + id);
    expected.sort();
    QCOMPARE(leases, expected);

    // An ack reaches the others; a lower one is not written.
    Membership &a = *replicas[0]->membership;
    auto acked = a.acknowledge(5);
    QTRY_VERIFY(acked.isFinished());
    QVERIFY2(!acked.result(), qPrintable(acked.result() ? acked.result()->toString() : QString()));
    for (auto &r : replicas)
        QTRY_COMPARE_WITH_TIMEOUT(
            r->membership->acks().value(QStringLiteral("qcm-a")), quint64(5), 10000);
    auto lower = a.acknowledge(3);
    QTRY_VERIFY(lower.isFinished());
    QTest::qWait(1500); // renewals go on meanwhile
    QCOMPARE(replicas[1]->membership->acks().value(QStringLiteral("qcm-a")), quint64(5));
    QVERIFY(
        kubectl({QStringLiteral("get"), QStringLiteral("lease"), QStringLiteral("-n"), m_ns,
                    Membership::leaseName(group, QStringLiteral("qcm-a")), QStringLiteral("-o"),
                    QStringLiteral("jsonpath={.metadata.annotations.scale-out\\.qcm\\.io/ack}")},
            &out));
    QCOMPARE(out.trimmed(), QStringLiteral("5")); // the renewals kept the annotation

    // A graceful leave: the Lease is deleted, and the others drop c long before its lease
    // would have run out.
    const QStringList ab {QStringLiteral("qcm-a"), QStringLiteral("qcm-b")};
    QElapsedTimer leave;
    leave.start();
    auto stopped = replicas[2]->membership->stop();
    QVERIFY(!replicas[2]->membership->term().isValid());
    QTRY_VERIFY(stopped.isFinished());
    QVERIFY(!stopped.result());
    QTRY_COMPARE_WITH_TIMEOUT(replicas[0]->membership->aliveMembers(), ab, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(replicas[1]->membership->aliveMembers(), ab, 10000);
    QVERIFY2(leave.elapsed() < 2500, qPrintable(QString::number(leave.elapsed())));
    QVERIFY(!replicas[0]->membership->acks().contains(QStringLiteral("qcm-c")));
    QTRY_COMPARE(replicas[0]->membership->goneMembers(), QStringList {QStringLiteral("qcm-c")});
    QVERIFY(!kubectl({QStringLiteral("get"), QStringLiteral("lease"), QStringLiteral("-n"), m_ns,
                         Membership::leaseName(group, QStringLiteral("qcm-c"))},
        &out));
    QVERIFY2(out.contains(QStringLiteral("NotFound")), qPrintable(out));

    // b vanishes without leaving: its Lease stays, unrenewed, and a drops b once it has not
    // seen the Lease change for leaseDuration (3 s).
    replicas[1].reset();
    QElapsedTimer vanished;
    vanished.start();
    QTRY_COMPARE_WITH_TIMEOUT(
        replicas[0]->membership->aliveMembers(), QStringList {QStringLiteral("qcm-a")}, 15000);
    QVERIFY2(vanished.elapsed() >= 1000, qPrintable(QString::number(vanished.elapsed())));
    QVERIFY(kubectl({QStringLiteral("get"), QStringLiteral("lease"), QStringLiteral("-n"), m_ns,
        Membership::leaseName(group, QStringLiteral("qcm-b"))}));
    // Gone: c left, and b's expiry was confirmed by a fresh read of its Lease.
    QTRY_COMPARE(replicas[0]->membership->goneMembers(),
        (QStringList {QStringLiteral("qcm-b"), QStringLiteral("qcm-c")}));
    QCOMPARE(replicas[0]->terms, 1); // a kept its one term throughout
    QVERIFY(replicas[0]->membership->term().isValid());
}

void tst_Membership::aBadGroupIsRefused()
{
    RestClient rest(clusterConfig(QStringLiteral("admin")));
    cache::SharedInformerFactory informers(&rest, Duration(0));
    Membership::Config config;
    config.group = QStringLiteral("Not_A_Label");
    config.identity = QStringLiteral("x");
    config.client = &rest;
    config.informers = &informers;
    const auto created = Membership::create(config);
    QVERIFY(!created);
    QCOMPARE(created.error().toString(),
        QStringLiteral("membership: group: 'Not_A_Label' is not a DNS label of at most 46 "
                       "characters (lowercase letters, digits and '-')"));
}

QTEST_MAIN(tst_Membership)
#include "tst_membership.moc"
