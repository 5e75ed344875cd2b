// SPDX-License-Identifier: Apache-2.0
// e2e: the ttl-after-finished plugin in the real qcm against the real apiserver. No Job
// controller runs in the test cluster, so the test finishes Jobs itself: it writes a Complete
// or Failed condition (with what the apiserver requires beside it) through the status
// subresource. Expired Jobs are deleted (with background propagation: nothing is left behind
// waiting for a garbage collector), a Job finishing now is deleted once its TTL has passed
// and not before, and Jobs that are not finished, have no TTL, or have a long one stay.
#include "sampleplugine2e.h"

using namespace qcm::client;
using namespace qcm::e2e;

class tst_TtlAfterFinishedE2e : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void deletesFinishedJobsOnceTheirTtlPassed();
    void aRaisedTtlIsHonoured();
    void cleanupTestCase();

private:
    // Creates the Job `name` (with `ttl` unless negative) and, unless `finished` is empty,
    // finishes it ("Complete" or "Failed") at `finishedAt`.
    void createJob(const QString &name, int ttl, const QString &finished = {},
        const QDateTime &finishedAt = {});
    bool exists(const QString &name) { return m_client->get(m_jobs, m_ns, name).ok(); }

    std::unique_ptr<RestClient> m_client;
    std::unique_ptr<QcmRun> m_qcm;
    QString m_ns;
    const GroupVersionResource m_jobs {
        QStringLiteral("batch"), QStringLiteral("v1"), QStringLiteral("jobs")};
};

void tst_TtlAfterFinishedE2e::createJob(
    const QString &name, int ttl, const QString &finished, const QDateTime &finishedAt)
{
    Object job;
    job.setApiVersion(QStringLiteral("batch/v1"));
    job.setKind(QStringLiteral("Job"));
    job.setNamespaceName(m_ns);
    job.setName(name);
    QJsonObject spec {{QStringLiteral("template"),
        QJsonObject {{QStringLiteral("spec"),
            QJsonObject {{QStringLiteral("restartPolicy"), QStringLiteral("Never")},
                {QStringLiteral("containers"),
                    QJsonArray {QJsonObject {{QStringLiteral("name"), QStringLiteral("c")},
                        {QStringLiteral("image"), QStringLiteral("busybox")}}}}}}}}};
    if (ttl >= 0)
        spec.insert(QStringLiteral("ttlSecondsAfterFinished"), ttl);
    job.json().insert(QStringLiteral("spec"), spec);
    const ObjectResult created = m_client->create(m_jobs, m_ns, job);
    QVERIFY2(created, qPrintable(created ? QString() : created.error().toString()));
    if (finished.isEmpty())
        return;

    // What the apiserver's validation asks of a finished Job since 1.31: a start time, and
    // for Complete a completion time, a succeeded Pod and SuccessCriteriaMet first; for
    // Failed, FailureTarget first.
    const QString at = finishedAt.toUTC().toString(Qt::ISODate);
    auto condition = [&](const QString &type) {
        return QJsonObject {{QStringLiteral("type"), type},
            {QStringLiteral("status"), QStringLiteral("True")},
            {QStringLiteral("lastTransitionTime"), at}};
    };
    QJsonObject status {{QStringLiteral("startTime"), at}};
    if (finished == QLatin1String("Complete")) {
        status.insert(QStringLiteral("completionTime"), at);
        status.insert(QStringLiteral("succeeded"), 1);
        status.insert(QStringLiteral("conditions"),
            QJsonArray {condition(QStringLiteral("SuccessCriteriaMet")),
                condition(QStringLiteral("Complete"))});
    } else {
        status.insert(QStringLiteral("failed"), 1);
        status.insert(QStringLiteral("conditions"),
            QJsonArray {
                condition(QStringLiteral("FailureTarget")), condition(QStringLiteral("Failed"))});
    }
    const ObjectResult written = m_client->patch(m_jobs, m_ns, name, PatchType::Merge,
        QJsonDocument(QJsonObject {{QStringLiteral("status"), status}})
            .toJson(QJsonDocument::Compact),
        {}, QStringLiteral("status"));
    QVERIFY2(written, qPrintable(written ? QString() : written.error().toString()));
}

