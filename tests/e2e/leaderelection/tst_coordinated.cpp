// SPDX-License-Identifier: Apache-2.0
// e2e: coordinated leader election (KEP-4355) on a real kube-apiserver of its own, started with
// --feature-gates=CoordinatedLeaderElection=true --runtime-config=coordination.k8s.io/v1beta1=true
// (a TestEnvironment; the shared e2e cluster runs without them):
//   * a LeaseCandidate registers with its versions and strategy, and answers the server's
//     ping (a pingTime later than its renewTime) at once;
//   * two candidates of different emulation versions, each with a coordinated LeaderElector:
//     the API server's election controller makes the older one the holder, and only it
//     leads; the other never writes the Lease;
//   * a candidate older still arrives: the controller marks the term ended (preferredHolder),
//     the leader renews no more and steps down, and the newcomer leads;
//   * a term marked ended whose holder the controller would elect again (a preferredHolder
//     that is no candidate): the leader steps down, and the controller leaves the lapsed
//     Lease as it is; the candidate releases it, the controller names it again, and it leads
//     a second term;
//   * two candidates of the same versions created in the same second: one is created again
//     in a later second (the controller orders equal versions by creationTimestamp, in whole
//     seconds), so the controller picks the older and keeps it, instead of moving the Lease
//     back and forth between them.
#include <qcm/leaderelection/leaderelector.h>
#include <qcm/leaderelection/leasecandidate.h>
#include <qcm/leaderelection/leaselock.h>
#include <qcm/testing/testenvironment.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QScopeGuard>
#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::client;
using namespace qcm::leaderelection;
using namespace std::chrono_literals;

namespace {

const QString Namespace = QStringLiteral("default");
const GroupVersionResource Leases {
    QStringLiteral("coordination.k8s.io"), QStringLiteral("v1"), QStringLiteral("leases")};

// A candidate and its coordinated elector, of one identity, for `lease`.
struct Contender
{
    Contender(RestClient *client, const QString &identity, const QString &lease,
        const QString &emulationVersion)
    {
        LeaseCandidate::Config candidateConfig {
            client, Namespace, identity, lease, QStringLiteral("1.36.0"), emulationVersion};
        auto created = LeaseCandidate::create(candidateConfig);
        if (!created)
            qFatal("%s", qPrintable(created.error().toString()));
        candidate = std::move(*created);
        LeaderElectionConfig config;
        config.lock = std::make_shared<LeaseLock>(
            Namespace, lease, client, ResourceLockConfig {identity, nullptr});
        config.coordinated = true;
        config.leaseDuration = 3s;
        config.renewDeadline = 2s;
        config.retryPeriod = 1s;
        config.mode = LeaderElectionConfig::Mode::Rejoin;
        config.name = identity;
        auto madeElector = LeaderElector::create(config);
        if (!madeElector)
            qFatal("%s", qPrintable(madeElector.error().toString()));
        this->elector = std::move(*madeElector);
        QObject::connect(this->elector.get(), &LeaderElector::startedLeading,
            [this](const LeaderToken &) { ++terms; });
        QObject::connect(
            this->elector.get(), &LeaderElector::stoppedLeading, [this] { ++stepDowns; });
    }
    ~Contender()
    {
        candidate->stop();
        elector->stop();
    }
    void start()
    {
        candidate->start();
        elector->run();
    }

    std::unique_ptr<LeaseCandidate> candidate;
    std::unique_ptr<LeaderElector> elector;
    int terms = 0;
    int stepDowns = 0;
};

QJsonObject specOf(const ObjectResult &object)
{
    return object ? object->json().value(QLatin1String("spec")).toObject() : QJsonObject();
}

} // namespace

class tst_Coordinated : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void aCandidateRegistersAndAnswersPings();
    void theServerPicksTheOlderEmulationVersionThenHandsOver();
    void aLapsedTermOfItsOwnIsHandedBack();
    void twinsOfOneSecondAreOrdered();
    void cleanupTestCase();

private:
    std::unique_ptr<testing::TestEnvironment> m_env;
    std::unique_ptr<RestClient> m_client;
};

void tst_Coordinated::initTestCase()
{
    testing::TestEnvironment::Options options;
    options.extraApiserverArgs = {QStringLiteral("--feature-gates=CoordinatedLeaderElection=true"),
        QStringLiteral("--runtime-config=coordination.k8s.io/v1beta1=true")};
    m_env = std::make_unique<testing::TestEnvironment>(options);
    const std::optional<Error> error = m_env->start();
    QVERIFY2(!error, error ? qPrintable(error->toString()) : "");
    m_client = std::make_unique<RestClient>(m_env->restConfig());
}

void tst_Coordinated::cleanupTestCase()
{
    m_client.reset();
    if (m_env)
        m_env->stop();
}

