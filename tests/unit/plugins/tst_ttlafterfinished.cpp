// SPDX-License-Identifier: Apache-2.0
// ttl-after-finished on the kit's fakes (samplestestsupport.h): upstream's TestTimeLeft (and
// the finish-time errors) on checkTtl(), the informer filter, processJob() with its second
// look at the API server's Job, the delete options, the settings, and the controller running
// with its workers on a fake clock, its informers watching the FakeClient.
#include "samplestestsupport.h"
#include "ttlafterfinished.h"
#include "ttlafterfinishedcontroller.h"

#include <qcm/api/batch/v1.h>
#include <qcm/metrics/histogram.h>

#include <QtTest/QtTest>

#include <stdexcept>
#include <utility>

using namespace qcm;
using namespace qcm::samples;
using namespace qcm::samples::testing;
using namespace std::chrono_literals;
using api::batch::v1::Job;
using api::batch::v1::JobCondition;
using api::batch::v1::JobConditionBuilder;

class tst_TtlAfterFinished : public QObject
{
    Q_OBJECT

private slots:
    void checkTtl_data();
    void checkTtl();
    void finishTimeErrors();
    void onlyJobsToCleanUpAreQueued();
    void deletesExpiredJob();
    void requeuesUntilExpired();
    void freshJobDecides_data();
    void freshJobDecides();
    void errorsAreRetried_data();
    void errorsAreRetried();
    void settings_data();
    void settings();
    void badSettingsFailTheFactory();
    void runsOnInformerEvents();
};

namespace {

const QDateTime Now = QDateTime(QDate(2024, 5, 1), QTime(12, 0, 0), Qt::UTC);
const GroupVersionResource Jobs = Job::groupVersionResource();

JobConditionBuilder condition(const QString &type, const QString &status, const QDateTime &at)
{
    JobConditionBuilder c = JobCondition::build().type(type).status(status);
    if (at.isValid())
        c.lastTransitionTime(at);
    return c;
}

// A Job "name" in "default" (uid "<name>-uid") with these conditions, and the TTL if set.
Object jobWith(const QList<JobConditionBuilder> &conditions, std::optional<int> ttl,
    const QString &name = QStringLiteral("foobar"))
{
    api::batch::v1::JobSpecBuilder spec = api::batch::v1::JobSpec::build();
    if (ttl)
        spec.ttlSecondsAfterFinished(*ttl);
    return Job::build()
        .metadata(api::meta::v1::ObjectMeta::build()
                      .namespace_(QStringLiteral("default"))
                      .name(name)
                      .uid(name + QStringLiteral("-uid")))
        .spec(spec)
        .status(api::batch::v1::JobStatus::build().conditions(conditions))
        .object();
}

// upstream's newJob: "foobar" in "default", with a Complete and/or Failed condition (status
// True) at the times given (invalid: none), and the TTL if set.
Object newJob(const QDateTime &completionTime, const QDateTime &failedTime, std::optional<int> ttl,
    const QString &name = QStringLiteral("foobar"))
{
    QList<JobConditionBuilder> conditions;
    if (completionTime.isValid())
        conditions.append(
            condition(QStringLiteral("Complete"), QStringLiteral("True"), completionTime));
    if (failedTime.isValid())
        conditions.append(condition(QStringLiteral("Failed"), QStringLiteral("True"), failedTime));
    return jobWith(conditions, ttl, name);
}

// Being deleted, held by a finalizer (as the API server keeps such a Job).
Object beingDeleted(const Object &job)
{
    return withMetadata(
        withMetadata(job, QStringLiteral("deletionTimestamp"), Now.toString(Qt::ISODate)),
        QStringLiteral("finalizers"), QJsonArray {QStringLiteral("example.com/hold")});
}

metrics::Histogram &deletionHistogram(metrics::Registry &registry)
{
    return registry
        .add<metrics::Histogram>(
            QStringLiteral("ttl_after_finished_controller_job_deletion_duration_seconds"),
            QStringLiteral("The time it took to delete the job since it became eligible for "
                           "deletion"))
        .add({}, metrics::exponentialBuckets(0.1, 2, 14));
}

// How many reconciles ended with `result` (success, error, requeue_after).
double reconciles(const metrics::Registry &registry, const QString &result)
{
    for (const metrics::MetricFamily &family : registry.collect()) {
        if (family.name != QLatin1String("qcm_reconcile_total"))
            continue;
        for (const metrics::ClientMetric &m : family.metrics) {
            const auto it = m.labels.find(QStringLiteral("result"));
            if (it != m.labels.end() && it->second == result)
                return m.value;
        }
    }
    return 0;
}

// The kit's fixture, with wall-clock time starting at Now and moving with the fake clock.
struct Fixture : SampleFixture
{
    const TimePoint start = clock.now();
    std::unique_ptr<TtlAfterFinishedController> ttl; // destroyed before the informers

