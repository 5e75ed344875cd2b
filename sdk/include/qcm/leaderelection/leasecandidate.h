// SPDX-License-Identifier: Apache-2.0
// LeaseCandidate: this process as a candidate for one Lease in coordinated leader election
// (KEP-4355; client-go's leaderelection.NewCandidate). It keeps a LeaseCandidate object
// (coordination.k8s.io/v1beta1) named after the elector's identity, which the API server's
// election controller writes as the Lease's holder when it picks this candidate, in the
// Lease's namespace, with spec.leaseName, binaryVersion, emulationVersion, strategy and
// renewTime.
//
// start(): creates the object when it is missing, else renews it (renewTime now, the rest as
// read), at once and every renewInterval (client-go's requeueInterval, 5 min); and at once when
// the server pings it (spec.pingTime later than spec.renewTime), which it learns from a watch
// of the object (a field selector on its name; a watch that ends is started again after a
// second). A write that fails is retried after 5 ms, doubled each time up to 1000 s (client-go's
// default controller rate limiter). stop() stops renewing and leaves the object (none, while
// it is deleted to be created again, below): the server collects candidates not renewed for
// 30 min, as it does client-go's. withdraw() stops renewing
// and deletes the object (after a write in flight, so that it cannot land after the delete),
// then emits withdrawn(): the server no longer elects this candidate. The host's controller
// scope withdraws a candidate before it releases a Lease placed elsewhere (docs/scale-out.md);
// client-go has no such call. start() again only after withdrawn().
//
// A candidate it creates in the same second as another candidate for the Lease with the same
// versions it deletes and creates again, 1.1 to 4.1 s after the delete (at random; at most
// MaxRecreations times in a row), before it emits renewed(). The election controller of
// Kubernetes (read at v1.36.3) orders such candidates by creationTimestamp, which has whole
// seconds, and breaks the tie by the order its cache lists them in, which changes: it then moves
// the Lease from one to the other and back, and can leave it expired, marked for the other, with
// nobody to renew it (docs/scale-out.md, "Candidates of one second"). client-go's candidate does
// not do this.
//
// Pair it with a LeaderElector with `coordinated` set, whose lock is a LeaseLock on `leaseName`
// and whose identity is this candidate's `name` (leaderelector.h).
//
// Thread safety: create, start and stop it on one thread with an event loop; the RestClient
// must outlive it.
#pragma once

#include <qcm/client/restclient.h>
#include <qcm/result.h>

#include <QtCore/QDateTime>
#include <QtCore/QJsonObject>
#include <QtCore/QObject>

#include <memory>

namespace qcm::leaderelection {

class QCM_SDK_EXPORT LeaseCandidate : public QObject
{
    Q_OBJECT

public:
    inline static const client::GroupVersionResource LeaseCandidates {
        QStringLiteral("coordination.k8s.io"), QStringLiteral("v1beta1"),
        QStringLiteral("leasecandidates")};

    struct Config
    {
        client::RestClient *client = nullptr;
        QString namespaceName; // the Lease's
        QString name; // the elector's identity: letters, digits, '-', '_' and '.'
        QString leaseName;
        QString binaryVersion; // semver without a leading v: "1.36.0"; numbers of <= 9 digits
        QString emulationVersion; // semver, at most binaryVersion
        QString strategy = QStringLiteral("OldestEmulationVersion");
        Duration renewInterval = std::chrono::minutes(5);
    };

    // An error names the field and the rule it breaks.
    static Result<std::unique_ptr<LeaseCandidate>> create(Config config, QObject *parent = nullptr);
    ~LeaseCandidate() override;

    void start();
    void stop();
    void withdraw();
    // Renews every `interval` from the next renewal on (at once when the current wait is
    // longer). The host's controller scope renews a candidate every EagerRenewInterval while it
    // waits to be elected, so that the election controller, which elects only candidates
    // renewed within its electionDuration (5 s), never finds none and gives up its election
    // until the next event (docs/scale-out.md).
    void setRenewInterval(Duration interval);
    static constexpr Duration EagerRenewInterval = std::chrono::seconds(2);
    // The renewTime last written; invalid before the first write.
    QDateTime renewTime() const;
    // Whether the server pings a LeaseCandidate of this `spec` (read from the API server, so
    // untrusted): spec.pingTime later than spec.renewTime, compared to the microsecond as
    // metav1.MicroTime writes them (UTC, "2026-11-27T11:40:00.123456Z"); a pingTime without
    // a readable renewTime counts; an unreadable pingTime does not.
    static bool pingPending(const QJsonObject &spec);
    // Semantic version precedence (semver 2.0, build metadata ignored), as the server's
    // election controller orders emulation versions: < 0 when a is older than b, 0 when equal,
    // > 0 when newer; nullopt when either is not a semantic version without a leading v.
    static std::optional<int> compareVersions(const QString &a, const QString &b);
    // The name of a candidate among `others` (read from the API server, so untrusted) that the
    // election controller cannot order against `mine`: another name, the same spec.leaseName,
    // the same emulationVersion and binaryVersion (by compareVersions), and a creationTimestamp
    // in the same second. Empty when there is none.
    static QString sameSecondTwin(const client::Object &mine, const QList<client::Object> &others);
    static constexpr int MaxRecreations = 5;

signals:
    // After each write that succeeded (a create or a renewal).
    void renewed(const QDateTime &renewTime);
    // After withdraw(): `error` is empty once the object is gone (deleted, or already missing),
    // else it says why the delete failed (the object then stays until the server collects it).
    void withdrawn(const QString &error);

private:
    explicit LeaseCandidate(Config config, QObject *parent);
    void ensure();
    // The end of a request: the delete follows when withdrawing; true when it still runs.
    bool requestOver();
    void written(bool ok, const QString &error);
    void checkForTwin(const client::Object &created, const QDateTime &renewTime);
    void sendDelete();

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::leaderelection
