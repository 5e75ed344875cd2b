// SPDX-License-Identifier: Apache-2.0
// e2e: ShardGroup with real Controllers on the real apiserver. Three replicas in one process
// (each its own RestClient, informers, group and Controller over the ConfigMaps of one
// namespace) share 60 keys. Every reconcile records who ran which key when; a reconcile of a
// key that another replica is running counts as an overlap. Through a join, a graceful leave,
// a replica that vanishes (its Lease left to expire), another join, and a replica that vanishes
// and comes back at once under its identity (a new incarnation), while ConfigMaps change
// all the time (so that reconciles are in flight whenever keys move) and every ConfigMap is
// touched after each change: every key is reconciled after each change by the replica that
// owns it, and there is no overlap at all.
#include "shardingsupport.h"

#include <qcm/client/restclient.h>
#include <qcm/controller.h>
#include <qcm/sharding/epoch.h>
#include <qcm/sharding/shardgroup.h>

#include <QtCore/QScopeGuard>
#include <QtTest/QtTest>

#include <mutex>
#include <thread>

using namespace qcm;
using namespace qcm::client;
using namespace qcm::sharding;
using namespace qcm::e2e;
using namespace std::chrono_literals;

namespace {

constexpr int Keys = 60;

// Who runs which key now, and what ran since the last reset.
class Tracker
{
public:
    void begin(const QString &member, const QString &key)
    {
        std::lock_guard lock(m_mutex);
        if (m_running.contains(key)) {
            ++m_overlaps;
            qWarning("overlap: %s starts %s while %s runs it", qPrintable(member), qPrintable(key),
                qPrintable(m_running.value(key)));
        }
        m_running.insert(key, member);
        m_lastBy[key] = member;
    }
    void end(const QString &key)
    {
        std::lock_guard lock(m_mutex);
        m_running.remove(key);
    }
    int overlaps() const
    {
        std::lock_guard lock(m_mutex);
        return m_overlaps;
    }
    // Forgets who reconciled what (before a change).
    void resetSeen()
    {
        std::lock_guard lock(m_mutex);
        m_lastBy.clear();
    }
    QHash<QString, QString> lastBy() const
    {
        std::lock_guard lock(m_mutex);
        return m_lastBy;
    }

private:
    mutable std::mutex m_mutex;
    QHash<QString, QString> m_running;
    QHash<QString, QString> m_lastBy;
    int m_overlaps = 0;
};

class RecordingController : public Controller
{
public:
    RecordingController(const ControllerContext &context, QString member, Tracker *tracker)
        : Controller(context), m_member(std::move(member)), m_tracker(tracker)
    { }
    ~RecordingController() override { stop(30s); }

protected:
    ReconcileResult reconcile(const QString &key) override
    {
        m_tracker->begin(m_member, key);
        std::this_thread::sleep_for(std::chrono::milliseconds(150 + qHash(key) % 100));
        m_tracker->end(key);
        return ReconcileResult::done();
    }

private:
    QString m_member;
    Tracker *m_tracker;
};

// One replica: clients, informers, its group and a sharded Controller over the ConfigMaps.
struct Replica
{
    Replica(const QString &group, const QString &identity, const QString &ns, Tracker *tracker)
        : id(identity), rest(clusterConfig(QStringLiteral("admin"))), informers(&rest, Duration(0))
    {
        ShardGroup::Config config;
        config.membership.group = group;
        config.membership.identity = identity;
        config.membership.namespaceName = ns;
        config.membership.client = &rest;
        config.membership.informers = &informers;
        config.membership.leaseDuration = TestLeaseDuration;
        config.membership.renewDeadline = TestRenewDeadline;
        config.membership.retryPeriod = TestRetryPeriod;
        auto created = ShardGroup::create(config);
        if (!created)
            qFatal("%s", qPrintable(created.error().toString()));
        shards = *created;
        // The base the group last announced: keys gained in an epoch start when its barrier
        // passes because the group says so, not after the Controller's retry of a Wait.
        QObject::connect(shards.get(), &ShardFilter::ownershipChanged, shards.get(),
            [this] { announcedBase = shards->baseEpoch(); });
        ControllerContext context(QStringLiteral("sharded-") + identity);
        context.setInformerFactory(&informers);
        context.setRestClient(&rest);
        context.setWorkers(4);
        context.setShardFilter(shards);
        controller = std::make_unique<RecordingController>(context, identity, tracker);
        cache::SharedInformerFactory::InformerOptions options;
        options.namespaceName = ns;
        options.labelSelector = QStringLiteral("test=sharding");
        controller->watch(informers.informerFor(ConfigMaps, options));
        shards->start();
        informers.start();
        controller->start();
    }
    ~Replica() { controller.reset(); }

