// SPDX-License-Identifier: Apache-2.0
#include "leadership/leadership.h"

#include <qcm/client/restclient.h>
#include <qcm/leaderelection/leasecandidate.h>
#include <qcm/leaderelection/newresourcelock.h>
#include <qcm/version.h>

namespace qcm::host {

using namespace leaderelection;

namespace {

// The configuration field and flag behind a field of the lock or the elector's config.
Error configError(const Error &error)
{
    static const QMap<QString, QString> fields {
        {QStringLiteral("lockType"),
            QStringLiteral("leaderElection.resourceLock (--leader-elect-resource-lock)")},
        {QStringLiteral("name"),
            QStringLiteral("leaderElection.resourceName (--leader-elect-resource-name)")},
        {QStringLiteral("namespace"),
            QStringLiteral("leaderElection.resourceNamespace (--leader-elect-resource-namespace)")},
        {QStringLiteral("leaseDuration"),
            QStringLiteral("leaderElection.leaseDuration (--leader-elect-lease-duration)")},
        {QStringLiteral("renewDeadline"),
            QStringLiteral("leaderElection.renewDeadline (--leader-elect-renew-deadline)")},
        {QStringLiteral("retryPeriod"),
            QStringLiteral("leaderElection.retryPeriod (--leader-elect-retry-period)")},
    };
    return Error {{}, fields.value(error.field, error.field), error.reason};
}

} // namespace

Result<std::unique_ptr<Leadership>> Leadership::create(const ControllerManagerConfig &config,
    const client::RestConfig &restConfig, metrics::Registry *registry,
    std::shared_ptr<record::EventRecorder> lockEvents, std::function<void(int)> exitProcess)
{
    const host::LeaderElectionConfig &le = config.leaderElection;
    client::RestConfig electionConfig = restConfig;
    electionConfig.timeout = std::max<Duration>(le.renewDeadline / 2, std::chrono::seconds(1));
    electionConfig.userAgent = QStringLiteral("qcm/leader-election");

    std::unique_ptr<Leadership> leadership(new Leadership);
    leadership->m_client = std::make_unique<client::RestClient>(electionConfig);
    ResourceLockConfig lockConfig;
    lockConfig.eventRecorder = std::move(lockEvents);
    auto lock = newResourceLock(le.resourceLock, le.resourceNamespace, le.resourceName,
        leadership->m_client.get(), lockConfig);
    if (!lock)
        return configError(lock.error());
    if (le.coordinated) {
        if (le.resourceLock != QLatin1String("leases"))
            return Error {{}, QStringLiteral("leaderElection.coordinated"),
                QStringLiteral("needs leaderElection.resourceLock leases, not %1")
                    .arg(le.resourceLock)};
        const QString binaryVersion = QStringLiteral(QCM_VERSION_STRING);
        auto candidate = LeaseCandidate::create({leadership->m_client.get(), le.resourceNamespace,
            (*lock)->identity(), le.resourceName, binaryVersion,
            le.emulationVersion.isEmpty() ? binaryVersion : le.emulationVersion});
        if (!candidate)
            return Error {{},
                candidate.error().field == QLatin1String("emulationVersion")
                    ? QStringLiteral("leaderElection.emulationVersion")
                    : QStringLiteral("leaderElection.coordinated"),
                candidate.error().reason};
        leadership->m_candidate = std::move(*candidate);
    }

    leaderelection::LeaderElectionConfig electorConfig;
    electorConfig.lock = std::shared_ptr<ResourceLock>(std::move(*lock));
    electorConfig.leaseDuration = le.leaseDuration;
    electorConfig.renewDeadline = le.renewDeadline;
    electorConfig.retryPeriod = le.retryPeriod;
    electorConfig.releaseOnCancel = le.releaseOnCancel;
    electorConfig.coordinated = le.coordinated;
    electorConfig.mode = le.mode == LeaderElectionMode::Rejoin
        ? leaderelection::LeaderElectionConfig::Mode::Rejoin
        : leaderelection::LeaderElectionConfig::Mode::RunOrDie;
    electorConfig.name = le.resourceName;
    electorConfig.metrics = registry;
    electorConfig.exitProcess = std::move(exitProcess);
    auto elector = LeaderElector::create(std::move(electorConfig));
    if (!elector)
        return configError(elector.error());
    leadership->m_elector = std::move(*elector);
    Leadership *self = leadership.get(); // owns the elector: outlives the connection
    QObject::connect(self->m_elector.get(), &LeaderElector::newLeader, self->m_elector.get(),
        [self] { self->m_observedLeader = true; });
    if (leadership->m_candidate)
        leadership->m_candidate->start();
    return leadership;
}

Leadership::~Leadership() = default;

std::optional<QString> Leadership::check() const
{
    if (const std::optional<Error> error = m_elector->check(HealthzTolerance))
        return error->reason;
    return std::nullopt;
}

} // namespace qcm::host
