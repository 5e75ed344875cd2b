// SPDX-License-Identifier: Apache-2.0
// e2e: sharding::Membership on the real apiserver. Three members of one group in one process
// (each with its own RestClient and informers, as separate replicas have): each holds its own
// labelled Lease and a term, all see all three alive, acks written by one reach the others and
// never go down, a graceful leave deletes the Lease and the others drop the member well within
// leaseDuration, and a member that vanishes without leaving (its Lease left behind, as after
// SIGKILL) is dropped once leaseDuration has passed without a renewal. Both count as gone (for
// the barrier): the one that left, and the one whose expiry a fresh read confirmed.
// Incarnations: each term writes a fresh term id on the Lease; a member that comes back under
// the same identity is a new incarnation without the old one's ack, and the old one is gone;
// an ack removed by someone else is written again; a term id written, or a Lease deleted, by
// someone else ends the incarnation and a new one begins.
#include "shardingsupport.h"

#include <qcm/client/restclient.h>
#include <qcm/sharding/epoch.h>
#include <qcm/sharding/membership.h>

#include <QtCore/QElapsedTimer>
#include <QtCore/QScopeGuard>
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

// The identities of incarnations ("identity/term").
QStringList identities(const QStringList &incarnations)
{
    QStringList result;
    for (const QString &i : incarnations)
        result.append(identityOf(i).toString());
    return result;
}

// An annotation of a Lease, through kubectl.
QString annotation(const QString &ns, const QString &lease, const QString &key)
{
    QString out;
    kubectl(
        {
            QStringLiteral("get"),
            QStringLiteral("lease"),
            QStringLiteral("-n"),
            ns,
            lease,
            QStringLiteral("-o"),
            QStringLiteral("jsonpath={.metadata.annotations.%1}")
                .arg(QString(key).replace(QLatin1Char('.'), QLatin1String("\\."))),
        },
        &out);
    return out.trimmed();
}

} // namespace

