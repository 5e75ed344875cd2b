// SPDX-License-Identifier: Apache-2.0
#include "leadership/scaleout.h"

#include "logging.h"

#include <qcm/leaderelection/leasecandidate.h>
#include <qcm/leaderelection/newresourcelock.h>
#include <qcm/sharding/placement.h>
#include <qcm/version.h>

#include <QtCore/QFutureWatcher>

namespace qcm::host {

namespace {

// "a, b" or "none".
QString listed(QStringList members)
{
    members.sort();
    return members.isEmpty() ? QStringLiteral("none") : members.join(u", ");
}

// Who is in `from` and not in `without`.
QStringList minus(const QStringList &from, const QStringList &without)
{
    QStringList left;
    for (const QString &m : from)
        if (!without.contains(m))
            left.append(m);
    return left;
}

} // namespace

Result<std::unique_ptr<ScaleOut>> ScaleOut::create(const ControllerManagerConfig &config,
    Leadership &leadership, std::shared_ptr<record::EventRecorder> events)
{
    if (config.scaleOutGroup.isEmpty() || !config.leaderElection.leaderElect)
        return Error {config.file, QStringLiteral("scaleOut.group"),
            QStringLiteral("needs a group and leaderElection.leaderElect")};
    std::unique_ptr<ScaleOut> scaleOut(new ScaleOut);
    scaleOut->m_leadership = &leadership;
    scaleOut->m_name = config.scaleOutGroup;
    scaleOut->m_namespace = config.leaderElection.resourceNamespace;
    scaleOut->m_events = std::move(events);
    scaleOut->m_informers
        = std::make_unique<cache::SharedInformerFactory>(leadership.client(), Duration::zero());
    const host::LeaderElectionConfig &le = config.leaderElection;
    sharding::ShardGroup::Config group;
    group.membership.group = config.scaleOutGroup;
    group.membership.identity = leadership.identity();
    group.membership.namespaceName = le.resourceNamespace;
    group.membership.client = leadership.client();
    group.membership.informers = scaleOut->m_informers.get();
    group.membership.leaseDuration = le.leaseDuration;
    group.membership.renewDeadline = le.renewDeadline;
    group.membership.retryPeriod = le.retryPeriod;
    const bool coordinated = le.coordinated && le.scope == LeaderElectionScope::Controller;
    const QString binaryVersion = QStringLiteral(QCM_VERSION_STRING);
    const QString emulationVersion
        = le.emulationVersion.isEmpty() ? binaryVersion : le.emulationVersion;
    if (coordinated)
        group.membership.emulationVersion = emulationVersion;
    scaleOut->m_coordinated = coordinated;
    auto created = sharding::ShardGroup::create(group);
    if (!created)
        return Error {config.file, QStringLiteral("scaleOut.group"), created.error().toString()};
    scaleOut->m_group = std::move(*created);
    if (le.scope == LeaderElectionScope::Controller) {
        sharding::ControllerScope::Config scope;
        client::RestClient *client = leadership.client();
        const QString identity = leadership.identity();
        const std::shared_ptr<record::EventRecorder> lockEvents = scaleOut->m_events;
        ScaleOut *self = scaleOut.get(); // owns the scope, which owns these functions
        scope.electorFor = [self, client, identity, lockEvents, le, coordinated, binaryVersion,
                               emulationVersion,
                               group = config.scaleOutGroup](const QString &controller) {
            leaderelection::ResourceLockConfig lockConfig;
            lockConfig.identity = identity;
            leaderelection::LeaderElectionConfig elector;
            if (coordinated) {
                // The election controller writes the candidate's name as the holder.
                lockConfig.identity = candidateName(identity, controller);
                auto candidate = leaderelection::LeaseCandidate::create(
                    {client, le.resourceNamespace, lockConfig.identity,
                        controllerLeaseName(group, controller), binaryVersion, emulationVersion});
                if (!candidate) {
                    qCWarning(lcHost).noquote()
                        << QStringLiteral("controller %1: no LeaseCandidate: %2")
                               .arg(controller, candidate.error().toString());
                    return elector; // without a lock, the elector refuses it: an error names it
                }
                self->m_candidates[controller] = std::move(*candidate);
            }
            lockConfig.eventRecorder = lockEvents;
            auto lock = leaderelection::newResourceLock(QStringLiteral("leases"),
                le.resourceNamespace, controllerLeaseName(group, controller), client, lockConfig);
            if (lock)
                elector.lock = std::shared_ptr<leaderelection::ResourceLock>(std::move(*lock));
            elector.leaseDuration = le.leaseDuration;
            elector.renewDeadline = le.renewDeadline;
            elector.retryPeriod = le.retryPeriod;
            elector.name = controllerLeaseName(group, controller);
            return elector; // without a lock, the elector refuses it: an error names it
        };
        if (coordinated) {
            scope.registerCandidate = [self](const QString &controller) {
                if (auto it = self->m_candidates.find(controller); it != self->m_candidates.end()) {
                    // Eager until elected (leasecandidate.h).
                    it->second->setRenewInterval(
                        leaderelection::LeaseCandidate::EagerRenewInterval);
                    it->second->start();
                }
            };
            scope.withdrawCandidate
                = [self](const QString &controller, std::function<void()> done) {
                      auto it = self->m_candidates.find(controller);
                      if (it == self->m_candidates.end()) {
                          done();
                          return;
                      }
                      leaderelection::LeaseCandidate *candidate = it->second.get();
                      QObject::connect(
                          candidate, &leaderelection::LeaseCandidate::withdrawn, candidate,
                          [done = std::move(done)](const QString &) { done(); },
                          Qt::SingleShotConnection);
                      candidate->withdraw();
                  };
        }
        auto controllerScope = sharding::ControllerScope::create(std::move(scope));
        if (!controllerScope)
            return Error {config.file, QStringLiteral("leaderElection.scope"),
                controllerScope.error().toString()};
        scaleOut->m_scope = std::move(*controllerScope);
        if (coordinated) {
            const auto renewEvery = [self](const QString &controller, Duration interval) {
                if (auto it = self->m_candidates.find(controller); it != self->m_candidates.end())
                    it->second->setRenewInterval(interval);
            };
            QObject::connect(self->m_scope.get(), &sharding::ControllerScope::controllerStarted,
                self->m_scope.get(), [renewEvery](const QString &controller) {
                    renewEvery(controller, leaderelection::LeaseCandidate::Config().renewInterval);
                });
            QObject::connect(self->m_scope.get(), &sharding::ControllerScope::controllerStopped,
                self->m_scope.get(), [renewEvery](const QString &controller) {
                    renewEvery(controller, leaderelection::LeaseCandidate::EagerRenewInterval);
                });
        }
    }
    return scaleOut;
}

QString controllerLeaseName(const QString &group, const QString &controller)
{
    return group + QLatin1Char('-') + controller;
}

QString candidateName(const QString &identity, const QString &controller)
{
    return identity + QLatin1Char('.') + controller;
}

ScaleOut::~ScaleOut()
{
    m_scope.reset();
    m_candidates.clear();
    m_group.reset(); // before the informers it watches with
}

void ScaleOut::placeControllers()
{
    if (!m_scope)
        return;
    const sharding::Epoch epoch = m_group->ring().epoch();
    const QString incarnation = m_group->membership().incarnation();
    QStringList identities;
    QMap<QString, QString> versions; // by identity
    const QHash<QString, QString> written = m_group->membership().emulationVersions();
    for (const QString &member : epoch.members) {
        const QString identity = member.section(QLatin1Char('/'), 0, 0);
        identities << identity;
        versions.insert(identity, written.value(member));
    }
    identities.removeDuplicates();
    if (m_coordinated) // only on the members of the oldest emulation version
        identities = sharding::oldestEmulationVersion(versions);
    const bool inEpoch = !incarnation.isEmpty() && epoch.members.contains(incarnation);
    m_scope->setMembers(identities, inEpoch ? m_leadership->identity() : QString());
}

void ScaleOut::start()
{
    leaderelection::LeaderElector *elector = m_leadership->elector();
    sharding::ShardGroup *group = m_group.get();
    QObject::connect(elector, &leaderelection::LeaderElector::startedLeading, group,
        [group](const leaderelection::LeaderToken &term) { group->setLeader(term); });
    QObject::connect(elector, &leaderelection::LeaderElector::stoppedLeading, group,
        [group] { group->setLeader({}); });
    QObject::connect(
        group, &sharding::ShardGroup::acknowledged, group, [this, group](quint64 epoch) {
            ++m_epochsEntered;
            qCInfo(lcHost).noquote()
                << QStringLiteral("scale-out: %1 entered epoch %2 (members %3)")
                       .arg(group->membership().incarnation())
                       .arg(epoch)
                       .arg(group->ring().epoch().members.join(u", "));
            placeControllers();
        });
    // A membership term lost: this replica is in no epoch until one names its next
    // incarnation, and hands its controllers back meanwhile.
    QObject::connect(&group->membership(), &sharding::Membership::termEnded, group,
        [this] { placeControllers(); });
    // Coordinated: the members' emulation versions come from their Leases in the cache.
    if (m_coordinated)
        QObject::connect(&group->membership(), &sharding::Membership::membersChanged, group,
            [this] { placeControllers(); });
    if (m_events) {
        record::ObjectReference ring;
        ring.kind = QStringLiteral("Lease");
        ring.apiVersion = QStringLiteral("coordination.k8s.io/v1");
        ring.namespaceName = m_namespace;
        ring.name = sharding::RingLease::leaseName(m_name);
        QObject::connect(&group->ring(), &sharding::RingLease::epochWritten, group,
            [this, ring](const sharding::Epoch &epoch, const sharding::Epoch &previous) {
                m_events->event(ring, record::EventTypeNormal, QStringLiteral("EpochWritten"),
                    QStringLiteral("epoch %1 of group %2: members %3; joined %4; left %5")
                        .arg(epoch.number)
                        .arg(m_name, listed(epoch.members),
                            listed(minus(epoch.members, previous.members)),
                            listed(minus(previous.members, epoch.members))));
            });
    }
    m_group->start();
}

void ScaleOut::leave(std::function<void()> done)
{
    if (m_scope && !m_scopeStopped) {
        m_scopeStopped = true;
        QObject::connect(m_scope.get(), &sharding::ControllerScope::finished, m_group.get(),
            [this, done = std::move(done)]() mutable { leave(std::move(done)); });
        m_scope->stop();
        return;
    }
    auto *watcher = new QFutureWatcher<std::optional<Error>>(m_group.get());
    QObject::connect(
        watcher, &QFutureWatcherBase::finished, m_group.get(), [watcher, done = std::move(done)] {
            if (const std::optional<Error> error = watcher->result())
                qCWarning(lcHost).noquote()
                    << QStringLiteral("scale-out: leaving the group: %1 (the others drop this "
                                      "replica once its lease expires)")
                           .arg(error->toString());
            else
                qCInfo(lcHost).noquote() << "scale-out: left the group";
            watcher->deleteLater();
            done();
        });
    watcher->setFuture(m_group->stop());
}

} // namespace qcm::host
