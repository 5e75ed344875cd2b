// SPDX-License-Identifier: Apache-2.0
// ttl-after-finished against fakes: upstream's TestTimeLeft (and the finish-time errors) on
// checkTtl(), processJob() with its second look at the API server's Job, the delete options,
// the settings, and the controller running with its workers on a fake clock.
#include "resources.h"
#include "samplestestsupport.h"
#include "ttlafterfinished.h"
#include "ttlafterfinishedcontroller.h"

#include <qcm/metrics/histogram.h>

#include <QtTest/QtTest>

#include <stdexcept>

using namespace qcm;
using namespace qcm::samples;
using namespace qcm::samples::testing;
using namespace std::chrono_literals;

class tst_TtlAfterFinished : public QObject
{
    Q_OBJECT

private slots:
    void checkTtl_data();
    void checkTtl();
    void finishTimeErrors();
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

QString rfc3339(const QDateTime &t)
{
    return t.toUTC().toString(Qt::ISODate);
}

// upstream's newJob: "foobar" in "default", with a Complete and/or Failed condition (status
// True) at the times given (invalid: none), and the TTL if set.
Object newJob(const QDateTime &completionTime, const QDateTime &failedTime, std::optional<int> ttl,
    const QString &name = QStringLiteral("foobar"))
{
    Object job = newObject(
        QStringLiteral("batch/v1"), QStringLiteral("Job"), QStringLiteral("default"), name);
    QJsonObject spec;
    if (ttl)
        spec.insert(QStringLiteral("ttlSecondsAfterFinished"), *ttl);
    job.json().insert(QStringLiteral("spec"), spec);
    QJsonArray conditions;
    auto condition = [](const char *type, const QDateTime &at) {
        return QJsonObject {{QStringLiteral("type"), QLatin1String(type)},
            {QStringLiteral("status"), QStringLiteral("True")},
            {QStringLiteral("lastTransitionTime"), rfc3339(at)}};
    };
    if (completionTime.isValid())
        conditions.append(condition("Complete", completionTime));
    if (failedTime.isValid())
        conditions.append(condition("Failed", failedTime));
    job.json().insert(
        QStringLiteral("status"), QJsonObject {{QStringLiteral("conditions"), conditions}});
    return job;
}

Object beingDeleted(const Object &job)
{
    return withMetadata(job, QStringLiteral("deletionTimestamp"), rfc3339(Now));
}

const QString DeletionMetric
    = QStringLiteral("ttl_after_finished_controller_job_deletion_duration_seconds");

metrics::Histogram &deletionHistogram(metrics::Registry &registry)
{
    return registry
        .add<metrics::Histogram>(DeletionMetric,
            QStringLiteral("The time it took to delete the job since it became eligible for "
                           "deletion"))
        .add({}, metrics::exponentialBuckets(0.1, 2, 14));
}

// The fakes of one test. Wall-clock time starts at Now and moves with the fake clock.
struct Fixture
{
    FakeClock clock;
    const TimePoint start = clock.now();
    metrics::Registry registry;
    FakeInformers informers {&clock};
    std::shared_ptr<FakeObjectClient> client = std::make_shared<FakeObjectClient>();
    std::unique_ptr<TtlAfterFinishedController> ttl;

