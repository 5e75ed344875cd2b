// SPDX-License-Identifier: Apache-2.0
// LeaderElector: client-go's leaderelection tests (TestTryAcquireOrRenewLeases,
// TestLeaderElectionConfigValidation, TestFastPathLeaderElection, TestReleaseLeaseLeases,
// TestReleaseOnCancellation_Leases, TestLeaderElectionHealthChecker, TestCheckMethodRace),
// plus the pause rule, the renew deadline, the two modes and the metrics, on a fake lock and a
// fake monotonic clock.
#include <qcm/fakeclock.h>
#include <qcm/leaderelection/healthzadaptor.h>
#include <qcm/leaderelection/leaderelector.h>
#include <qcm/metrics/registry.h>

#include "leaderelectorharness.h"

#include <QtTest/QtTest>

#include <atomic>
#include <thread>

Q_DECLARE_METATYPE(qcm::leaderelection::LeaderElectionRecord)
Q_DECLARE_METATYPE(std::optional<qcm::leaderelection::LeaderElectionRecord>)

using namespace qcm;
using namespace qcm::leaderelection;
using namespace qcm::leaderelection::testing;
using namespace std::chrono_literals;

namespace {

// "other" renews the lease it holds: a record whose raw form changes every time, so a candidate
// sees it change and keeps waiting (the same record written again would not count).
void otherRenews(FakeLock &lock, int leaseDurationSeconds = 15)
{
    static qint64 renewals = 0;
    LeaderElectionRecord record = holder(QStringLiteral("other"), leaseDurationSeconds);
    record.acquireTime = QDateTime::fromSecsSinceEpoch(1700000000, Qt::UTC);
    record.renewTime = record.acquireTime.addMSecs(++renewals);
    lock.writeByOther(record);
}

// The value of metric `name` with the label name="foo" (the harness's), or -1 if there is none.
double metricValue(metrics::Registry &registry, const QString &name)
{
    for (const auto &family : registry.collect()) {
        if (family.name != name)
            continue;
        for (const auto &m : family.metrics) {
            if (m.labels.at(QStringLiteral("name")) == QStringLiteral("foo"))
                return m.value;
        }
    }
    return -1.0;
}

} // namespace

using Harness = LeaderElectorHarness;

class tst_LeaderElector : public QObject
{
    Q_OBJECT

private slots:
    void tryAcquireOrRenewLeases_data();
    void tryAcquireOrRenewLeases();
    void acquireTimeAndTransitions();
    void newTermAfterAFailedFastPath();
    void coordinationFieldsAreKept();
    void leaderElectionConfigValidation_data();
    void leaderElectionConfigValidation();
    void fastPathLeaderElection_data();
    void fastPathLeaderElection();
    void releaseLeaseLeases();
    void releaseRetriesOnConflict();
    void releaseNeverClearsAnotherHolder();
    void releaseOnCancellationOfUpdate();
    void releaseOnCancellationOfGet();
    void releaseAfterABlockedEventLoop();
    void leaderElectionHealthChecker_data();
    void leaderElectionHealthChecker();
    void checkMethodRace();
    void checkInRejoinWhilePartitioned();
    void pauseStepsDownBeforeLeaderWork();
    void pausePastRenewDeadlineWithinTheLease_data();
    void pausePastRenewDeadlineWithinTheLease();
    void lateRenewalReplyDoesNotReviveTheTerm();
    void slowRenewalCountsFromItsSend();
    void renewalRetryCadence();
    void renewalRetriesOnTheCycleGrid();
    void renewDeadlineEndsTheTerm();
    void partitionedRenewalsTryTheFastPathEachTime();
    void lateAcquireReplyDoesNotLead();
    void hungAcquireIsAbandoned();
    void takenOverLeaseStepsDownAtOnce();
    void acquireRetriesWithJitter();
    void acquireRetriesSlideAndSpreadOverTheJitter();
    void runOrDieExitsOnLoss();
    void rejoinCampaignsAgain();
    void stopWhileCandidate();
    void stopInStoppedLeadingAfterLoss_data();
    void stopInStoppedLeadingAfterLoss();
    void stopInStoppedLeadingOnStop();
    void stopInNewLeaderWhileAcquiring();
    void runInStoppedLeadingWaitsForFinished();
    void deleteInFinished_data();
    void deleteInFinished();
    void deleteInStartedLeading();
    void candidateTriesWhenTheLeaseExpires();
    void lockChangeWakesACandidate();
    void metrics();
    void metricsFollowEveryTerm();
};

// --- TestTryAcquireOrRenewLeases ---------------------------------------------------------

void tst_LeaderElector::tryAcquireOrRenewLeases_data()
{
    QTest::addColumn<std::optional<LeaderElectionRecord>>("stored");
    QTest::addColumn<LeaderElectionRecord>("observedRecord");
    QTest::addColumn<int>("observedTime"); // hours from now; 0: unset
    QTest::addColumn<int>("retryAfter"); // seconds
    QTest::addColumn<QStringList>("ops");
    QTest::addColumn<bool>("expectSuccess");
    QTest::addColumn<bool>("transitionLeader");
    QTest::addColumn<QString>("outHolder");

    const QStringList getUpdate {QStringLiteral("get"), QStringLiteral("update")};
    QTest::newRow("acquire from no object")
        << std::optional<LeaderElectionRecord>() << LeaderElectionRecord() << 0 << 0
        << QStringList {QStringLiteral("get"), QStringLiteral("create")} << true << false
        << QStringLiteral("baz");
    QTest::newRow("acquire from object without annotations")
        << std::optional<LeaderElectionRecord>(LeaderElectionRecord()) << LeaderElectionRecord()
        << 0 << 0 << getUpdate << true << true << QStringLiteral("baz");
    QTest::newRow("acquire from led object with the lease duration seconds")
        << std::optional(holder(QStringLiteral("bing"), 3)) << LeaderElectionRecord() << 0 << 3
        << QStringList {QStringLiteral("get"), QStringLiteral("get"), QStringLiteral("update")}
        << true << true << QStringLiteral("baz");
    QTest::newRow("acquire from unled object")
        << std::optional<LeaderElectionRecord>(LeaderElectionRecord()) << LeaderElectionRecord()
        << 0 << 0 << getUpdate << true << true << QStringLiteral("baz");
    QTest::newRow("acquire from led, unacked object")
        << std::optional(holder(QStringLiteral("bing"))) << holder(QStringLiteral("bing")) << -1000
        << 0 << getUpdate << true << true << QStringLiteral("baz");
    QTest::newRow("acquire from empty led, acked object")
        << std::optional(holder(QString())) << LeaderElectionRecord() << 1000 << 0 << getUpdate
        << true << true << QStringLiteral("baz");
    QTest::newRow("don't acquire from led, acked object")
        << std::optional(holder(QStringLiteral("bing"))) << LeaderElectionRecord() << 1000 << 0
        << QStringList {QStringLiteral("get")} << false << false << QStringLiteral("bing");
    QTest::newRow("renew already acquired object")
        << std::optional(holder(QStringLiteral("baz"))) << holder(QStringLiteral("baz")) << 1000
        << 0 << getUpdate << true << false << QStringLiteral("baz");
}

void tst_LeaderElector::tryAcquireOrRenewLeases()
{
    QFETCH(std::optional<LeaderElectionRecord>, stored);
    QFETCH(LeaderElectionRecord, observedRecord);
    QFETCH(int, observedTime);
    QFETCH(int, retryAfter);
    QFETCH(QStringList, ops);
    QFETCH(bool, expectSuccess);
    QFETCH(bool, transitionLeader);
    QFETCH(QString, outHolder);

    Harness h([](LeaderElectionConfig &c) { c.leaseDuration = 10s; });
    h.lock->stored = stored;
    h.seedObserved(observedRecord,
        observedTime ? h.clock.now() + std::chrono::hours(observedTime) : TimePoint());

    bool succeeded = h.tryAcquireOrRenew();
    if (succeeded != expectSuccess && retryAfter) {
        h.clock.step(std::chrono::seconds(retryAfter));
        succeeded = h.tryAcquireOrRenew();
    }
    QCOMPARE(succeeded, expectSuccess);
    QCOMPARE(h.observed().holderIdentity, outHolder);
    QCOMPARE(h.lock->ops, ops);
    QCOMPARE(h.observed().leaderTransitions, transitionLeader ? 1 : 0);
    h.reportTransition();
    QCOMPARE(h.signalsSeen, QStringList {QStringLiteral("new ") + outHolder});
    QVERIFY(h.lock->events.isEmpty()); // tryAcquireOrRenew records no events
}