    QString id;
    RestClient rest;
    cache::SharedInformerFactory informers;
    std::shared_ptr<ShardGroup> shards;
    std::unique_ptr<RecordingController> controller;
    quint64 announcedBase = 0; // the group's thread (this test's main thread)
};

} // namespace

class tst_ShardGroup : public QObject
{
    Q_OBJECT

private slots:
    void keysMoveWithoutOverlap();

private:
    // Touches every ConfigMap, then waits until each was reconciled by its owner in the
    // epoch every live replica serves.
    void touchAndSettle(const std::vector<Replica *> &live, const QStringList &expectedMembers);

    QString m_ns;
    int m_round = 0;
    Tracker m_tracker;
};

void tst_ShardGroup::touchAndSettle(
    const std::vector<Replica *> &live, const QStringList &expectedMembers)
{
    // The epoch of exactly these members, served by all, with its barrier passed.
    const auto settled = [&] {
        return std::all_of(live.begin(), live.end(), [&](Replica *r) {
            QStringList members;
            for (const QString &m : r->shards->ring().epoch().members)
                members.append(identityOf(m).toString());
            return members == expectedMembers
                && r->shards->baseEpoch() == r->shards->ring().epoch().number;
        });
    };
    if (!QTest::qWaitFor(settled, 30000)) {
        for (Replica *r : live) {
            QStringList acks;
            const auto all = r->shards->membership().acks();
            for (auto it = all.cbegin(); it != all.cend(); ++it)
                acks.append(it.key() + QLatin1Char('=') + it.value().toString());
            qWarning("%s: epoch %llu [%s], serving %llu, base %llu, target %llu; alive [%s], "
                     "gone [%s], acks [%s]",
                qPrintable(r->id), r->shards->ring().epoch().number,
                qPrintable(r->shards->ring().epoch().members.join(u',')), r->shards->servingEpoch(),
                r->shards->baseEpoch(), r->shards->targetEpoch(),
                qPrintable(r->shards->membership().aliveMembers().join(u',')),
                qPrintable(r->shards->membership().goneMembers().join(u',')),
                qPrintable(acks.join(u',')));
        }
        QFAIL("the group did not settle on the expected epoch");
    }
    for (Replica *r : live)
        QVERIFY2(r->announcedBase == r->shards->baseEpoch(),
            qPrintable(QStringLiteral("%1 passed the barrier of epoch %2 without announcing it "
                                      "(last announced base: %3)")
                           .arg(r->id)
                           .arg(r->shards->baseEpoch())
                           .arg(r->announcedBase)));
    m_tracker.resetSeen();
    ++m_round;
    // On a thread of its own: the main thread keeps running the groups' Leases meanwhile.
    std::atomic<int> failures {0};
    std::atomic<bool> done {false};
    std::thread writer([&, round = m_round] {
        RestClient admin(clusterConfig(QStringLiteral("admin")));
        for (int i = 0; i < Keys; ++i) {
            const QByteArray patch = QByteArray(R"({"data":{"round":")") + QByteArray::number(round)
                + QByteArray(R"("}})");
            if (!admin.patch(
                    ConfigMaps, m_ns, QStringLiteral("cm-%1").arg(i), PatchType::Merge, patch))
                ++failures;
        }
        done = true;
    });
    const bool wrote = QTest::qWaitFor([&] { return done.load(); }, 60000);
    writer.join();
    QVERIFY(wrote);
    QCOMPARE(failures.load(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(m_tracker.lastBy().size(), Keys, 30000);
    const HashRing ring(expectedMembers);
    const QHash<QString, QString> lastBy = m_tracker.lastBy();
    for (auto it = lastBy.cbegin(); it != lastBy.cend(); ++it)
        QVERIFY2(it.value() == ring.owner(it.key()),
            qPrintable(QStringLiteral("%1 reconciled by %2, owned by %3")
                           .arg(it.key(), it.value(), ring.owner(it.key()))));
    QCOMPARE(m_tracker.overlaps(), 0);
}

void tst_ShardGroup::keysMoveWithoutOverlap()
{
    RestClient admin(clusterConfig(QStringLiteral("admin")));
    m_ns = createNamespace(admin, QStringLiteral("shardgroup"));
    for (int i = 0; i < Keys; ++i) {
        const auto created = admin.create(ConfigMaps, m_ns,
            configMap(m_ns, QStringLiteral("cm-%1").arg(i), {},
                {{QStringLiteral("test"), QStringLiteral("sharding")}}));
        QVERIFY(created);
    }
    const QString group = QStringLiteral("s%1").arg(QDateTime::currentMSecsSinceEpoch() % 100000);

    // The group's leader: a real term on a Lease of its own, held by replica a's process.
    auto elector = groupLeader(admin, m_ns, group, QStringLiteral("qcm-a"));
    QTRY_VERIFY_WITH_TIMEOUT(elector->isLeader(), 10000);

    // Churn throughout: ConfigMaps change all the time, so that reconciles are in flight
    // whenever keys move.
    std::atomic<bool> churning {true};
    std::thread churn([&] {
        RestClient writer(clusterConfig(QStringLiteral("admin")));
        for (int n = 0; churning; ++n) {
            writer.patch(ConfigMaps, m_ns, QStringLiteral("cm-%1").arg((n * 7) % Keys),
                PatchType::Merge,
                QByteArray(R"({"data":{"churn":")") + QByteArray::number(n) + QByteArray(R"("}})"));
            std::this_thread::sleep_for(10ms);
        }
    });
    const auto stopChurn = qScopeGuard([&] {
        churning = false;
        churn.join();
    });

    auto a = std::make_unique<Replica>(group, QStringLiteral("qcm-a"), m_ns, &m_tracker);
    a->shards->setLeader(elector->token());
    // Each new term of the group's leadership goes to the group (as the host does).
    connect(elector.get(), &leaderelection::LeaderElector::startedLeading, a->shards.get(),
        [&](const leaderelection::LeaderToken &token) { a->shards->setLeader(token); });
    auto b = std::make_unique<Replica>(group, QStringLiteral("qcm-b"), m_ns, &m_tracker);
    touchAndSettle({a.get(), b.get()}, {QStringLiteral("qcm-a"), QStringLiteral("qcm-b")});
    if (QTest::currentTestFailed())
        return;

    // A join.
    auto c = std::make_unique<Replica>(group, QStringLiteral("qcm-c"), m_ns, &m_tracker);
    touchAndSettle({a.get(), b.get(), c.get()},
        {QStringLiteral("qcm-a"), QStringLiteral("qcm-b"), QStringLiteral("qcm-c")});
    if (QTest::currentTestFailed())
        return;

    // A graceful leave while c's reconciles run (the churn keeps its workers busy): c starts
    // no key from now on, and its Lease goes only once its reconciles in flight have ended;
    // the tracker would see a or b start one of them otherwise.
    auto left = c->shards->stop();
    QTRY_VERIFY_WITH_TIMEOUT(left.isFinished(), 10000);
    QVERIFY(!left.result());
    QCOMPARE(c->controller->activeWorkers(), 0);
    c->controller->stop(30s);
    c.reset();
    touchAndSettle({a.get(), b.get()}, {QStringLiteral("qcm-a"), QStringLiteral("qcm-b")});
    if (QTest::currentTestFailed())
        return;

    // b vanishes: its reconciles stop, its Lease is left to expire.
    b.reset();
    touchAndSettle({a.get()}, {QStringLiteral("qcm-a")});
    if (QTest::currentTestFailed())
        return;

    // Another join.
    auto d = std::make_unique<Replica>(group, QStringLiteral("qcm-d"), m_ns, &m_tracker);
    touchAndSettle({a.get(), d.get()}, {QStringLiteral("qcm-a"), QStringLiteral("qcm-d")});
    if (QTest::currentTestFailed())
        return;

    // d vanishes and comes back at once under its identity (a restart with a fixed identity):
    // its new term begins once the old Lease has expired, as a new incarnation, which gets
    // d's keys back only after the others entered an epoch that lists it.
    d.reset();
    d = std::make_unique<Replica>(group, QStringLiteral("qcm-d"), m_ns, &m_tracker);
    touchAndSettle({a.get(), d.get()}, {QStringLiteral("qcm-a"), QStringLiteral("qcm-d")});
    if (QTest::currentTestFailed())
        return;

    QCOMPARE(m_tracker.overlaps(), 0);
    d.reset();
    a.reset();
    elector->stop();
}

QTEST_MAIN(tst_ShardGroup)
#include "tst_shardgroup.moc"