    QDateTime now() const
    {
        return Now.addMSecs(
            std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - start).count());
    }
    // The Job `name` as the API server has it now (read through the tracker: no Action).
    ObjectResult stored(const QString &name = QStringLiteral("foobar"))
    {
        return client->tracker().get(Jobs, QStringLiteral("default"), name);
    }
    // Replaces the API server's Job "foobar" by `job` (none if empty), without an Action.
    void replace(const Object &job)
    {
        client->tracker().remove(Jobs, QStringLiteral("default"), QStringLiteral("foobar"), {});
        if (!job.isEmpty() && !client->add(Jobs, job))
            qFatal("replacing the Job failed");
    }
    // The controller, its informers synced with what was seeded.
    TtlAfterFinishedController &controller(const QString &policy = QStringLiteral("Background"))
    {
        TtlAfterFinishedController::Options options;
        options.propagationPolicy = policy;
        options.now = [this] { return now(); };
        ttl = std::make_unique<TtlAfterFinishedController>(
            context(QStringLiteral("ttl-after-finished")), client, options);
        if (!startInformers())
            qFatal("the informers did not sync");
        return *ttl;
    }
};

} // namespace

void tst_TtlAfterFinished::checkTtl_data()
{
    QTest::addColumn<QDateTime>("completionTime");
    QTest::addColumn<QDateTime>("failedTime");
    QTest::addColumn<int>("ttl"); // -1: none
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("timeLeftSeconds");
    QTest::addColumn<QDateTime>("expireAt");
    const QDateTime none;
    const int noCleanup = int(TtlCheck::Kind::NoCleanup);
    const int expired = int(TtlCheck::Kind::Expired);
    const int notYet = int(TtlCheck::Kind::NotYet);
    // Upstream's error cases ("should not be cleaned up") are NoCleanup here.
    QTest::newRow("Job unfinished") << none << none << 100 << noCleanup << 0 << none;
    QTest::newRow("Job completed now, no TTL") << Now << none << -1 << noCleanup << 0 << none;
    QTest::newRow("Job completed now, 0s TTL") << Now << none << 0 << expired << 0 << Now;
    QTest::newRow("Job completed now, 10s TTL")
        << Now << none << 10 << notYet << 10 << Now.addSecs(10);
    QTest::newRow("Job completed 10s ago, 15s TTL")
        << Now.addSecs(-10) << none << 15 << notYet << 5 << Now.addSecs(5);
    QTest::newRow("Job failed now, no TTL") << none << Now << -1 << noCleanup << 0 << none;
    QTest::newRow("Job failed now, 0s TTL") << none << Now << 0 << expired << 0 << Now;
    QTest::newRow("Job failed now, 10s TTL")
        << none << Now << 10 << notYet << 10 << Now.addSecs(10);
    QTest::newRow("Job failed 10s ago, 15s TTL")
        << none << Now.addSecs(-10) << 15 << notYet << 5 << Now.addSecs(5);
    QTest::newRow("Job completed 60s ago, 15s TTL")
        << Now.addSecs(-60) << none << 15 << expired << -45 << Now.addSecs(-45);
    // Clock skew: finished in the future; its time left is counted from then.
    QTest::newRow("Job completed 5s from now, 10s TTL")
        << Now.addSecs(5) << none << 10 << notYet << 15 << Now.addSecs(15);
}

