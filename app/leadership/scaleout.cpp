// SPDX-License-Identifier: Apache-2.0
#include "leadership/scaleout.h"

#include "logging.h"

#include <qcm/leaderelection/newresourcelock.h>

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
    auto created = sharding::ShardGroup::create(group);
    if (!created)
        return Error {config.file, QStringLiteral("scaleOut.group"), created.error().toString()};
    scaleOut->m_group = std::move(*created);
    if (le.scope == LeaderElectionScope::Controller) {
        sharding::ControllerScope::Config scope;
        client::RestClient *client = leadership.client();
        const QString identity = leadership.identity();
        const std::shared_ptr<record::EventRecorder> lockEvents = scaleOut->m_events;
        scope.electorFor = [client, identity, lockEvents, le, group = config.scaleOutGroup](
                               const QString &controller) {
            leaderelection::ResourceLockConfig lockConfig;
            lockConfig.identity = identity;
            lockConfig.eventRecorder = lockEvents;
            leaderelection::LeaderElectionConfig elector;
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
        auto controllerScope = sharding::ControllerScope::create(std::move(scope));
        if (!controllerScope)
            return Error {config.file, QStringLiteral("leaderElection.scope"),
                controllerScope.error().toString()};
        scaleOut->m_scope = std::move(*controllerScope);
    }
    return scaleOut;
}

QString controllerLeaseName(const QString &group, const QString &controller)
{
    return group + QLatin1Char('-') + controller;
}

ScaleOut::~ScaleOut()
{
    m_scope.reset();
    m_group.reset(); // before the informers it watches with
}

void ScaleOut::placeControllers()
{
    if (!m_scope)
        return;
    const sharding::Epoch epoch = m_group->ring().epoch();
    const QString incarnation = m_group->membership().incarnation();
    QStringList identities;
    for (const QString &member : epoch.members)
        identities << member.section(QLatin1Char('/'), 0, 0);
    identities.removeDuplicates();
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