// The new holder sets acquireTime and counts a transition; the holder keeps both.
void tst_LeaderElector::acquireTimeAndTransitions()
{
    Harness h;
    LeaderElectionRecord old = holder(QStringLiteral("bing"), 15);
    old.acquireTime = QDateTime::currentDateTimeUtc().addDays(-1);
    old.leaderTransitions = 4;
    h.lock->stored = old;
    h.seedObserved(old, h.clock.now() - 20s); // expired
    QVERIFY(h.tryAcquireOrRenew());
    const LeaderElectionRecord acquired = *h.lock->stored;
    QCOMPARE(acquired.holderIdentity, QStringLiteral("baz"));
    QCOMPARE(acquired.leaderTransitions, 5);
    QCOMPARE(acquired.leaseDurationSeconds, 15);
    QVERIFY(acquired.acquireTime > old.acquireTime);
    QCOMPARE(acquired.acquireTime, acquired.renewTime);

    h.clock.step(1500ms);
    QVERIFY(h.tryAcquireOrRenew()); // fast path
    QCOMPARE(h.lock->stored->leaderTransitions, 5);
    QCOMPARE(h.lock->stored->acquireTime, acquired.acquireTime);
    QVERIFY(h.lock->stored->renewTime >= acquired.renewTime);

    h.lock->writeByOther(*h.lock->stored); // same record, new version: the fast path conflicts
    QVERIFY(h.tryAcquireOrRenew()); // slow path keeps them too
    QCOMPARE(h.lock->ops.mid(3),
        (QStringList {QStringLiteral("update"), QStringLiteral("get"), QStringLiteral("update")}));
    QCOMPARE(h.lock->stored->leaderTransitions, 5);
    QCOMPARE(h.lock->stored->acquireTime, acquired.acquireTime);
}

// A holder whose fast path fails and whose slow-path read shows the lock released (holder "")
// takes it as a new holder: leaderTransitions + 1 and a fresh acquireTime. client-go's
// tryAcquireOrRenew leaves the acquireTime that its failed fast path copied from the observed
// record in place, so it writes the *previous* term's acquireTime with the new transition (and
// creates a vanished object with both copied over); qcm writes what a new term is.
// Deliberate (docs/leaderelection.md).
void tst_LeaderElector::newTermAfterAFailedFastPath()
{
    Harness h;
    LeaderElectionRecord mine = holder(QStringLiteral("baz"), 15);
    mine.acquireTime = mine.renewTime = QDateTime::currentDateTimeUtc().addDays(-1);
    mine.leaderTransitions = 3;
    h.lock->stored = mine;
    h.seedObserved(mine, h.clock.now()); // observed valid: the fast path is taken
    // The fast path's update fails (the lock has read nothing yet: LeaseLock's "not
    // initialized"); the read then shows a released record.
    LeaderElectionRecord released = holder(QString(), 1);
    released.leaderTransitions = 3;
    h.lock->stored = released;
    QVERIFY(h.tryAcquireOrRenew());
    QCOMPARE(h.lock->ops, (QStringList {QStringLiteral("get"), QStringLiteral("update")}));
    QCOMPARE(h.lock->stored->holderIdentity, QStringLiteral("baz"));
    QCOMPARE(h.lock->stored->leaderTransitions, 4);
    QCOMPARE(h.lock->stored->acquireTime, h.lock->stored->renewTime);
    QVERIFY(h.lock->stored->acquireTime > mine.acquireTime.addSecs(3600));

    // The object vanished meanwhile: created afresh, as on a first acquire.
    Harness g;
    g.seedObserved(mine, g.clock.now());
    QVERIFY(g.tryAcquireOrRenew());
    QCOMPARE(g.lock->ops, (QStringList {QStringLiteral("get"), QStringLiteral("create")}));
    QCOMPARE(g.lock->stored->leaderTransitions, 0);
    QCOMPARE(g.lock->stored->acquireTime, g.lock->stored->renewTime);
}

// KEP-4355's fields, which the API server's election controller writes: every write of the
// elector (acquire, fast and slow renewal, release) keeps them. (client-go's plain path
// drops them; issue 14 asks qcm to keep them.)
void tst_LeaderElector::coordinationFieldsAreKept()
{
    Harness h;
    LeaderElectionRecord old = holder(QStringLiteral("bing"), 15);
    old.strategy = QStringLiteral("OldestEmulationVersion");
    old.preferredHolder = QStringLiteral("baz");
    h.lock->stored = old;
    h.seedObserved(old, h.clock.now() - 20s); // expired: acquired through the slow path
    QVERIFY(h.tryAcquireOrRenew());
    QCOMPARE(h.lock->stored->holderIdentity, QStringLiteral("baz"));
    QCOMPARE(h.lock->stored->strategy, old.strategy);
    QCOMPARE(h.lock->stored->preferredHolder, old.preferredHolder);
    h.clock.step(1500ms);
    QVERIFY(h.tryAcquireOrRenew()); // the fast path
    QCOMPARE(h.lock->ops.last(), QStringLiteral("update"));
    QCOMPARE(h.lock->stored->strategy, old.strategy);
    QCOMPARE(h.lock->stored->preferredHolder, old.preferredHolder);
    LeaderElectionRecord edited = *h.lock->stored;
    edited.preferredHolder = QStringLiteral("other");
    h.lock->writeByOther(edited); // the election controller names another holder
    QVERIFY(h.tryAcquireOrRenew()); // the fast path conflicts; the slow path reads it
    QCOMPARE(h.lock->stored->preferredHolder, QStringLiteral("other"));
    QCOMPARE(h.lock->stored->strategy, old.strategy);
    QVERIFY(h.release()); // and the release
    QCOMPARE(h.lock->stored->holderIdentity, QString());
    QCOMPARE(h.lock->stored->preferredHolder, QStringLiteral("other"));
    QCOMPARE(h.lock->stored->strategy, old.strategy);
}

// --- TestLeaderElectionConfigValidation ---------------------------------------------------

void tst_LeaderElector::leaderElectionConfigValidation_data()
{
    QTest::addColumn<int>("leaseMs");
    QTest::addColumn<int>("renewMs");
    QTest::addColumn<int>("retryMs");
    QTest::addColumn<QString>("identity");
    QTest::addColumn<bool>("withLock");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("error"); // empty: valid

    // client-go's two cases: the valid config, and an empty lock identity.
    QTest::newRow("valid") << 15000 << 2000 << 1000 << "baz" << true << QString() << QString();
    QTest::newRow("empty identity") << 15000 << 2000 << 1000 << "" << true << "lock"
                                    << QStringLiteral("Lock identity is empty");
    // Each of NewLeaderElector's other rules, in its order, and the boundaries.
    QTest::newRow("defaults") << 15000 << 10000 << 2000 << "baz" << true << QString() << QString();
    QTest::newRow("no lock") << 15000 << 2000 << 1000 << "baz" << false << "lock"
                             << QStringLiteral("Lock must not be nil.");
    QTest::newRow("lease equal to renew")
        << 2000 << 2000 << 1000 << "baz" << true << "leaseDuration"
        << QStringLiteral("leaseDuration must be greater than renewDeadline");
    QTest::newRow("lease below renew")
        << 2000 << 3000 << 1000 << "baz" << true << "leaseDuration"
        << QStringLiteral("leaseDuration must be greater than renewDeadline");
    QTest::newRow("renew equal to 1.2 retry")
        << 15000 << 1200 << 1000 << "baz" << true << "renewDeadline"
        << QStringLiteral("renewDeadline must be greater than retryPeriod*JitterFactor");
    QTest::newRow("renew just above 1.2 retry")
        << 15000 << 1201 << 1000 << "baz" << true << QString() << QString();
    // The rule that leaseDuration > renewDeadline is checked before the jitter rule.
    QTest::newRow("both ordering rules broken")
        << 1000 << 1000 << 1000 << "baz" << true << "leaseDuration"
        << QStringLiteral("leaseDuration must be greater than renewDeadline");
    // Beyond client-go (which asks > 0): at least 1 s each, checked after the ordering rules.
    QTest::newRow("lease below 1s") << 900 << 700 << 500 << "baz" << true << "leaseDuration"
                                    << QStringLiteral("leaseDuration must be at least 1s");
    QTest::newRow("renew below 1s") << 2000 << 700 << 500 << "baz" << true << "renewDeadline"
                                    << QStringLiteral("renewDeadline must be at least 1s");
    QTest::newRow("retry below 1s") << 3000 << 2000 << 500 << "baz" << true << "retryPeriod"
                                    << QStringLiteral("retryPeriod must be at least 1s");
    QTest::newRow("retry zero") << 3000 << 2000 << 0 << "baz" << true << "retryPeriod"
                                << QStringLiteral("retryPeriod must be at least 1s");
    QTest::newRow("lease not whole seconds")
        << 3500 << 2000 << 1000 << "baz" << true << "leaseDuration"
        << QStringLiteral("leaseDuration must be whole seconds (the lock records seconds)");
    // The duration rules come before the lock's (client-go's order).
    QTest::newRow("bad durations and no lock")
        << 2000 << 2000 << 1000 << "baz" << false << "leaseDuration"
        << QStringLiteral("leaseDuration must be greater than renewDeadline");
}