void tst_TtlAfterFinished::checkTtl()
{
    QFETCH(QDateTime, completionTime);
    QFETCH(QDateTime, failedTime);
    QFETCH(int, ttl);
    QFETCH(int, kind);
    QFETCH(int, timeLeftSeconds);
    QFETCH(QDateTime, expireAt);
    const Job job(
        newJob(completionTime, failedTime, ttl < 0 ? std::nullopt : std::optional<int>(ttl)));
    const Result<TtlCheck> check = qcm::samples::checkTtl(job, Now);
    QVERIFY2(check.ok(), qPrintable(check.ok() ? QString() : check.error().toString()));
    QCOMPARE(int(check->kind), kind);
    QCOMPARE(needsCleanup(job), kind != int(TtlCheck::Kind::NoCleanup));
    if (check->kind == TtlCheck::Kind::NoCleanup)
        return;
    QCOMPARE(check->remaining, Duration(std::chrono::seconds(timeLeftSeconds)));
    QCOMPARE(check->expireAt, expireAt);
    // Being deleted: never cleaned up again.
    QCOMPARE(int(qcm::samples::checkTtl(Job(beingDeleted(job.object())), Now)->kind),
        int(TtlCheck::Kind::NoCleanup));
}

void tst_TtlAfterFinished::finishTimeErrors()
{
    // A finished Job without the time it finished is an error (retried), as upstream's
    // jobFinishTime says.
    const Job noTime(
        jobWith({condition(QStringLiteral("Complete"), QStringLiteral("True"), {})}, 10));
    const Result<TtlCheck> check = qcm::samples::checkTtl(noTime, Now);
    QVERIFY(!check.ok());
    QCOMPARE(check.error().reason,
        QStringLiteral("unable to find the time when the Job default/foobar finished"));
    // A condition that is not True does not finish a Job.
    const Job notTrue(
        jobWith({condition(QStringLiteral("Complete"), QStringLiteral("False"), Now)}, 10));
    QVERIFY(!isJobFinished(notTrue));
    QCOMPARE(jobFinishTime(notTrue).error().reason,
        QStringLiteral("unable to find the status of the finished Job default/foobar"));
}

// Upstream's addJob/updateJob: only Jobs that need cleaning up and are not being deleted are
// queued; deletes never are (a Job that is gone needs no cleanup).
void tst_TtlAfterFinished::onlyJobsToCleanUpAreQueued()
{
    const predicate::Predicate filter = jobsToCleanUp();
    const Object expired = newJob(Now.addSecs(-60), {}, 5);
    const Object notYet = newJob(Now, {}, 3600); // queued too: it is requeued until it expires
    const Object running = newJob({}, {}, 5);
    const Object noTtl = newJob(Now, {}, std::nullopt);
    QVERIFY(filter.passesCreate(expired));
    QVERIFY(filter.passesCreate(notYet));
    QVERIFY(!filter.passesCreate(running));
    QVERIFY(!filter.passesCreate(noTtl));
    QVERIFY(!filter.passesCreate(beingDeleted(expired)));
    // An update is judged by the new Job; a resync (the same Job twice) passes too.
    QVERIFY(filter.passesUpdate(running, expired));
    QVERIFY(filter.passesUpdate(expired, expired));
    QVERIFY(!filter.passesUpdate(expired, noTtl));
    QVERIFY(!filter.passesUpdate(expired, beingDeleted(expired)));
    QVERIFY(!filter.passesRemove(expired));
}