    QDateTime now() const
    {
        return Now.addMSecs(
            std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - start).count());
    }
    // Jobs in the informer's cache and in the API server's store.
    void seed(const QList<Object> &jobs)
    {
        informers.seed(Jobs, jobs);
        for (const Object &job : jobs)
            client->add(Jobs, job);
    }
    TtlAfterFinishedController &controller(const QString &policy = QStringLiteral("Background"))
    {
        TtlAfterFinishedController::Options options;
        options.propagationPolicy = policy;
        options.now = [this] { return now(); };
        ttl = std::make_unique<TtlAfterFinishedController>(
            testContext(QStringLiteral("ttl-after-finished"), informers, clock, registry), client,
            options);
        if (!startInformers(informers))
            qFatal("the fake informers did not sync");
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
    const Object job
        = newJob(completionTime, failedTime, ttl < 0 ? std::nullopt : std::optional<int>(ttl));
    const Result<TtlCheck> check = qcm::samples::checkTtl(job, Now);
    QVERIFY2(check.ok(), qPrintable(check.ok() ? QString() : check.error().toString()));
    QCOMPARE(int(check->kind), kind);
    QCOMPARE(needsCleanup(job), kind != int(TtlCheck::Kind::NoCleanup));
    if (check->kind == TtlCheck::Kind::NoCleanup)
        return;
    QCOMPARE(check->remaining, Duration(std::chrono::seconds(timeLeftSeconds)));
    QCOMPARE(check->expireAt, expireAt);
    // Being deleted: never cleaned up again.
    QCOMPARE(
        int(qcm::samples::checkTtl(beingDeleted(job), Now)->kind), int(TtlCheck::Kind::NoCleanup));
}

void tst_TtlAfterFinished::finishTimeErrors()
{
    // A finished Job without the time it finished is an error (retried), as upstream's
    // jobFinishTime says.
    Object job = newJob(Now, {}, 10);
    QJsonObject status = job.json().value(QLatin1String("status")).toObject();
    status.insert(QStringLiteral("conditions"),
        QJsonArray {QJsonObject {{QStringLiteral("type"), QStringLiteral("Complete")},
            {QStringLiteral("status"), QStringLiteral("True")}}});
    job.json().insert(QStringLiteral("status"), status);
    const Result<TtlCheck> check = qcm::samples::checkTtl(job, Now);
    QVERIFY(!check.ok());
    QCOMPARE(check.error().reason,
        QStringLiteral("unable to find the time when the Job default/foobar finished"));
    // A condition that is not True does not finish a Job.
    status.insert(QStringLiteral("conditions"),
        QJsonArray {QJsonObject {{QStringLiteral("type"), QStringLiteral("Complete")},
            {QStringLiteral("status"), QStringLiteral("False")},
            {QStringLiteral("lastTransitionTime"), rfc3339(Now)}}});
    job.json().insert(QStringLiteral("status"), status);
    QVERIFY(!isJobFinished(job));
    QCOMPARE(jobFinishTime(job).error().reason,
        QStringLiteral("unable to find the status of the finished Job default/foobar"));
}

void tst_TtlAfterFinished::deletesExpiredJob()
{
    Fixture f;
    const Object job = newJob(Now.addSecs(-10), {}, 5);
    f.seed({job});
    QVERIFY(f.controller().processJob(QStringLiteral("default/foobar")).isDone());
    QCOMPARE(f.client->actionStrings(),
        QStringList({QStringLiteral("get jobs default/foobar"),
            QStringLiteral("delete jobs default/foobar")}));
    const DeleteOptions options = f.client->actions()[1].deleteOptions;
    QCOMPARE(options.propagationPolicy, QStringLiteral("Background"));
    QCOMPARE(options.preconditionUid, QStringLiteral("foobar-uid"));
    QVERIFY(!f.client->stored(Jobs, QStringLiteral("default"), QStringLiteral("foobar")));
    // Deleted 5 s after it expired.
    const metrics::Histogram &h = deletionHistogram(f.registry);
    QCOMPARE(h.count(), std::uint64_t(1));
    QCOMPARE(h.sum(), 5.0);
}

void tst_TtlAfterFinished::requeuesUntilExpired()
{
    Fixture f;
    f.seed({newJob(Now.addSecs(-10), {}, 15)});
    const ReconcileResult result = f.controller().processJob(QStringLiteral("default/foobar"));
    QCOMPARE(result.kind(), ReconcileResult::Kind::RequeueAfter);
    QCOMPARE(result.delay(), Duration(5s));
    QCOMPARE(f.client->actionStrings(), QStringList()); // the cache was enough
}

void tst_TtlAfterFinished::freshJobDecides_data()
{
    QTest::addColumn<Object>("fresh"); // empty: gone from the API server
    QTest::addColumn<int>("resultKind");
    QTest::addColumn<QStringList>("expectedActions");
    const QStringList getOnly {QStringLiteral("get jobs default/foobar")};
    const QStringList getAndDelete {
        QStringLiteral("get jobs default/foobar"), QStringLiteral("delete jobs default/foobar")};
    const int done = int(ReconcileResult::Kind::Done);
    QTest::newRow("deleted meanwhile") << Object() << done << getOnly;
    QTest::newRow("TTL raised") << newJob(Now.addSecs(-10), {}, 3600)
                                << int(ReconcileResult::Kind::RequeueAfter) << getOnly;
    QTest::newRow("TTL removed") << newJob(Now.addSecs(-10), {}, std::nullopt) << done << getOnly;
    QTest::newRow("being deleted")
        << beingDeleted(newJob(Now.addSecs(-10), {}, 5)) << done << getOnly;
    // Another Job of the same name, expired too: deleted by its own UID (upstream: "the checks
    // will be run again").
    QTest::newRow("recreated, expired") << withMetadata(
        newJob(Now.addSecs(-20), {}, 5), QStringLiteral("uid"), QStringLiteral("second-uid"))
                                        << done << getAndDelete;
}

// The cache says the Job expired; the API server's Job decides.
void tst_TtlAfterFinished::freshJobDecides()
{
    QFETCH(Object, fresh);
    QFETCH(int, resultKind);
    QFETCH(QStringList, expectedActions);
    Fixture f;
    f.informers.seed(Jobs, {newJob(Now.addSecs(-10), {}, 5)});
    if (!fresh.isEmpty())
        f.client->add(Jobs, fresh);
    const ReconcileResult result = f.controller().processJob(QStringLiteral("default/foobar"));
    QCOMPARE(int(result.kind()), resultKind);
    QCOMPARE(f.client->actionStrings(), expectedActions);
    if (expectedActions.size() == 2)
        QCOMPARE(f.client->actions()[1].deleteOptions.preconditionUid, fresh.uid());
    if (result.kind() == ReconcileResult::Kind::RequeueAfter)
        QCOMPARE(result.delay(), Duration(3590s));
}

void tst_TtlAfterFinished::errorsAreRetried_data()
{
    QTest::addColumn<QString>("failingVerb");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("reason");
    QTest::newRow("get fails") << QStringLiteral("get") << 500 << QStringLiteral("InternalError");
    QTest::newRow("delete fails") << QStringLiteral("delete") << 500
                                  << QStringLiteral("InternalError");
    // The UID precondition failed: the Job was replaced between the GET and the DELETE.
    QTest::newRow("precondition fails")
        << QStringLiteral("delete") << 409 << QStringLiteral("Conflict");
}

void tst_TtlAfterFinished::errorsAreRetried()
{
    QFETCH(QString, failingVerb);
    QFETCH(int, code);
    QFETCH(QString, reason);
    Fixture f;
    f.seed({newJob(Now.addSecs(-10), {}, 5)});
    f.client->prependReactor([&](const testing::Action &a) -> std::optional<ObjectResult> {
        if (a.verb != failingVerb)
            return std::nullopt;
        Status s;
        s.code = code;
        s.reason = reason;
        s.message = QStringLiteral("injected");
        return ObjectResult(s);
    });
    const ReconcileResult result = f.controller().processJob(QStringLiteral("default/foobar"));
    QVERIFY(result.isError());
    QVERIFY2(result.errorMessage().contains(reason), qPrintable(result.errorMessage()));
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
    const ControllerContext context = testContext(QStringLiteral("ttl-after-finished"), f.informers,
        f.clock, f.registry, {{QStringLiteral("propagationPolicy"), QStringLiteral("Sideways")}});
    try {
        TtlAfterFinishedController c(context);
        QFAIL("bad settings were accepted");
    } catch (const std::invalid_argument &e) {
        QCOMPARE(QString::fromUtf8(e.what()),
            QStringLiteral("settings.propagationPolicy: must be Background, Foreground or "
                           "Orphan, not \"Sideways\""));
    }
}

// The controller with its workers: only finished Jobs with a TTL are queued; one that is not
// expired yet is looked at again when it expires (requeue-after on the fake clock), then
// deleted.
void tst_TtlAfterFinished::runsOnInformerEvents()
{
    Fixture f;
    TtlAfterFinishedController &c = f.controller(QStringLiteral("Foreground"));
    f.informers.follow(*f.client);
    c.start();
    QTRY_VERIFY(c.hasSynced());

    // Not finished, or no TTL: never queued, never read.
    for (const Object &job : {newJob({}, {}, 0, QStringLiteral("running")),
             newJob(f.now(), {}, std::nullopt, QStringLiteral("kept"))}) {
        f.client->add(Jobs, job);
        f.informers.watch(Jobs)->push(watchEvent(WatchEvent::Type::Added, job));
    }
    // Finished now, with 30 s to live.
    const Object job = newJob(f.now(), {}, 30);
    f.client->add(Jobs, job);
    f.informers.watch(Jobs)->push(watchEvent(WatchEvent::Type::Added, job));
    QTRY_COMPARE(c.queue().waitingLen(), 1); // requeued after 30 s
    QCOMPARE(c.queue().len(), 0);
    QCOMPARE(f.client->actionStrings(), QStringList());

    f.clock.step(29s);
    QTest::qWait(50);
    QCOMPARE(f.client->actionStrings(), QStringList());
    f.clock.step(1s);
    QTRY_COMPARE(f.client->actionStrings(),
        QStringList({QStringLiteral("get jobs default/foobar"),
            QStringLiteral("delete jobs default/foobar")}));
    QCOMPARE(f.client->actions()[1].deleteOptions.propagationPolicy, QStringLiteral("Foreground"));
    QVERIFY(!f.client->stored(Jobs, QStringLiteral("default"), QStringLiteral("foobar")));
    QVERIFY(f.client->stored(Jobs, QStringLiteral("default"), QStringLiteral("running")));
    QVERIFY(f.client->stored(Jobs, QStringLiteral("default"), QStringLiteral("kept")));
    c.stop(10s);
}

QTEST_GUILESS_MAIN(tst_TtlAfterFinished)
#include "tst_ttlafterfinished.moc"