void tst_LeaderElector::leaderElectionConfigValidation()
{
    QFETCH(int, leaseMs);
    QFETCH(int, renewMs);
    QFETCH(int, retryMs);
    QFETCH(QString, identity);
    QFETCH(bool, withLock);
    QFETCH(QString, field);
    QFETCH(QString, error);

    LeaderElectionConfig config;
    if (withLock)
        config.lock = std::make_shared<FakeLock>(identity);
    config.leaseDuration = std::chrono::milliseconds(leaseMs);
    config.renewDeadline = std::chrono::milliseconds(renewMs);
    config.retryPeriod = std::chrono::milliseconds(retryMs);
    config.releaseOnCancel = true;
    auto elector = LeaderElector::create(config);
    if (error.isEmpty()) {
        QVERIFY2(elector.ok(), qPrintable(elector.ok() ? QString() : elector.error().toString()));
    } else {
        QVERIFY(!elector);
        QCOMPARE(elector.error().reason, error);
        QCOMPARE(elector.error().field, field);
    }
}

// --- TestFastPathLeaderElection -----------------------------------------------------------

void tst_LeaderElector::fastPathLeaderElection_data()
{
    QTest::addColumn<bool>("conflictOnSecondUpdate");
    QTest::addColumn<int>("cancelAtUpdate");
    QTest::addColumn<QStringList>("expectedLockOps");
    QTest::newRow("Exercise fast path after lock acquired")
        << false << 2
        << QStringList {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update"),
               QStringLiteral("update")};
    QTest::newRow("Fallback to slow path after fast path fails")
        << true << 4
        << QStringList {QStringLiteral("get"), QStringLiteral("create"), QStringLiteral("update"),
               QStringLiteral("update"), QStringLiteral("get"), QStringLiteral("update"),
               QStringLiteral("update")};
}

void tst_LeaderElector::fastPathLeaderElection()
{
    QFETCH(bool, conflictOnSecondUpdate);
    QFETCH(int, cancelAtUpdate);
    QFETCH(QStringList, expectedLockOps);

    Harness h;
    h.lock->onUpdate = [&](int n, const LeaderElectionRecord &) -> std::optional<WriteResult> {
        if (conflictOnSecondUpdate && n == 2)
            return WriteResult(conflict());
        if (n == cancelAtUpdate)
            h.elector->stop(); // client-go's cancelFunc() inside the reactor
        return std::nullopt;
    };
    h.elector->run();
    settle();
    for (int i = 0; i < 20 && h.elector->isRunning(); ++i)
        h.advance(1s);
    QVERIFY(!h.elector->isRunning());
    QCOMPARE(h.lock->ops, expectedLockOps);
}

// --- TestReleaseLeaseLeases ---------------------------------------------------------------

void tst_LeaderElector::releaseLeaseLeases()
{
    Harness h([](LeaderElectionConfig &c) { c.leaseDuration = 10s; });
    h.lock->stored = holder(QStringLiteral("baz"));
    QVERIFY(h.tryAcquireOrRenew());
    h.reportTransition();
    QCOMPARE(h.signalsSeen, QStringList {QStringLiteral("new baz")});

    QVERIFY(h.release());
    QCOMPARE(h.observed().holderIdentity, QString());
    QCOMPARE(h.observed().leaderTransitions, 0);
    QCOMPARE(h.lock->ops,
        (QStringList {QStringLiteral("get"), QStringLiteral("update"), QStringLiteral("get"),
            QStringLiteral("update")}));
    // What the release wrote: nobody, and a lease of one second.
    QCOMPARE(h.lock->stored->holderIdentity, QString());
    QCOMPARE(h.lock->stored->leaseDurationSeconds, 1);
    QVERIFY(h.lock->stored->renewTime.isValid());
    h.reportTransition();
    QCOMPARE(h.signalsSeen, (QStringList {QStringLiteral("new baz"), QStringLiteral("new ")}));
}

void tst_LeaderElector::releaseRetriesOnConflict()
{
    Harness h;
    QVERIFY(h.tryAcquireOrRenew());
    h.lock->onUpdate = [&](int n, const LeaderElectionRecord &) -> std::optional<WriteResult> {
        if (n == 1)
            return WriteResult(conflict());
        return std::nullopt;
    };
    h.lock->updates = 0;
    QVERIFY(h.release());
    QCOMPARE(h.lock->ops.mid(2),
        (QStringList {QStringLiteral("get"), QStringLiteral("update"), QStringLiteral("get"),
            QStringLiteral("update")}));
    QCOMPARE(h.lock->stored->holderIdentity, QString());
    QCOMPARE(h.lock->stored->leaseDurationSeconds, 1);
}

// client-go's release trusts the record it observed last; a fresh read that shows another
// holder (who took over meanwhile) must not be cleared.
void tst_LeaderElector::releaseNeverClearsAnotherHolder()
{
    Harness h;
    QVERIFY(h.tryAcquireOrRenew());
    h.lock->writeByOther(holder(QStringLiteral("other"), 15));
    QVERIFY(h.release());
    QCOMPARE(h.lock->stored->holderIdentity, QStringLiteral("other"));
    QCOMPARE(h.lock->ops.last(), QStringLiteral("get"));
}

// --- TestReleaseOnCancellation_Leases -----------------------------------------------------

void tst_LeaderElector::releaseOnCancellationOfUpdate()
{
    Harness h([](LeaderElectionConfig &c) { c.releaseOnCancel = true; });
    // Updates 1 and 3 (fast path renewals) fail; the 4th (a renewal) hangs until cancelled.
    h.lock->onUpdate = [](int n, const LeaderElectionRecord &) -> std::optional<WriteResult> {
        if (n % 2 == 1 && n < 5)
            return WriteResult(canceled());
        return std::nullopt;
    };
    h.lock->holdUpdate = [](int n) { return n == 4; };
    int updatesAtStoppedLeading = -1;
    QObject::connect(h.elector.get(), &LeaderElector::stoppedLeading,
        [&] { updatesAtStoppedLeading = h.lock->updates; });
    h.elector->run();
    settle();
    QVERIFY(h.signalsSeen.contains(QStringLiteral("started")));
    for (int i = 0; i < 5 && !h.lock->heldUpdate; ++i)
        h.advance(1s);
    QVERIFY(h.lock->heldUpdate); // the renewal is in flight

    h.elector->stop();
    h.lock->finishHeldUpdate(WriteResult(canceled()));
    settle();
    QCOMPARE(h.lock->updates, 5); // the release
    // stoppedLeading() before the release's write (client-go calls OnStoppedLeading after it;
    // qcm's order is deliberate: the leader's work stops before another may start).
    QCOMPARE(updatesAtStoppedLeading, 4);
    QCOMPARE(h.lock->stored->holderIdentity, QString());
    QCOMPARE(h.lock->stored->leaseDurationSeconds, 1);
    QCOMPARE(h.lock->events,
        (QStringList {QStringLiteral("baz became leader"), QStringLiteral("baz stopped leading")}));
    QCOMPARE(h.signalsSeen.last(), QStringLiteral("finished"));
    QVERIFY(!h.elector->isRunning());
}

// The host stops its controllers before it releases, blocking its event loop meanwhile: a
// renewal timer that fired then is still queued when the release starts. It must not count as
// the release's deadline (it used to: "Failed to release lock ... within renewDeadline" at
// once, and the standby waited out the whole lease).
void tst_LeaderElector::releaseAfterABlockedEventLoop()
{
    Harness h([](LeaderElectionConfig &c) { c.releaseOnCancel = true; });
    h.elector->run();
    settle();
    QVERIFY(h.signalsSeen.contains(QStringLiteral("started")));
    h.clock.step(1500ms); // the retry timer fires; its callback waits in the event queue
    h.elector->stop();
    settle();
    QCOMPARE(h.lock->stored->holderIdentity, QString()); // released
    QCOMPARE(h.lock->stored->leaseDurationSeconds, 1);
    QCOMPARE(h.signalsSeen.last(), QStringLiteral("finished"));
}