void tst_TtlAfterFinished::deletesExpiredJob()
{
    Fixture f;
    f.seed(Jobs, {newJob(Now.addSecs(-10), {}, 5)});
    TtlAfterFinishedController &c = f.controller();
    // What the e2e test and operators look for in the log.
    QTest::ignoreMessage(QtInfoMsg, "Cleaning up Job default/foobar");
    QVERIFY(c.processJob(QStringLiteral("default/foobar")).isDone());
    QCOMPARE(f.client->actionStrings(),
        QStringList({QStringLiteral("get jobs default/foobar"),
            QStringLiteral("delete jobs default/foobar")}));
    const DeleteOptions options = f.client->actions()[1].deleteOptions;
    QCOMPARE(options.propagationPolicy, QStringLiteral("Background"));
    QCOMPARE(options.preconditionUid, QStringLiteral("foobar-uid"));
    QVERIFY(f.stored().error().isNotFound());
    // Deleted 5 s after it expired.
    const metrics::Histogram &h = deletionHistogram(f.registry);
    QCOMPARE(h.count(), std::uint64_t(1));
    QCOMPARE(h.sum(), 5.0);
}

void tst_TtlAfterFinished::requeuesUntilExpired()
{
    Fixture f;
    f.seed(Jobs, {newJob(Now.addSecs(-10), {}, 15)});
    const ReconcileResult result = f.controller().processJob(QStringLiteral("default/foobar"));
    QCOMPARE(result.kind(), ReconcileResult::Kind::RequeueAfter);
    QCOMPARE(result.delay(), Duration(5s));
    QCOMPARE(f.client->actionStrings(), QStringList()); // the cache was enough
}

void tst_TtlAfterFinished::freshJobDecides_data()
{
    QTest::addColumn<Object>("fresh"); // empty: gone from the API server
    QTest::addColumn<int>("resultKind");
    QTest::addColumn<bool>("deleted"); // else the fresh Job is still there
    const int done = int(ReconcileResult::Kind::Done);
    QTest::newRow("deleted meanwhile") << Object() << done << false;
    QTest::newRow("TTL raised") << newJob(Now.addSecs(-10), {}, 3600)
                                << int(ReconcileResult::Kind::RequeueAfter) << false;
    QTest::newRow("TTL removed") << newJob(Now.addSecs(-10), {}, std::nullopt) << done << false;
    QTest::newRow("being deleted")
        << beingDeleted(newJob(Now.addSecs(-10), {}, 5)) << done << false;
    // Another Job of the same name, expired too: deleted by its own UID (upstream: "the checks
    // will be run again").
    QTest::newRow("recreated, expired") << withMetadata(
        newJob(Now.addSecs(-20), {}, 5), QStringLiteral("uid"), QStringLiteral("second-uid"))
                                        << done << true;
}

// The cache says the Job expired; between that read and the GET, the API server's Job became
// `fresh`, which decides.
void tst_TtlAfterFinished::freshJobDecides()
{
    QFETCH(Object, fresh);
    QFETCH(int, resultKind);
    QFETCH(bool, deleted);
    Fixture f;
    f.seed(Jobs, {newJob(Now.addSecs(-10), {}, 5)});
    TtlAfterFinishedController &c = f.controller();
    bool replaced = false;
    f.client->prependReactor([&](const Action &a) -> std::optional<ObjectResult> {
        if (a.verb == QLatin1String("get") && !std::exchange(replaced, true))
            f.replace(fresh);
        return std::nullopt; // the tracker answers
    });
    const ReconcileResult result = c.processJob(QStringLiteral("default/foobar"));
    QVERIFY(replaced);
    QCOMPARE(int(result.kind()), resultKind);
    QStringList expected {QStringLiteral("get jobs default/foobar")};
    if (deleted)
        expected << QStringLiteral("delete jobs default/foobar");
    QCOMPARE(f.client->actionStrings(), expected);
    if (deleted)
        QCOMPARE(f.client->actions()[1].deleteOptions.preconditionUid, fresh.uid());
    if (deleted || fresh.isEmpty())
        QVERIFY(f.stored().error().isNotFound());
    else
        QCOMPARE(f.stored()->uid(), fresh.uid());
    if (result.kind() == ReconcileResult::Kind::RequeueAfter)
        QCOMPARE(result.delay(), Duration(3590s));
}