void tst_Coordinated::aCandidateRegistersAndAnswersPings()
{
    auto created = LeaseCandidate::create({m_client.get(), Namespace, QStringLiteral("qcm-a"),
        QStringLiteral("qcm-pinged"), QStringLiteral("1.36.0"), QStringLiteral("1.35.0")});
    QVERIFY(created);
    LeaseCandidate &candidate = **created;
    int renewals = 0;
    connect(&candidate, &LeaseCandidate::renewed, this, [&renewals] { ++renewals; });
    candidate.start();
    QTRY_COMPARE_WITH_TIMEOUT(renewals, 1, 15000);
    const QString path
        = LeaseCandidate::LeaseCandidates.collectionPath(Namespace) + QStringLiteral("/qcm-a");
    QJsonObject spec = specOf(RestClient::decodeObject(m_client->request("GET", path)));
    QCOMPARE(spec.value(QLatin1String("leaseName")).toString(), QStringLiteral("qcm-pinged"));
    QCOMPARE(spec.value(QLatin1String("binaryVersion")).toString(), QStringLiteral("1.36.0"));
    QCOMPARE(spec.value(QLatin1String("emulationVersion")).toString(), QStringLiteral("1.35.0"));
    QCOMPARE(
        spec.value(QLatin1String("strategy")).toString(), QStringLiteral("OldestEmulationVersion"));
    QVERIFY(spec.contains(QLatin1String("renewTime")));

    // The server pings (here by hand; the election controller pings too): a renewal follows
    // within seconds, not the 5 minutes of the interval.
    const int before = renewals;
    const QString ping = QDateTime::currentDateTimeUtc().addSecs(1).toString(
        QStringLiteral("yyyy-MM-dd'T'HH:mm:ss.zzz'000Z'"));
    const Response patched = m_client->request("PATCH", path, {},
        QJsonDocument(QJsonObject {{QStringLiteral("spec"),
                          QJsonObject {{QStringLiteral("pingTime"), ping}}}})
            .toJson(QJsonDocument::Compact),
        "application/merge-patch+json");
    QVERIFY2(patched.isSuccess(), patched.body.constData());
    QTRY_VERIFY_WITH_TIMEOUT(renewals > before, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(specOf(RestClient::decodeObject(m_client->request("GET", path)))
                                 .value(QLatin1String("renewTime"))
                                 .toString()
            > ping,
        10000);
    candidate.stop();
}

void tst_Coordinated::theServerPicksTheOlderEmulationVersionThenHandsOver()
{
    const QString lease = QStringLiteral("qcm-elected");
    Contender newer(m_client.get(), QStringLiteral("qcm-newer"), lease, QStringLiteral("1.36.0"));
    Contender older(m_client.get(), QStringLiteral("qcm-older"), lease, QStringLiteral("1.35.0"));
    newer.start();
    older.start();
    QTRY_COMPARE_WITH_TIMEOUT(older.terms, 1, 60000);
    QVERIFY(older.elector->isLeader());
    QCOMPARE(newer.terms, 0);
    const QString path = Leases.collectionPath(Namespace) + QLatin1Char('/') + lease;
    QJsonObject spec = specOf(RestClient::decodeObject(m_client->request("GET", path)));
    QCOMPARE(spec.value(QLatin1String("holderIdentity")).toString(), QStringLiteral("qcm-older"));
    QCOMPARE(
        spec.value(QLatin1String("strategy")).toString(), QStringLiteral("OldestEmulationVersion"));
    QTest::qWait(4000); // renewals keep the term, and the newer one stays a candidate
    QVERIFY(older.elector->isLeader());
    QCOMPARE(older.stepDowns, 0);
    QCOMPARE(newer.terms, 0);

    // A candidate older still: the controller marks the term ended, the leader steps down,
    // and the Lease goes to the newcomer.
    Contender oldest(m_client.get(), QStringLiteral("qcm-oldest"), lease, QStringLiteral("1.34.0"));
    oldest.start();
    QTRY_COMPARE_WITH_TIMEOUT(older.stepDowns, 1, 60000);
    QTRY_COMPARE_WITH_TIMEOUT(oldest.terms, 1, 60000);
    QVERIFY(!older.elector->isLeader());
    QCOMPARE(newer.terms, 0);
    spec = specOf(RestClient::decodeObject(m_client->request("GET", path)));
    QCOMPARE(spec.value(QLatin1String("holderIdentity")).toString(), QStringLiteral("qcm-oldest"));
}

void tst_Coordinated::aLapsedTermOfItsOwnIsHandedBack()
{
    const QString lease = QStringLiteral("qcm-lapsed");
    Contender only(m_client.get(), QStringLiteral("qcm-only"), lease, QStringLiteral("1.35.0"));
    only.start();
    QTRY_COMPARE_WITH_TIMEOUT(only.terms, 1, 60000);
    const QString path = Leases.collectionPath(Namespace) + QLatin1Char('/') + lease;
    // The end of the term, for a preferred holder that never comes: the controller still
    // elects qcm-only, so it leaves the lapsed Lease to it.
    const Response patched = m_client->request("PATCH", path, {},
        R"({"spec":{"preferredHolder":"qcm-ghost"}})", "application/merge-patch+json");
    QVERIFY2(patched.isSuccess(), patched.body.constData());
    QTRY_COMPARE_WITH_TIMEOUT(only.stepDowns, 1, 15000);
    QTRY_COMPARE_WITH_TIMEOUT(only.terms, 2, 60000);
    QVERIFY(only.elector->isLeader());
    const QJsonObject spec = specOf(RestClient::decodeObject(m_client->request("GET", path)));
    QCOMPARE(spec.value(QLatin1String("holderIdentity")).toString(), QStringLiteral("qcm-only"));
    QVERIFY(!spec.contains(QLatin1String("preferredHolder")));
}

void tst_Coordinated::twinsOfOneSecondAreOrdered()
{
    const QString lease = QStringLiteral("qcm-twins");
    // The second each candidate was first created in, as the API server tells a watcher.
    std::shared_ptr<Watch> watch = m_client->watch(LeaseCandidate::LeaseCandidates, Namespace);
    QMap<QString, qint64> firstCreated;
    connect(watch.get(), &Watch::eventReceived, this, [&firstCreated](const WatchEvent &event) {
        if (event.type == WatchEvent::Type::Added && !firstCreated.contains(event.object.name()))
            firstCreated.insert(
                event.object.name(), event.object.creationTimestamp().toSecsSinceEpoch());
    });
    const auto stopWatch = qScopeGuard([&watch] { watch->stop(); });
    QTest::qWait(500); // the watch is open
    Contender a(m_client.get(), QStringLiteral("qcm-twin-a"), lease, QStringLiteral("1.35.0"));
    Contender b(m_client.get(), QStringLiteral("qcm-twin-b"), lease, QStringLiteral("1.35.0"));
    // Both created at the start of a second, so that they are created in the same one.
    while (QDateTime::currentDateTimeUtc().time().msec() > 50)
        QTest::qWait(10);
    a.start();
    b.start();

    const QString candidates = LeaseCandidate::LeaseCandidates.collectionPath(Namespace);
    const auto created = [&](const QString &name) {
        const ObjectResult object = RestClient::decodeObject(
            m_client->request("GET", candidates + QLatin1Char('/') + name));
        return object ? object->creationTimestamp() : QDateTime();
    };
    const QString path = Leases.collectionPath(Namespace) + QLatin1Char('/') + lease;
    const auto holder = [&] {
        return specOf(RestClient::decodeObject(m_client->request("GET", path)))
            .value(QLatin1String("holderIdentity"))
            .toString();
    };
    // Settled: both candidates stand in different seconds, and the older one leads.
    QString older;
    QString seen; // what the last look saw, for the failure's message
    QTRY_VERIFY2_WITH_TIMEOUT(
        [&] {
            const QDateTime ca = created(QStringLiteral("qcm-twin-a"));
            const QDateTime cb = created(QStringLiteral("qcm-twin-b"));
            const QJsonObject spec
                = specOf(RestClient::decodeObject(m_client->request("GET", path)));
            seen = QStringLiteral("created a %1, b %2; Lease %3; leading a %4, b %5")
                       .arg(ca.toString(Qt::ISODateWithMs), cb.toString(Qt::ISODateWithMs),
                           QString::fromUtf8(QJsonDocument(spec).toJson(QJsonDocument::Compact)))
                       .arg(a.elector->isLeader())
                       .arg(b.elector->isLeader());
            if (!ca.isValid() || !cb.isValid() || ca.toSecsSinceEpoch() == cb.toSecsSinceEpoch())
                return false;
            older = ca < cb ? QStringLiteral("qcm-twin-a") : QStringLiteral("qcm-twin-b");
            Contender &leader = older == QStringLiteral("qcm-twin-a") ? a : b;
            return spec.value(QLatin1String("holderIdentity")).toString() == older
                && leader.elector->isLeader();
        }(),
        qPrintable(seen), 60000);
    const qint64 firstA = firstCreated.value(QStringLiteral("qcm-twin-a"), -1);
    QVERIFY(firstA > 0);
    if (firstCreated.value(QStringLiteral("qcm-twin-b"), -1) != firstA) // a slow API server
        QSKIP("the candidates were first created in different seconds; nothing to order");
    const int terms = a.terms + b.terms;
    const int stepDowns = a.stepDowns + b.stepDowns;
    QTest::qWait(12000); // the controller checks every 5 s; a tie moved the Lease within that
    QCOMPARE(holder(), older);
    QCOMPARE(a.terms + b.terms, terms);
    QCOMPARE(a.stepDowns + b.stepDowns, stepDowns);
}

QTEST_MAIN(tst_Coordinated)
#include "tst_coordinated.moc"