// client-go's "release acquired lock on cancellation of get" never releases: its 4th get (the
// third renewal's) is the one held and cancelled, its release's get (the 5th) fails with
// Canceled too, and the case passes only because its onRelease channel is closed by the second
// renewal's update (update 4), not by a release (client-go v0.37.2 logs "error retrieving
// resource lock ... context canceled" from release). This port holds the second renewal's get
// instead and lets the release's calls through, so that the release the case is named for
// happens and is asserted.
void tst_LeaderElector::releaseOnCancellationOfGet()
{
    Harness h([](LeaderElectionConfig &c) { c.releaseOnCancel = true; });
    // Fast path renewals always fail, so each renewal reads; the 3rd read (the second
    // renewal's) hangs until cancelled and then fails.
    h.lock->onUpdate = [](int n, const LeaderElectionRecord &) -> std::optional<WriteResult> {
        if (n % 2 == 1)
            return WriteResult(canceled());
        return std::nullopt;
    };
    h.lock->holdGet = [](int n) { return n == 3; };
    h.elector->run();
    settle();
    for (int i = 0; i < 5 && !h.lock->heldGet; ++i)
        h.advance(1s);
    QVERIFY(h.lock->heldGet);

    h.elector->stop();
    h.lock->finishHeldGet(GetResult(canceled()));
    h.lock->onUpdate = {};
    settle();
    QCOMPARE(h.lock->stored->holderIdentity, QString());
    QCOMPARE(h.lock->stored->leaseDurationSeconds, 1);
    QCOMPARE(h.lock->events,
        (QStringList {QStringLiteral("baz became leader"), QStringLiteral("baz stopped leading")}));
    QCOMPARE(h.signalsSeen.last(), QStringLiteral("finished"));
}

// --- TestLeaderElectionHealthChecker -------------------------------------------------------

void tst_LeaderElector::leaderElectionHealthChecker_data()
{
    QTest::addColumn<bool>("withElector");
    QTest::addColumn<QString>("holder");
    QTest::addColumn<qint64>("sinceObservedNs"); // on the elector's clock
    QTest::addColumn<QString>("expected");
    const QString failed = QStringLiteral("failed election to renew leadership on lease foo");
    auto ns = [](Duration d) { return qint64(d.count()); };
    // client-go's five cases (leaseDuration 1 min, adaptor timeout 20 s).
    QTest::newRow("call check before leader elector initialized")
        << false << QString() << ns(0s) << QString();
    QTest::newRow("call check when the lease is far expired")
        << true << QStringLiteral("healthTest") << ns(1h) << failed;
    QTest::newRow("call check when the lease is far expired but held by another server")
        << true << QStringLiteral("otherServer") << ns(1h) << QString();
    QTest::newRow("call check when the lease is not expired")
        << true << QStringLiteral("healthTest") << ns(0s) << QString();
    QTest::newRow("call check when the lease is expired but inside the timeout")
        << true << QStringLiteral("healthTest") << ns(61s) << QString();
    // client-go's comparison is strict: Since(observed) > leaseDuration + timeout.
    QTest::newRow("exactly leaseDuration + timeout")
        << true << QStringLiteral("healthTest") << ns(80s) << QString();
    QTest::newRow("just past leaseDuration + timeout")
        << true << QStringLiteral("healthTest") << ns(80s + 1ns) << failed;
    QTest::newRow("nobody holds it, far expired") << true << QString() << ns(1h) << QString();
}

void tst_LeaderElector::leaderElectionHealthChecker()
{
    QFETCH(bool, withElector);
    QFETCH(QString, holder);
    QFETCH(qint64, sinceObservedNs);
    QFETCH(QString, expected);

    HealthzAdaptor adaptor(20s);
    QCOMPARE(HealthzAdaptor::name(), QStringLiteral("leaderElection"));
    FakeClock clock;
    auto lock = std::make_shared<FakeLock>(QStringLiteral("healthTest"));
    LeaderElectionConfig config;
    config.lock = lock;
    config.clock = &clock;
    config.leaseDuration = 60s;
    config.name = QStringLiteral("foo");
    auto elector = LeaderElector::create(config);
    QVERIFY(elector.ok());
    QVERIFY(!adaptor.check()); // an adaptor starts without an elector, healthy
    if (withElector) {
        auto &d = Harness::d(**elector);
        {
            std::lock_guard guard(d.mutex);
            d.observedRecord = testing::holder(holder);
            d.observedTime = clock.now();
        }
        clock.step(Duration(sinceObservedNs));
        adaptor.setLeaderElection(elector->get());
    }
    const std::optional<Error> error = adaptor.check();
    QCOMPARE(error ? error->reason : QString(), expected);
    // The adaptor's answer is the elector's check(timeout).
    const std::optional<Error> direct = (*elector)->check(20s);
    QCOMPARE(direct ? direct->reason : QString(), withElector ? expected : QString());
    adaptor.setLeaderElection(nullptr); // unset before the elector goes: healthy again
    QVERIFY(!adaptor.check());
}

// --- TestCheckMethodRace ------------------------------------------------------------------

// A clock whose now() is a relaxed atomic copy of a FakeClock's time. Reading it does not
// order threads the way FakeClock's mutex does, so TSan sees every read of the elector's state
// that is not under the elector's own lock as a race.
class UnorderedClock : public Clock
{
public:
    explicit UnorderedClock(FakeClock &fake) : m_fake(fake) { sync(); }
    TimePoint now() const override
    {
        return TimePoint(Duration(m_now.load(std::memory_order_relaxed)));
    }
    std::unique_ptr<Timer> newTimer(std::function<void()> callback) override
    {
        return m_fake.newTimer(std::move(callback));
    }
    void step(Duration d)
    {
        m_fake.step(d);
        sync();
    }

private:
    void sync() { m_now.store(m_fake.now().time_since_epoch().count(), std::memory_order_relaxed); }

    FakeClock &m_fake;
    std::atomic<Duration::rep> m_now {0};
};

// check() and the other any-thread getters read what the elector's thread writes; under TSan a
// missing lock shows up as a race. check() has a thread of its own that synchronises with
// nothing (relaxed counters, a clock without a mutex): a thread that also took the elector's
// mutex elsewhere (isLeader(), leader()) would be ordered after the writes by that, and TSan
// could miss a check() that reads without the lock.
void tst_LeaderElector::checkMethodRace()
{
    std::unique_ptr<UnorderedClock> clock;
    Harness h([&](LeaderElectionConfig &c) {
        c.leaseDuration = 2s;
        c.renewDeadline = 1500ms;
        c.retryPeriod = 1s;
        c.mode = LeaderElectionConfig::Mode::Rejoin; // lead, lose and lead again throughout
        clock = std::make_unique<UnorderedClock>(*static_cast<FakeClock *>(c.clock));
        c.clock = clock.get();
    });
    h.lock->latency = Duration::zero(); // the fake lock steps the FakeClock only
    std::atomic<bool> done {false};
    std::atomic<int> checks {0};
    std::atomic<int> reads {0};
    std::thread checker([&] {
        while (!done.load(std::memory_order_relaxed)) {
            (void)h.elector->check(1s);
            checks.fetch_add(1, std::memory_order_relaxed);
        }
    });
    std::thread reader([&] {
        while (!done.load(std::memory_order_relaxed)) {
            (void)h.elector->isLeader();
            (void)h.elector->leader();
            (void)h.elector->token().isValid();
            reads.fetch_add(1, std::memory_order_relaxed);
        }
    });
    h.elector->run();
    // Step time until both threads have overlapped with many steps (they may start late).
    QElapsedTimer elapsed;
    elapsed.start();
    auto count = [](const std::atomic<int> &n) { return n.load(std::memory_order_relaxed); };
    for (int i = 0;
         i < 200 || ((count(checks) < 2000 || count(reads) < 2000) && elapsed.elapsed() < 20000);
         ++i) {
        clock->step(500ms);
        settle();
        if (i % 50 == 25)
            h.lock->writeByOther(holder(QStringLiteral("other"), 2)); // lose it now and then
    }
    done = true;
    checker.join();
    reader.join();
    QVERIFY(checks > 0);
    QVERIFY(reads > 0);
    QVERIFY(h.signalsSeen.count(QStringLiteral("started")) >= 2); // it led, lost and led again
}

// As client-go's Check, the last observed record decides: a Rejoin elector that lost its term
// in a partition is a candidate, but it last saw itself holding the lock, so once that is
// older than leaseDuration + the tolerance it is unhealthy, until it observes another holder.
void tst_LeaderElector::checkInRejoinWhilePartitioned()
{
    Harness h([](LeaderElectionConfig &c) {
        c.mode = LeaderElectionConfig::Mode::Rejoin;
        c.leaseDuration = 3s;
    });
    h.elector->run();
    settle();
    QVERIFY(h.elector->isLeader());
    h.lock->failEveryCall();
    h.advance(2500ms); // partitioned: the term ends at renewDeadline (2 s)
    QVERIFY(!h.elector->isLeader());
    QVERIFY(h.elector->isRunning()); // a candidate again
    QVERIFY(!h.elector->check(1s)); // observed 2.5 s ago: within 3 s + 1 s
    h.advance(2s);
    const std::optional<Error> unhealthy = h.elector->check(1s);
    QVERIFY(unhealthy);
    QCOMPARE(unhealthy->reason, QStringLiteral("failed election to renew leadership on lease foo"));
    // The partition heals; someone else holds the lock by now.
    h.lock->answerEveryCall();
    h.lock->writeByOther(holder(QStringLiteral("other"), 3));
    h.advance(3s);
    QCOMPARE(h.elector->leader(), QStringLiteral("other"));
    QVERIFY(!h.elector->check(1s));
}