void tst_TtlAfterFinished::errorsAreRetried_data()
{
    QTest::addColumn<QString>("failure");
    QTest::addColumn<QString>("message"); // in the error
    QTest::addColumn<QString>("uid"); // of the Job left on the API server
    QTest::newRow("get fails") << QStringLiteral("get") << QStringLiteral("InternalError")
                               << QStringLiteral("foobar-uid");
    QTest::newRow("delete fails") << QStringLiteral("delete") << QStringLiteral("InternalError")
                                  << QStringLiteral("foobar-uid");
    // The Job is replaced between the GET and the DELETE: the UID precondition fails on the
    // API server, and the new Job stays.
    QTest::newRow("replaced before the delete")
        << QStringLiteral("replace") << QStringLiteral("Precondition failed")
        << QStringLiteral("second-uid");
}

void tst_TtlAfterFinished::errorsAreRetried()
{
    QFETCH(QString, failure);
    QFETCH(QString, message);
    QFETCH(QString, uid);
    Fixture f;
    f.seed(Jobs, {newJob(Now.addSecs(-10), {}, 5)});
    TtlAfterFinishedController &c = f.controller();
    f.client->prependReactor([&](const Action &a) -> std::optional<ObjectResult> {
        if (failure == QLatin1String("replace") && a.verb == QLatin1String("delete"))
            f.replace(withMetadata(newJob(Now.addSecs(-10), {}, 5), QStringLiteral("uid"), uid));
        if (a.verb != failure)
            return std::nullopt;
        Status s;
        s.code = 500;
        s.reason = QStringLiteral("InternalError");
        s.message = QStringLiteral("injected");
        return ObjectResult(s);
    });
    const ReconcileResult result = c.processJob(QStringLiteral("default/foobar"));
    QVERIFY(result.isError());
    QVERIFY2(result.errorMessage().contains(message), qPrintable(result.errorMessage()));
    QCOMPARE(f.stored()->uid(), uid);
    QCOMPARE(deletionHistogram(f.registry).count(), std::uint64_t(0));
}

void tst_TtlAfterFinished::settings_data()
{
    QTest::addColumn<QVariantMap>("settings");
    QTest::addColumn<QString>("policy"); // empty: an error
    QTest::addColumn<QString>("error");
    QTest::newRow("default") << QVariantMap() << QStringLiteral("Background") << QString();
    QTest::newRow("Foreground, as kube-controller-manager")
        << QVariantMap {{QStringLiteral("propagationPolicy"), QStringLiteral("Foreground")}}
        << QStringLiteral("Foreground") << QString();
    QTest::newRow("Orphan") << QVariantMap {{QStringLiteral("propagationPolicy"),
        QStringLiteral("Orphan")}}
                            << QStringLiteral("Orphan") << QString();
    QTest::newRow("unknown policy")
        << QVariantMap {{QStringLiteral("propagationPolicy"), QStringLiteral("Sideways")}}
        << QString()
        << QStringLiteral("settings.propagationPolicy: must be Background, Foreground or "
                          "Orphan, not \"Sideways\"");
    QTest::newRow("not a string")
        << QVariantMap {{QStringLiteral("propagationPolicy"), qint64(3)}} << QString()
        << QStringLiteral("settings.propagationPolicy: must be Background, Foreground or "
                          "Orphan, not \"3\"");
    QTest::newRow("unknown setting")
        << QVariantMap {{QStringLiteral("propagation"), QStringLiteral("Background")}} << QString()
        << QStringLiteral("settings.propagation: unknown setting; the settings here are "
                          "propagationPolicy");
}