class tst_Membership : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void aGroupSeesItsMembersAcksAndLeaves();
    void aBadGroupIsRefused();
    void aReturningMemberIsANewIncarnation();
    void aLostAckIsWrittenAgain();
    void aTermIdOrDeleteBySomeoneElseEndsTheIncarnation();
    void ownAcksDoNotCostTheTerm();

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
        QTRY_COMPARE_WITH_TIMEOUT(identities(r->membership->aliveMembers()), all, 15000);
        // Its incarnation: its identity and the term id on its Lease.
        const QString term = annotation(
            m_ns, Membership::leaseName(group, r->membership->identity()), TermAnnotation);
        QVERIFY(parseTerm(term));
        QCOMPARE(r->membership->incarnation(), incarnation(r->membership->identity(), term));
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
    const QString aIncarnation = a.incarnation();
    auto acked = a.acknowledge(Ack {5, QStringLiteral("e5")});
    QTRY_VERIFY(acked.isFinished());
    QVERIFY2(!acked.result(), qPrintable(acked.result() ? acked.result()->toString() : QString()));
    for (auto &r : replicas)
        QTRY_COMPARE_WITH_TIMEOUT(
            r->membership->acks().value(aIncarnation), (Ack {5, QStringLiteral("e5")}), 10000);
    auto lower = a.acknowledge(Ack {3, QStringLiteral("e3")});
    QTRY_VERIFY(lower.isFinished());
    QTest::qWait(1500); // renewals go on meanwhile
    QCOMPARE(replicas[1]->membership->acks().value(aIncarnation), (Ack {5, QStringLiteral("e5")}));
    QVERIFY(
        kubectl({QStringLiteral("get"), QStringLiteral("lease"), QStringLiteral("-n"), m_ns,
                    Membership::leaseName(group, QStringLiteral("qcm-a")), QStringLiteral("-o"),
                    QStringLiteral("jsonpath={.metadata.annotations.scale-out\\.qcm\\.io/ack}")},
            &out));
    QCOMPARE(out.trimmed(), QStringLiteral("5/e5")); // the renewals kept the annotation

    // A graceful leave: the Lease is deleted, and the others drop c long before its lease
    // would have run out.
    const QStringList ab {QStringLiteral("qcm-a"), QStringLiteral("qcm-b")};
    QElapsedTimer leave;
    leave.start();
    const QString cIncarnation = replicas[2]->membership->incarnation();
    auto stopped = replicas[2]->membership->stop();
    QVERIFY(!replicas[2]->membership->term().isValid());
    QTRY_VERIFY(stopped.isFinished());
    QVERIFY(!stopped.result());
    QTRY_COMPARE_WITH_TIMEOUT(identities(replicas[0]->membership->aliveMembers()), ab, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(identities(replicas[1]->membership->aliveMembers()), ab, 10000);
    QVERIFY2(leave.elapsed() < 2500, qPrintable(QString::number(leave.elapsed())));
    QVERIFY(!replicas[0]->membership->acks().contains(cIncarnation));
    QTRY_COMPARE(replicas[0]->membership->goneMembers(), QStringList {cIncarnation});
    QVERIFY(!kubectl({QStringLiteral("get"), QStringLiteral("lease"), QStringLiteral("-n"), m_ns,
                         Membership::leaseName(group, QStringLiteral("qcm-c"))},
        &out));
    QVERIFY2(out.contains(QStringLiteral("NotFound")), qPrintable(out));

    // b vanishes without leaving: its Lease stays, unrenewed, and a drops b once it has not
    // seen the Lease change for leaseDuration (3 s).
    const QString bIncarnation = replicas[1]->membership->incarnation();
    replicas[1].reset();
    QElapsedTimer vanished;
    vanished.start();
    QTRY_COMPARE_WITH_TIMEOUT(
        replicas[0]->membership->aliveMembers(), QStringList {aIncarnation}, 15000);
    QVERIFY2(vanished.elapsed() >= 1000, qPrintable(QString::number(vanished.elapsed())));
    QVERIFY(kubectl({QStringLiteral("get"), QStringLiteral("lease"), QStringLiteral("-n"), m_ns,
        Membership::leaseName(group, QStringLiteral("qcm-b"))}));
    // Gone: c left, and b's expiry was confirmed by a fresh read of its Lease.
    QTRY_COMPARE(
        replicas[0]->membership->goneMembers(), (QStringList {bIncarnation, cIncarnation}));
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

// A member killed without leaving (its Lease stays) and started again under its identity: the
// elector takes the Lease back once it has expired, with a new term id and no ack; observers
// count the old incarnation gone, the new one alive, and carry no ack over.
void tst_Membership::aReturningMemberIsANewIncarnation()
{
    const QString group = QStringLiteral("r%1").arg(QDateTime::currentMSecsSinceEpoch() % 100000);
    Replica observer(group, QStringLiteral("observer"), m_ns);
    observer.membership->start();
    auto x = std::make_unique<Replica>(group, QStringLiteral("qcm-x"), m_ns);
    x->membership->start();
    QTRY_VERIFY_WITH_TIMEOUT(x->membership->term().isValid(), 15000);
    const QString first = x->membership->incarnation();
    auto acked = x->membership->acknowledge(Ack {4, QStringLiteral("e4")});
    QTRY_VERIFY(acked.isFinished());
    QVERIFY(!acked.result());
    QTRY_COMPARE_WITH_TIMEOUT(
        observer.membership->acks().value(first), (Ack {4, QStringLiteral("e4")}), 10000);

    x.reset(); // killed: no leave
    x = std::make_unique<Replica>(group, QStringLiteral("qcm-x"), m_ns);
    x->membership->start();
    QTRY_VERIFY_WITH_TIMEOUT(x->membership->term().isValid(), 15000);
    const QString second = x->membership->incarnation();
    QVERIFY(second != first);
    QCOMPARE(identityOf(second), QStringView(u"qcm-x"));
    QTRY_VERIFY_WITH_TIMEOUT(observer.membership->aliveMembers().contains(second), 10000);
    QVERIFY(!observer.membership->aliveMembers().contains(first));
    QTRY_VERIFY(observer.membership->goneMembers().contains(first));
    QVERIFY(!observer.membership->acks().contains(second)); // its ack is its own, none yet
    QVERIFY(!observer.membership->acks().contains(first));
    const QString lease = Membership::leaseName(group, QStringLiteral("qcm-x"));
    QCOMPARE(annotation(m_ns, lease, AckAnnotation), QString());
    // An ack of the new term lands; it starts from nothing (a lower number than before).
    acked = x->membership->acknowledge(Ack {2, QStringLiteral("e2")});
    QTRY_VERIFY(acked.isFinished());
    QVERIFY(!acked.result());
    QTRY_COMPARE_WITH_TIMEOUT(
        observer.membership->acks().value(second), (Ack {2, QStringLiteral("e2")}), 10000);
    observer.membership->stop();
    x->membership->stop();
}

// Someone removes the ack from a member's Lease: the member sees its own Lease without it and
// writes it again.
void tst_Membership::aLostAckIsWrittenAgain()
{
    const QString group = QStringLiteral("l%1").arg(QDateTime::currentMSecsSinceEpoch() % 100000);
    Replica x(group, QStringLiteral("qcm-x"), m_ns);
    x.membership->start();
    QTRY_VERIFY_WITH_TIMEOUT(x.membership->term().isValid(), 15000);
    auto acked = x.membership->acknowledge(Ack {7, QStringLiteral("e7")});
    QTRY_VERIFY(acked.isFinished());
    QVERIFY(!acked.result());
    const QString lease = Membership::leaseName(group, QStringLiteral("qcm-x"));
    QTRY_COMPARE(annotation(m_ns, lease, AckAnnotation), QStringLiteral("7/e7"));
    QVERIFY(kubectl({QStringLiteral("annotate"), QStringLiteral("lease"), QStringLiteral("-n"),
        m_ns, lease, AckAnnotation + QLatin1Char('-')}));
    QTRY_COMPARE_WITH_TIMEOUT(
        annotation(m_ns, lease, AckAnnotation), QStringLiteral("7/e7"), 10000);
    QTRY_COMPARE(x.membership->acks().value(x.membership->incarnation()).number, quint64(7));
    x.membership->stop();
}

// A term id that this member never wrote, or its Lease deleted: others count the incarnation
// gone, so it ends (termEnded) and a new one begins while the elector holds the Lease; an ack
// written for the ended term never lands on the new one (the patch tests the term id).
void tst_Membership::aTermIdOrDeleteBySomeoneElseEndsTheIncarnation()
{
    const QString group = QStringLiteral("t%1").arg(QDateTime::currentMSecsSinceEpoch() % 100000);
    Replica x(group, QStringLiteral("qcm-x"), m_ns);
    int ended = 0;
    QObject::connect(
        x.membership.get(), &Membership::termEnded, x.membership.get(), [&ended] { ++ended; });
    x.membership->start();
    QTRY_VERIFY_WITH_TIMEOUT(x.membership->term().isValid(), 15000);
    const QString first = x.membership->incarnation();
    const QString lease = Membership::leaseName(group, QStringLiteral("qcm-x"));

    QVERIFY(
        kubectl({QStringLiteral("annotate"), QStringLiteral("--overwrite"), QStringLiteral("lease"),
            QStringLiteral("-n"), m_ns, lease, TermAnnotation + QStringLiteral("=abc")}));
    QTRY_COMPARE_WITH_TIMEOUT(ended, 1, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(x.membership->term().isValid(), 10000);
    const QString second = x.membership->incarnation();
    QVERIFY(second != first && second != incarnation(u"qcm-x", u"abc"));
    QTRY_COMPARE(annotation(m_ns, lease, TermAnnotation), second.mid(second.lastIndexOf('/') + 1));
    QCOMPARE(x.terms, 2);
    QVERIFY(x.membership->goneMembers().contains(first));

    // An ack whose test of the term id fails: the Lease is left as it is.
    QVERIFY(!kubectl({QStringLiteral("patch"), QStringLiteral("lease"), QStringLiteral("-n"), m_ns,
        lease, QStringLiteral("--type=json"),
        QStringLiteral(
            R"(-p=[{"op":"test","path":"/metadata/annotations/scale-out.qcm.io~1term","value":"%1"},{"op":"add","path":"/metadata/annotations/scale-out.qcm.io~1ack","value":"9/e9"}])")
            .arg(first.mid(first.lastIndexOf('/') + 1))}));
    QCOMPARE(annotation(m_ns, lease, AckAnnotation), QString());

    QVERIFY(kubectl(
        {QStringLiteral("delete"), QStringLiteral("lease"), QStringLiteral("-n"), m_ns, lease}));
    QTRY_COMPARE_WITH_TIMEOUT(ended, 2, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(x.membership->term().isValid(), 15000);
    const QString third = x.membership->incarnation();
    QVERIFY(third != second);
    QTRY_VERIFY(x.membership->goneMembers().contains(second));
    QTRY_COMPARE(x.membership->aliveMembers(), QStringList {third});
    x.membership->stop();
}

// A member's own writes of its Lease (its term id, then its acks) are made through its
// elector's lock, in turn with its renewals (ObjectLock::patch), and are what the next renewal
// writes over: the renewal does not fail with Conflict, and the term outlives several
// renewDeadlines with one incarnation. (Each own write used to make the next renewal conflict;
// when the slow path then lost the race to another write, the term lapsed after renewDeadline
// and the member came back as a new incarnation, moving keys twice.)
namespace {
std::atomic<int> renewalConflicts {0};
QtMessageHandler previousHandler = nullptr;
void countRenewalConflicts(QtMsgType type, const QMessageLogContext &context, const QString &text)
{
    if (text.contains(QLatin1String("Failed to update lock optimistically")))
        ++renewalConflicts;
    previousHandler(type, context, text);
}
} // namespace

void tst_Membership::ownAcksDoNotCostTheTerm()
{
    const QString group = QStringLiteral("o%1").arg(QDateTime::currentMSecsSinceEpoch() % 100000);
    Replica x(group, QStringLiteral("qcm-x"), m_ns);
    renewalConflicts = 0;
    previousHandler = qInstallMessageHandler(countRenewalConflicts);
    const auto restore = qScopeGuard([] { qInstallMessageHandler(previousHandler); });
    x.membership->start();
    QTRY_VERIFY_WITH_TIMEOUT(x.membership->term().isValid(), 15000);
    const QString incarnation = x.membership->incarnation();
    for (quint64 n = 1; n <= 6; ++n) { // an ack every 1.3 s: most renewals follow one
        auto acked = x.membership->acknowledge(Ack {n, QStringLiteral("e%1").arg(n)});
        QTRY_VERIFY(acked.isFinished());
        const std::optional<Error> error = acked.result();
        QVERIFY2(!error, error ? qPrintable(error->toString()) : "");
        QTest::qWait(1300);
    }
    QVERIFY(x.membership->term().isValid());
    QCOMPARE(x.membership->incarnation(), incarnation);
    QCOMPARE(x.terms, 1);
    // The acks and the term id go through the lock, in turn with its renewals, so none
    // conflicts. They made 7 conflicts in a row when written beside the lock, and still 1 or 2
    // a run when the lock only remembered their replies (a renewal crossing a patch).
    QCOMPARE(renewalConflicts.load(), 0);
    x.membership->stop();
}

QTEST_MAIN(tst_Membership)
#include "tst_membership.moc"