// --- beyond client-go: pause safety --------------------------------------------------------

// A leader paused for longer than the lease (SIGSTOP, a VM stall): the fake monotonic clock
// jumps in one step. Its token is invalid at once, before the elector's thread runs again; the
// elector then steps down without sending another renewal, and a candidate that took over
// meanwhile keeps the lock.
void tst_LeaderElector::pauseStepsDownBeforeLeaderWork()
{
    Harness h([](LeaderElectionConfig &c) {
        c.leaseDuration = 3s;
        c.renewDeadline = 2s;
        c.retryPeriod = 1s;
        c.mode = LeaderElectionConfig::Mode::Rejoin;
    });
    LeaderToken token;
    QObject::connect(
        h.elector.get(), &LeaderElector::startedLeading, [&](const LeaderToken &t) { token = t; });
    h.elector->run();
    settle();
    h.advance(1s);
    QVERIFY(token.isValid());
    QVERIFY(h.elector->isLeader());
    const int opsBefore = h.lock->ops.size();

    // The pause: 5 s pass at once; another candidate takes the lock while this one is frozen.
    h.clock.step(5s);
    h.lock->writeByOther(holder(QStringLiteral("other"), 3));
    // Nothing has run on the elector's thread yet, and still:
    QVERIFY(!token.isValid());
    QVERIFY(!h.elector->isLeader());
    QVERIFY(token.endedAt() <= h.clock.now() - 3s); // the term ended during the pause
    QCOMPARE(h.lock->ops.size(), opsBefore);

    settle(); // the elector's thread runs again
    QCOMPARE(h.signalsSeen.count(QStringLiteral("stopped")), 1);
    QVERIFY(!h.elector->isLeader());
    // It stepped down without renewing; rejoining, it only read and found "other" holding.
    QCOMPARE(h.lock->ops.mid(opsBefore), QStringList {QStringLiteral("get")});
    QCOMPARE(h.lock->stored->holderIdentity, QStringLiteral("other"));
    QCOMPARE(h.elector->leader(), QStringLiteral("other"));
    QCOMPARE(h.signalsSeen.count(QStringLiteral("started")), 1);
}

// The rule, at its edge: paused longer than renewDeadline (2 s) but shorter than the
// lease (15 s), so nobody else could have taken over yet, and a renewal and the deadline are
// both due the instant it resumes. The term still ends: the token is invalid before the
// elector's thread runs, stoppedLeading() comes before any lock call (no renewal is sent
// first), and RunOrDie exits. With releaseOnCancel the only calls after the pause are the
// release, after stoppedLeading().
void tst_LeaderElector::pausePastRenewDeadlineWithinTheLease_data()
{
    QTest::addColumn<bool>("releaseOnCancel");
    QTest::newRow("RunOrDie") << false;
    QTest::newRow("RunOrDie, releasing") << true;
}

void tst_LeaderElector::pausePastRenewDeadlineWithinTheLease()
{
    QFETCH(bool, releaseOnCancel);
    Harness h([&](LeaderElectionConfig &c) { c.releaseOnCancel = releaseOnCancel; });
    LeaderToken token;
    QObject::connect(
        h.elector.get(), &LeaderElector::startedLeading, [&](const LeaderToken &t) { token = t; });
    bool validInStoppedLeading = true;
    qsizetype opsAtStoppedLeading = -1;
    QObject::connect(h.elector.get(), &LeaderElector::stoppedLeading, [&] {
        validInStoppedLeading = token.isValid() || h.elector->isLeader();
        opsAtStoppedLeading = h.lock->ops.size();
    });
    h.elector->run();
    settle();
    h.advance(500ms);
    QVERIFY(token.isValid());
    const TimePoint lastRenewalSent = h.d().attemptStart;
    const qsizetype opsBefore = h.lock->ops.size();

    h.clock.step(2500ms); // the pause: the renewal timer and the deadline both come due
    QVERIFY(h.clock.now() > lastRenewalSent + 2s);
    QVERIFY(!token.isValid()); // before the elector's thread has run at all
    QVERIFY(!h.elector->isLeader());
    QCOMPARE(h.lock->ops.size(), opsBefore);

    settle(); // it resumes
    QCOMPARE(opsAtStoppedLeading, opsBefore); // stepped down before any lock call
    QVERIFY(!validInStoppedLeading);
    QCOMPARE(token.endedAt(), lastRenewalSent + 2s);
    QCOMPARE(h.signalsSeen.mid(h.signalsSeen.indexOf(QStringLiteral("stopped"))),
        (QStringList {QStringLiteral("stopped"), QStringLiteral("finished")}));
    QCOMPARE(h.exits, 1);
    if (releaseOnCancel) {
        QCOMPARE(h.lock->ops.mid(opsBefore),
            (QStringList {QStringLiteral("get"), QStringLiteral("update")}));
        QCOMPARE(h.lock->stored->holderIdentity, QString());
    } else {
        QCOMPARE(h.lock->ops.size(), opsBefore); // not one renewal after the pause
        QCOMPARE(h.lock->stored->holderIdentity, QStringLiteral("baz"));
    }
}

// A renewal sent before the pause whose success arrives after it does not revive the term:
// the deadline counts from when the renewal was sent. The reply is handled before the
// deadline timer, so it is the reply's handling that must see the term is over.
void tst_LeaderElector::lateRenewalReplyDoesNotReviveTheTerm()
{
    Harness h;
    h.elector->run();
    settle();
    h.lock->holdUpdate = [](int) { return true; };
    h.advance(1s); // a renewal is sent and hangs
    QVERIFY(h.lock->heldUpdate);
    QVERIFY(h.elector->isLeader());
    h.lock->finishHeldUpdate(WriteResult()); // the server had accepted it, but
    h.clock.step(3s); // the process was paused past renewDeadline (2 s) before it saw that
    settle();
    QVERIFY(!h.elector->isLeader());
    QCOMPARE(h.signalsSeen.count(QStringLiteral("stopped")), 1);
    QCOMPARE(h.exits, 1); // RunOrDie
}

// A slow renewal whose reply still arrives before the term's deadline extends the term to
// renewDeadline after the renewal was *sent*, not after its reply arrived: others may have
// seen the record change as early as the send.
void tst_LeaderElector::slowRenewalCountsFromItsSend()
{
    Harness h; // renewDeadline 2 s, retryPeriod 1 s
    LeaderToken token;
    QObject::connect(
        h.elector.get(), &LeaderElector::startedLeading, [&](const LeaderToken &t) { token = t; });
    h.lock->latency = Duration::zero();
    h.elector->run();
    settle(); // acquired, and renewed at once
    QVERIFY(token.isValid());
    h.lock->holdUpdate = [](int) { return true; };
    for (int i = 0; i < 200 && !h.lock->heldUpdate; ++i)
        h.advance(10ms);
    QVERIFY(h.lock->heldUpdate); // the next renewal is in flight
    const TimePoint sent = h.d().attemptStart;
    QCOMPARE(sent, h.clock.now());
    const TimePoint oldDeadline = token.deadline();
    QVERIFY(oldDeadline > sent + 800ms);
    h.lock->holdUpdate = {};
    h.clock.step(800ms); // a slow reply, but before the old deadline
    QVERIFY(h.clock.now() < oldDeadline);
    h.lock->finishHeldUpdate(h.lock->heldUpdateResult);
    settle();
    QVERIFY(h.elector->isLeader());
    QCOMPARE(token.deadline(), sent + 2s); // not the reply's time + 2 s
    h.advance(10ms);
    QCOMPARE(token.deadline(), sent + 2s); // no other renewal yet (one retryPeriod after)
}