void tst_TtlAfterFinished::settings()
{
    QFETCH(QVariantMap, settings);
    QFETCH(QString, policy);
    QFETCH(QString, error);
    const Result<TtlAfterFinishedController::Options> options
        = TtlAfterFinishedController::optionsFromSettings(settings);
    if (policy.isEmpty()) {
        QVERIFY(!options.ok());
        QCOMPARE(options.error().toString(), error);
    } else {
        QVERIFY(options.ok());
        QCOMPARE(options->propagationPolicy, policy);
    }
}

// What the plugin creates reads its settings, and refuses bad ones by throwing: the host marks
// the plugin failed with the message.
void tst_TtlAfterFinished::badSettingsFailTheFactory()
{
    Fixture f;
    const ControllerContext context = f.context(QStringLiteral("ttl-after-finished"),
        {{QStringLiteral("propagationPolicy"), QStringLiteral("Sideways")}});
    try {
        TtlAfterFinishedController c(context);
        QFAIL("bad settings were accepted");
    } catch (const std::invalid_argument &e) {
        QCOMPARE(QString::fromUtf8(e.what()),
            QStringLiteral("settings.propagationPolicy: must be Background, Foreground or "
                           "Orphan, not \"Sideways\""));
    }
}

// The controller with its workers, its informers watching the FakeClient: only finished Jobs
// with a TTL are queued; one that is not expired yet is looked at again when it expires
// (requeue-after on the fake clock), then deleted, and its deletion queues nothing.
//
// With one worker the queue is FIFO, so once a Job's reconcile is counted, those of every key
// queued before it are too: the counts of qcm_reconcile_total below are exact, not a race.
void tst_TtlAfterFinished::runsOnInformerEvents()
{
    Fixture f;
    TtlAfterFinishedController &c = f.controller(QStringLiteral("Foreground"));
    c.start();
    QTRY_VERIFY(c.hasSynced());
    const QString requeued = QStringLiteral("requeue_after");
    const QString succeeded = QStringLiteral("success");

    // Not finished, or no TTL: never queued, never read.
    f.seed(Jobs,
        {newJob({}, {}, 0, QStringLiteral("running")),
            newJob(f.now(), {}, std::nullopt, QStringLiteral("kept"))});
    // Finished now, with 30 s to live: requeued after 30 s, nothing read but the cache.
    f.seed(Jobs, {newJob(f.now(), {}, 30)});
    QTRY_COMPARE(reconciles(f.registry, requeued), 1.0);
    QCOMPARE(reconciles(f.registry, succeeded), 0.0); // neither "running" nor "kept"
    QCOMPARE(c.queue().waitingLen(), 1);
    QCOMPARE(f.client->actionStrings(), QStringList());

    f.clock.step(29s);
    QTest::qWait(50);
    QCOMPARE(f.client->actionStrings(), QStringList());
    f.clock.step(1s);
    QTRY_COMPARE(f.client->actionStrings(),
        QStringList({QStringLiteral("get jobs default/foobar"),
            QStringLiteral("delete jobs default/foobar")}));
    QCOMPARE(f.client->actions()[1].deleteOptions.propagationPolicy, QStringLiteral("Foreground"));
    QVERIFY(f.stored().error().isNotFound());
    QVERIFY(f.stored(QStringLiteral("running")).ok());
    QVERIFY(f.stored(QStringLiteral("kept")).ok());

    // The deletion's watch event queues nothing: "later", queued after it, is the second
    // requeue, and the deletion of "foobar" the only success.
    f.seed(Jobs, {newJob(f.now(), {}, 3600, QStringLiteral("later"))});
    QTRY_COMPARE(reconciles(f.registry, requeued), 2.0);
    QCOMPARE(reconciles(f.registry, succeeded), 1.0);
    QVERIFY(c.stop(10s));
}

QTEST_GUILESS_MAIN(tst_TtlAfterFinished)
#include "tst_ttlafterfinished.moc"