void tst_TtlAfterFinishedE2e::initTestCase()
{
    m_client = std::make_unique<RestClient>(clusterConfig(QStringLiteral("admin")));
    m_ns = createNamespace(*m_client, QStringLiteral("ttl"));
    m_qcm = std::make_unique<QcmRun>(QStringLiteral("ttl-after-finished"));
    QVERIFY(m_qcm->start());
}

void tst_TtlAfterFinishedE2e::deletesFinishedJobsOnceTheirTtlPassed()
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    // The times on the wire have whole seconds: "finished now" is the current second.
    const QDateTime thisSecond = QDateTime::fromSecsSinceEpoch(now.toSecsSinceEpoch(), Qt::UTC);
    createJob(QStringLiteral("expired"), 5, QStringLiteral("Complete"), thisSecond.addSecs(-60));
    createJob(QStringLiteral("failed"), 0, QStringLiteral("Failed"), thisSecond);
    createJob(QStringLiteral("soon"), 8, QStringLiteral("Complete"), thisSecond);
    createJob(QStringLiteral("running"), 0);
    createJob(QStringLiteral("no-ttl"), -1, QStringLiteral("Complete"), thisSecond.addSecs(-60));
    createJob(QStringLiteral("long"), 3600, QStringLiteral("Complete"), thisSecond);

    // Expired already: gone at once (Background: no finalizer keeps them).
    QTRY_VERIFY_WITH_TIMEOUT(!exists(QStringLiteral("expired")), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(!exists(QStringLiteral("failed")), 20000);
    QVERIFY(m_qcm->waitForLog(QStringLiteral("Cleaning up Job %1/expired").arg(m_ns)));
    // "soon" expires 8 s after it finished: still there well before that...
    const qint64 expiresAtMs = thisSecond.addSecs(8).toMSecsSinceEpoch();
    QTest::qWait(int(qMax<qint64>(0, expiresAtMs - 3000 - QDateTime::currentMSecsSinceEpoch())));
    QVERIFY2(QDateTime::currentMSecsSinceEpoch() < expiresAtMs,
        "the machine is too slow to check the Job before it expires");
    QVERIFY(exists(QStringLiteral("soon")));
    // ...and deleted soon after (requeued until its expiry, not polled).
    QTRY_VERIFY_WITH_TIMEOUT(!exists(QStringLiteral("soon")), 30000);
    QVERIFY(QDateTime::currentMSecsSinceEpoch() >= expiresAtMs);

    QVERIFY(exists(QStringLiteral("running")));
    QVERIFY(exists(QStringLiteral("no-ttl")));
    QVERIFY(exists(QStringLiteral("long")));
    QCOMPARE(m_qcm->count(QStringLiteral("Cleaning up Job %1/").arg(m_ns)), 3);
}

// A Job whose TTL is raised before it expires stays: at its first expiry the controller reads
// the TTL again.
void tst_TtlAfterFinishedE2e::aRaisedTtlIsHonoured()
{
    const QDateTime thisSecond
        = QDateTime::fromSecsSinceEpoch(QDateTime::currentSecsSinceEpoch(), Qt::UTC);
    createJob(QStringLiteral("raised"), 5, QStringLiteral("Complete"), thisSecond);
    QVERIFY(m_client->patch(m_jobs, m_ns, QStringLiteral("raised"), PatchType::Merge,
        R"({"spec":{"ttlSecondsAfterFinished":3600}})"));
    QTest::qWait(int(qMax<qint64>(
        0, thisSecond.addSecs(8).toMSecsSinceEpoch() - QDateTime::currentMSecsSinceEpoch())));
    QVERIFY(exists(QStringLiteral("raised")));
    QVERIFY(!m_qcm->log().contains(QStringLiteral("Cleaning up Job %1/raised").arg(m_ns)));
}

void tst_TtlAfterFinishedE2e::cleanupTestCase()
{
    if (m_qcm)
        m_qcm->stop();
    if (m_client && !m_ns.isEmpty())
        m_client->remove(Namespaces, {}, m_ns);
}

QTEST_GUILESS_MAIN(tst_TtlAfterFinishedE2e)
#include "tst_ttlafterfinished.moc"