// After a failed renewal the next try comes retryPeriod after the start of the failed one (or
// at once if it took longer), as client-go's wait.PollUntilContextTimeout; after a success,
// retryPeriod after it completed, as client-go's wait.Until.
void tst_LeaderElector::renewalRetryCadence()
{
    Harness h([](LeaderElectionConfig &c) { c.renewDeadline = 9s; });
    h.lock->latency = Duration::zero();
    h.elector->run();
    settle(); // acquired, and renewed at once
    // Every failing try is the fast path's update, then the slow path's read (the lock keeps
    // its version when a get fails, as LeaseLock does).
    QList<TimePoint> tries; // when each try started
    h.lock->onUpdate = [](int, const LeaderElectionRecord &) -> std::optional<WriteResult> {
        return WriteResult(canceled());
    };
    h.lock->onGet = [&](int) -> std::optional<GetResult> {
        tries << h.d().attemptStart;
        return GetResult(canceled());
    };
    h.lock->latency = 300ms; // each call takes 300 ms, each try 600 ms
    for (int i = 0; i < 400 && tries.size() < 3; ++i)
        h.advance(10ms);
    QCOMPARE(tries.size(), 3);
    for (int i : {1, 2}) {
        QVERIFY(tries[i] - tries[i - 1] >= 1s);
        QVERIFY(tries[i] - tries[i - 1] <= 1s + 10ms); // not the try's 600 ms + 1 s
    }

    // A try that takes longer than retryPeriod is followed by the next at once.
    h.lock->latency = 600ms; // each try 1.2 s
    tries.clear();
    for (int i = 0; i < 400 && tries.size() < 3; ++i)
        h.advance(10ms);
    QCOMPARE(tries.size(), 3);
    QVERIFY(h.elector->isLeader());
    QVERIFY(tries[2] - tries[1] >= 1200ms);
    QVERIFY(tries[2] - tries[1] <= 1200ms + 10ms); // not 1.2 s + 1 s
}

// client-go's renew polls with a *ticker* (wait.PollUntilContextTimeout, not sliding): ticks
// fall on retryPeriod steps from the start of the renew cycle, and a tick that came during a
// try that overran is used at once. So after an overrunning try, a short failed one is followed
// by the next *tick*, not by retryPeriod after its own start. Measured with client-go v0.37.2
// (tries of 1.5 s, 0.2 s, 0 s with retryPeriod 1 s): they start at +0, +1.5, +2.0, +3.0 s.
void tst_LeaderElector::renewalRetriesOnTheCycleGrid()
{
    Harness h([](LeaderElectionConfig &c) { c.renewDeadline = 9s; });
    h.lock->latency = Duration::zero();
    h.elector->run();
    settle(); // acquired, and renewed at once
    QList<TimePoint> tries; // when each failing try started
    const QList<Duration> takes {1500ms, 200ms, 0ms, 0ms};
    // Every try fails: the fast path's update (while the lock has a version to write over),
    // then the slow path's get, which takes the try's time.
    h.lock->onUpdate = [](int, const LeaderElectionRecord &) -> std::optional<WriteResult> {
        return WriteResult(canceled());
    };
    h.lock->onGet = [&](int) -> std::optional<GetResult> {
        tries << h.d().attemptStart;
        const Duration take = takes.value(tries.size() - 1);
        if (take > Duration::zero())
            h.clock.step(take);
        return GetResult(canceled());
    };
    for (int i = 0; i < 600 && tries.size() < 4; ++i)
        h.advance(10ms);
    QCOMPARE(tries.size(), 4);
    QVERIFY(h.elector->isLeader());
    const TimePoint cycle = tries[0];
    // The tick at +1 s came during the first try: the next follows it at once (the fake clock
    // fires a timer due now on its next 10 ms step).
    QVERIFY(tries[1] - cycle >= 1500ms);
    QVERIFY(tries[1] - cycle <= 1500ms + 10ms);
    QVERIFY(tries[2] - cycle >= 2s); // the tick at +2 s, not 1.5 s + 1 s
    QVERIFY(tries[2] - cycle <= 2s + 10ms);
    QVERIFY(tries[3] - cycle >= 3s);
    QVERIFY(tries[3] - cycle <= 3s + 10ms);
}

// Renewals that keep failing end the term exactly renewDeadline after the start of the last
// successful one.
void tst_LeaderElector::renewDeadlineEndsTheTerm()
{
    Harness h([](LeaderElectionConfig &c) { c.mode = LeaderElectionConfig::Mode::Rejoin; });
    LeaderToken token;
    QObject::connect(
        h.elector.get(), &LeaderElector::startedLeading, [&](const LeaderToken &t) { token = t; });
    h.elector->run();
    settle(); // acquired, then renewed at once
    const TimePoint lastSuccessStart = h.d().attemptStart;
    h.lock->failEveryCall();
    while (h.clock.now() < lastSuccessStart + 2s - 100ms) {
        h.advance(100ms);
        QVERIFY(h.elector->isLeader());
    }
    h.advance(100ms);
    QVERIFY(!h.elector->isLeader());
    QCOMPARE(token.endedAt(), lastSuccessStart + 2s);
    QCOMPARE(h.signalsSeen.count(QStringLiteral("stopped")), 1);
    QCOMPARE(h.exits, 0); // Rejoin
}

// The lock keeps its object when a get fails (client-go's LeaseLock), so every renewal try of a
// partitioned leader is client-go's: the fast path's update (the observed lease is still
// valid), then the slow path's get, both failing; one try per retryPeriod tick until the term
// ends at renewDeadline.
void tst_LeaderElector::partitionedRenewalsTryTheFastPathEachTime()
{
    Harness h([](LeaderElectionConfig &c) { c.renewDeadline = 5s; });
    h.lock->latency = Duration::zero();
    h.elector->run();
    settle(); // acquired, and renewed at once
    const TimePoint lastSuccessStart = h.d().attemptStart;
    const qsizetype opsBefore = h.lock->ops.size();
    h.lock->failEveryCall();
    while (h.elector->isLeader())
        h.advance(100ms);
    QCOMPARE(h.clock.now(), lastSuccessStart + 5s);
    const QStringList tries = h.lock->ops.mid(opsBefore);
    // Tries at +1, +2, +3 and +4 s; the one due at +5 s is not sent, the term is over.
    QCOMPARE(tries,
        (QStringList {QStringLiteral("update"), QStringLiteral("get"), QStringLiteral("update"),
            QStringLiteral("get"), QStringLiteral("update"), QStringLiteral("get"),
            QStringLiteral("update"), QStringLiteral("get")}));
    QCOMPARE(h.exits, 1);
}

// A candidate whose acquiring update succeeds on the server but whose reply it sees only after
// a pause longer than renewDeadline (SIGSTOP with the request in flight): it must not start a
// term that is over already. It tries again at once (the resourceVersion makes that safe) and
// leads on a fresh term.
void tst_LeaderElector::lateAcquireReplyDoesNotLead()
{
    Harness h; // renewDeadline 2 s
    h.lock->stored = LeaderElectionRecord(); // nobody holds it: get, then update
    h.lock->holdUpdate = [](int n) { return n == 1; };
    QList<bool> validAtStart;
    QObject::connect(h.elector.get(), &LeaderElector::startedLeading,
        [&](const LeaderToken &token) { validAtStart << token.isValid(); });
    h.elector->run();
    settle();
    QVERIFY(h.lock->heldUpdate); // the acquiring update is in flight
    h.lock->finishHeldUpdate(h.lock->heldUpdateResult); // the server accepted it, but
    h.clock.step(60s); // the process was paused before it saw the reply
    settle();
    QCOMPARE(validAtStart, QList<bool> {true});
    QVERIFY(h.elector->isLeader());
    QVERIFY(h.elector->token().deadline() > h.clock.now());
    // get, the held update, then the retry's update (fast path) and the first renewal.
    QCOMPARE(h.lock->ops.mid(0, 3),
        (QStringList {QStringLiteral("get"), QStringLiteral("update"), QStringLiteral("update")}));
}

// A candidate whose request hangs (the client has no timeout) abandons it after renewDeadline,
// as client-go's context timeout would, and tries again; the late reply is ignored.
void tst_LeaderElector::hungAcquireIsAbandoned()
{
    Harness h; // renewDeadline 2 s, retryPeriod 1 s
    h.lock->latency = Duration::zero();
    h.lock->holdGet = [](int) { return true; }; // no get ever answers
    const TimePoint start = h.clock.now();
    h.elector->run();
    settle();
    QCOMPARE(h.lock->gets, 1);
    const auto firstGet = h.lock->heldGet;
    TimePoint secondGetAt;
    for (int i = 0; i < 30 && h.lock->gets < 2; ++i) {
        h.advance(100ms);
        secondGetAt = h.clock.now();
    }
    QCOMPARE(h.lock->gets, 2);
    QVERIFY(secondGetAt >= start + 2s); // not before renewDeadline
    QVERIFY(secondGetAt <= start + 2s + 100ms); // and at once then
    for (int i = 0; i < 25; ++i)
        h.advance(100ms);
    QVERIFY(h.lock->gets >= 3); // and again, while the gets keep hanging

    // The abandoned get answers late: ignored.
    firstGet->addResult(GetResult(ObservedRecord {
        holder(QStringLiteral("other"), 15), rawOf(holder(QStringLiteral("other"), 15))}));
    firstGet->finish();
    settle();
    QCOMPARE(h.elector->leader(), QString());
    QVERIFY(!h.signalsSeen.contains(QStringLiteral("new other")));

    // The current one answers: there is no lock object yet, so it is created and held.
    h.lock->holdGet = {};
    h.lock->finishHeldGet(GetResult(notFound()));
    settle();
    QVERIFY(h.elector->isLeader());
}

void tst_LeaderElector::takenOverLeaseStepsDownAtOnce()
{
    Harness h([](LeaderElectionConfig &c) { c.mode = LeaderElectionConfig::Mode::Rejoin; });
    h.elector->run();
    settle();
    QVERIFY(h.elector->isLeader());
    h.lock->writeByOther(holder(QStringLiteral("other"), 15)); // fast path conflicts, get shows it
    h.advance(1s);
    QVERIFY(!h.elector->isLeader());
    QCOMPARE(h.signalsSeen.count(QStringLiteral("stopped")), 1);
    QVERIFY(h.signalsSeen.contains(QStringLiteral("new other")));
}

// Acquire retries come retryPeriod × [1, 2.2) apart.
void tst_LeaderElector::acquireRetriesWithJitter()
{
    Harness h;
    h.lock->stored = holder(QStringLiteral("other"), 15);
    h.lock->latency = Duration::zero();
    h.elector->run();
    settle();
    QCOMPARE(h.lock->gets, 1);
    TimePoint last = h.clock.now();
    QList<Duration> gaps;
    while (gaps.size() < 30) {
        otherRenews(*h.lock);
        h.advance(10ms);
        if (h.lock->gets > gaps.size() + 1) {
            gaps << h.clock.now() - last;
            last = h.clock.now();
        }
    }
    QVERIFY(!h.elector->isLeader()); // every gap was an acquire retry, none a renewal
    QCOMPARE(h.lock->updates, 0);
    for (Duration gap : gaps) {
        QVERIFY(gap >= 1s);
        QVERIFY(gap < 2200ms + 10ms);
    }
    QVERIFY(*std::max_element(gaps.begin(), gaps.end()) > 1300ms); // it does jitter
}

// wait.JitterUntil(retryPeriod, 1.2, sliding): the wait starts when a try *completes*, and is
// retryPeriod + U[0, 1.2) × retryPeriod. Each try here takes 400 ms (a get), so from one try's
// start to the next is 400 ms + [1 s, 2.2 s). Over 300 tries the waits cover the range (a
// factor of 1.0 would never exceed 2 s) and average 1.6 s.
void tst_LeaderElector::acquireRetriesSlideAndSpreadOverTheJitter()
{
    Harness h;
    h.lock->stored = holder(QStringLiteral("other"), 15);
    h.lock->latency = 400ms;
    h.elector->run();
    settle();
    QCOMPARE(h.lock->gets, 1);
    TimePoint last = h.clock.now() - 400ms; // when the first get was sent
    QList<Duration> waits;
    while (waits.size() < 300) {
        otherRenews(*h.lock);
        const int gets = h.lock->gets;
        h.advance(10ms);
        if (h.lock->gets > gets) {
            const TimePoint sent = h.clock.now() - 400ms; // the get ticked the clock
            waits << sent - last - 400ms; // from the previous try's completion
            last = sent;
        }
    }
    QVERIFY(!h.elector->isLeader());
    QCOMPARE(h.lock->updates, 0);
    Duration sum = Duration::zero();
    for (Duration wait : waits) {
        QVERIFY2(
            wait >= 1s - 10ms && wait < 2200ms + 10ms, qPrintable(QString::number(wait.count())));
        sum += wait;
    }
    QVERIFY(*std::min_element(waits.begin(), waits.end()) < 1200ms);
    QVERIFY(*std::max_element(waits.begin(), waits.end()) > 2000ms);
    const Duration mean = sum / waits.size();
    QVERIFY2(mean > 1450ms && mean < 1750ms, qPrintable(QString::number(mean.count())));
}

void tst_LeaderElector::runOrDieExitsOnLoss()
{
    Harness h;
    h.elector->run();
    settle();
    h.lock->failEveryCall();
    h.advance(3s);
    QCOMPARE(h.exits, 1);
    QCOMPARE(h.signalsSeen.mid(h.signalsSeen.indexOf(QStringLiteral("stopped"))),
        (QStringList {QStringLiteral("stopped"), QStringLiteral("finished")}));
    QVERIFY(!h.elector->isRunning());
    // A requested stop never exits.
    Harness g;
    g.elector->run();
    settle();
    g.elector->stop();
    QCOMPARE(g.exits, 0);
}

void tst_LeaderElector::rejoinCampaignsAgain()
{
    Harness h([](LeaderElectionConfig &c) {
        c.mode = LeaderElectionConfig::Mode::Rejoin;
        c.leaseDuration = 3s;
    });
    h.elector->run();
    settle();
    h.lock->onUpdate = [](int, const LeaderElectionRecord &) -> std::optional<WriteResult> {
        return WriteResult(canceled());
    };
    h.advance(3s); // lost: renewals fail
    QVERIFY(!h.elector->isLeader());
    QVERIFY(h.elector->isRunning());
    h.lock->onUpdate = {};
    for (int i = 0; i < 10 && !h.elector->isLeader(); ++i)
        h.advance(1s);
    QVERIFY(h.elector->isLeader()); // nobody else took it: leading again, a new term
    QCOMPARE(h.signalsSeen.count(QStringLiteral("started")), 2);
    h.elector->stop();
    QCOMPARE(h.signalsSeen.last(), QStringLiteral("finished"));
    QCOMPARE(h.exits, 0);
}

void tst_LeaderElector::stopWhileCandidate()
{
    Harness h;
    h.lock->stored = holder(QStringLiteral("other"), 15);
    h.elector->run();
    settle();
    QVERIFY(!h.elector->isLeader());
    h.elector->stop();
    // As client-go's OnStoppedLeading, the run ends with stoppedLeading even though it never led.
    QCOMPARE(h.signalsSeen,
        (QStringList {
            QStringLiteral("new other"), QStringLiteral("stopped"), QStringLiteral("finished")}));
    const int ops = h.lock->ops.size();
    h.advance(10s);
    QCOMPARE(h.lock->ops.size(), ops);
}

// --- slots that stop, restart or delete the elector ----------------------------------------

// A stoppedLeading() slot that calls stop() after leadership was lost: the term ends once, the
// run finishes (Rejoin does not rejoin), and RunOrDie still exits, since the lease was lost.
void tst_LeaderElector::stopInStoppedLeadingAfterLoss_data()
{
    QTest::addColumn<bool>("rejoin");
    QTest::newRow("RunOrDie") << false;
    QTest::newRow("Rejoin") << true;
}

void tst_LeaderElector::stopInStoppedLeadingAfterLoss()
{
    QFETCH(bool, rejoin);
    Harness h([&](LeaderElectionConfig &c) {
        c.mode = rejoin ? LeaderElectionConfig::Mode::Rejoin : LeaderElectionConfig::Mode::RunOrDie;
    });
    int stops = 0;
    QObject::connect(h.elector.get(), &LeaderElector::stoppedLeading, [&] {
        ++stops;
        QVERIFY(!h.elector->isLeader());
        h.elector->stop();
    });
    h.elector->run();
    settle();
    QVERIFY(h.elector->isLeader());
    h.lock->failEveryCall();
    h.advance(3s); // renewals fail past renewDeadline
    QCOMPARE(stops, 1);
    QCOMPARE(h.signalsSeen.mid(h.signalsSeen.indexOf(QStringLiteral("stopped"))),
        (QStringList {QStringLiteral("stopped"), QStringLiteral("finished")}));
    QVERIFY(!h.elector->isRunning());
    QVERIFY(!h.elector->isLeader());
    QCOMPARE(h.exits, rejoin ? 0 : 1);
    const int ops = h.lock->ops.size();
    h.advance(10s);
    QCOMPARE(h.lock->ops.size(), ops); // finished: no more calls
}

// The same while stop() itself ends the term: stoppedLeading() once, then the release, then
// finished() once.
void tst_LeaderElector::stopInStoppedLeadingOnStop()
{
    Harness h([](LeaderElectionConfig &c) { c.releaseOnCancel = true; });
    int stops = 0;
    QObject::connect(h.elector.get(), &LeaderElector::stoppedLeading, [&] {
        ++stops;
        h.elector->stop();
    });
    h.elector->run();
    settle();
    QVERIFY(h.elector->isLeader());
    h.elector->stop();
    settle();
    QCOMPARE(stops, 1);
    QCOMPARE(h.signalsSeen.count(QStringLiteral("finished")), 1);
    QCOMPARE(h.signalsSeen.last(), QStringLiteral("finished"));
    QCOMPARE(h.lock->stored->holderIdentity, QString()); // released
    QVERIFY(!h.elector->isRunning());
    QCOMPARE(h.exits, 0);
}

// A newLeader() slot that calls stop() while the acquiring attempt succeeds: the elector does
// not go on to lead.
void tst_LeaderElector::stopInNewLeaderWhileAcquiring()
{
    Harness h;
    QObject::connect(h.elector.get(), &LeaderElector::newLeader, [&] { h.elector->stop(); });
    h.elector->run();
    settle();
    QCOMPARE(h.signalsSeen,
        (QStringList {
            QStringLiteral("new baz"), QStringLiteral("stopped"), QStringLiteral("finished")}));
    QVERIFY(!h.elector->isLeader());
    QVERIFY(!h.elector->isRunning());
    QVERIFY(!h.elector->token().isValid());
    const int ops = h.lock->ops.size();
    h.advance(10s);
    QCOMPARE(h.lock->ops.size(), ops);
    QCOMPARE(h.signalsSeen.count(QStringLiteral("started")), 0);
}

// The run lasts until finished(): run() from a stoppedLeading() slot does nothing, and from a
// finished() slot starts a new run.
void tst_LeaderElector::runInStoppedLeadingWaitsForFinished()
{
    Harness h;
    h.lock->stored = holder(QStringLiteral("other"), 15);
    bool restart = false;
    QObject::connect(h.elector.get(), &LeaderElector::stoppedLeading, [&] {
        QVERIFY(h.elector->isRunning());
        h.elector->run();
    });
    QObject::connect(h.elector.get(), &LeaderElector::finished, [&] {
        QVERIFY(!h.elector->isRunning());
        if (restart)
            h.elector->run();
    });
    h.elector->run();
    settle();
    h.elector->stop();
    QCOMPARE(h.signalsSeen.last(), QStringLiteral("finished"));
    QVERIFY(!h.elector->isRunning());
    const int ops = h.lock->ops.size();
    h.advance(10s);
    QCOMPARE(h.lock->ops.size(), ops);

    restart = true;
    h.elector->run();
    settle();
    h.elector->stop();
    QVERIFY(h.elector->isRunning()); // restarted by the finished() slot
    QCOMPARE(h.signalsSeen.last(), QStringLiteral("finished"));
    h.advance(3s);
    QVERIFY(h.lock->ops.size() > ops);
}

// A finished() slot that deletes the elector: nothing touches it afterwards, and a lost
// RunOrDie run still exits.
void tst_LeaderElector::deleteInFinished_data()
{
    QTest::addColumn<bool>("lose");
    QTest::addColumn<bool>("release");
    QTest::newRow("lost") << true << false;
    QTest::newRow("lost, releasing") << true << true;
    QTest::newRow("stopped") << false << false;
    QTest::newRow("stopped, releasing") << false << true;
}

void tst_LeaderElector::deleteInFinished()
{
    QFETCH(bool, lose);
    QFETCH(bool, release);
    Harness h([&](LeaderElectionConfig &c) { c.releaseOnCancel = release; });
    QObject::connect(h.elector.get(), &LeaderElector::finished, [&] { h.elector.reset(); });
    h.elector->run();
    settle();
    QVERIFY(h.elector->isLeader());
    if (lose) {
        h.lock->writeByOther(holder(QStringLiteral("other"), 15));
        h.advance(1s);
    } else {
        h.elector->stop();
        settle();
    }
    QVERIFY(!h.elector);
    QCOMPARE(h.signalsSeen.last(), QStringLiteral("finished"));
    QCOMPARE(h.exits, lose ? 1 : 0);
}

// A startedLeading() slot that deletes the elector: the renewal that would follow is not
// started on a deleted elector.
void tst_LeaderElector::deleteInStartedLeading()
{
    Harness h;
    QObject::connect(h.elector.get(), &LeaderElector::startedLeading, [&] { h.elector.reset(); });
    h.elector->run();
    settle();
    QVERIFY(!h.elector);
    QCOMPARE(h.lock->ops, (QStringList {QStringLiteral("get"), QStringLiteral("create")}));
    h.advance(5s);
    QCOMPARE(h.lock->ops.size(), 2);
}

// With watchLock, a candidate tries at the instant the observed lease expires.
void tst_LeaderElector::candidateTriesWhenTheLeaseExpires()
{
    Harness h([](LeaderElectionConfig &c) {
        c.watchLock = true;
        c.leaseDuration = 3s;
    });
    h.lock->stored = holder(QStringLiteral("other"), 3);
    h.lock->latency = Duration::zero();
    h.elector->run();
    settle();
    const TimePoint observed = h.clock.now();
    // "other" stopped renewing at `observed`; the candidate polls with jitter meanwhile.
    while (!h.elector->isLeader())
        h.advance(10ms);
    QVERIFY(h.clock.now() - observed <= 3s + 20ms);
    QVERIFY(h.clock.now() - observed >= 3s);
}

void tst_LeaderElector::lockChangeWakesACandidate()
{
    Harness h([](LeaderElectionConfig &c) { c.watchLock = true; });
    h.lock->stored = holder(QStringLiteral("other"), 15);
    h.elector->run();
    settle();
    QVERIFY(!h.elector->isLeader());
    // "other" releases; the watch reports the change.
    LeaderElectionRecord released = holder(QString(), 1);
    h.lock->writeByOther(released);
    emit h.lock->changed();
    settle();
    QVERIFY(h.elector->isLeader());
}

void tst_LeaderElector::metrics()
{
    metrics::Registry registry;
    Harness h([&](LeaderElectionConfig &c) {
        c.metrics = &registry;
        c.mode = LeaderElectionConfig::Mode::Rejoin;
    });
    auto value = [&](const QString &name) { return metricValue(registry, name); };
    QCOMPARE(value(QStringLiteral("leader_election_master_status")), 0.0);
    h.elector->run();
    settle();
    QCOMPARE(value(QStringLiteral("leader_election_master_status")), 1.0);
    QCOMPARE(value(QStringLiteral("leader_election_slowpath_total")), 0.0);
    h.lock->writeByOther(*h.lock->stored); // the fast path conflicts, the slow path renews
    h.advance(1s);
    QVERIFY(h.elector->isLeader());
    QCOMPARE(value(QStringLiteral("leader_election_slowpath_total")), 1.0);
    h.elector->stop();
    QCOMPARE(value(QStringLiteral("leader_election_master_status")), 0.0);
}

// leader_election_master_status is 1 exactly while leading: 0 when a term is lost, 1 again on
// the next, 0 after stop() between two renewals (client-go v0.37.2 leaves it at 1 when its
// context is cancelled while renew waits between renewals: Run returns without leaderOff;
// measured). leader_election_slowpath_total counts a leader's slow path when it is taken,
// whether its update then succeeds or not (client-go increments before the update), and never
// a candidate's.
void tst_LeaderElector::metricsFollowEveryTerm()
{
    metrics::Registry registry;
    Harness h([&](LeaderElectionConfig &c) {
        c.metrics = &registry;
        c.mode = LeaderElectionConfig::Mode::Rejoin;
    });
    auto value = [&](const QString &name) { return metricValue(registry, name); };
    const QString status = QStringLiteral("leader_election_master_status");
    const QString slowpath = QStringLiteral("leader_election_slowpath_total");
    h.elector->run();
    settle();
    QCOMPARE(value(status), 1.0);
    QCOMPARE(value(slowpath), 0.0); // acquired by create, renewed by the fast path

    // The fast path conflicts, and so does the slow path's update: counted once all the same.
    h.lock->writeByOther(*h.lock->stored);
    h.lock->onUpdate = [](int, const LeaderElectionRecord &) -> std::optional<WriteResult> {
        return WriteResult(conflict());
    };
    h.advance(1s);
    QCOMPARE(value(slowpath), 1.0);
    QCOMPARE(value(status), 1.0);

    h.advance(2s); // every renewal fails: the term ends at renewDeadline
    QVERIFY(!h.elector->isLeader());
    QCOMPARE(value(status), 0.0);

    h.lock->onUpdate = {};
    for (int i = 0; i < 10 && !h.elector->isLeader(); ++i)
        h.advance(1s);
    QVERIFY(h.elector->isLeader());
    QCOMPARE(value(status), 1.0);
    QCOMPARE(h.signalsSeen.count(QStringLiteral("started")), 2);

    h.advance(500ms); // between two renewals
    h.elector->stop();
    QCOMPARE(value(status), 0.0);

    // A candidate's slow path (another holder's valid lease) is not counted.
    metrics::Registry other;
    Harness g([&](LeaderElectionConfig &c) { c.metrics = &other; });
    g.lock->stored = holder(QStringLiteral("other"), 15);
    g.elector->run();
    settle();
    g.advance(3s);
    QVERIFY(!g.elector->isLeader());
    QCOMPARE(metricValue(other, slowpath), 0.0);
}

QTEST_GUILESS_MAIN(tst_LeaderElector)
#include "tst_leaderelector.moc"
