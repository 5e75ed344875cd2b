// SPDX-License-Identifier: Apache-2.0
#include "leadership/scaleout.h"

#include "logging.h"

#include <QtCore/QFutureWatcher>

namespace qcm::host {

Result<std::unique_ptr<ScaleOut>> ScaleOut::create(
    const ControllerManagerConfig &config, Leadership &leadership)
{
    if (config.scaleOutGroup.isEmpty() || !config.leaderElection.leaderElect)
        return Error {config.file, QStringLiteral("scaleOut.group"),
            QStringLiteral("needs a group and leaderElection.leaderElect")};
    std::unique_ptr<ScaleOut> scaleOut(new ScaleOut);
    scaleOut->m_leadership = &leadership;
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
    return scaleOut;
}

ScaleOut::~ScaleOut()
{
    m_group.reset(); // before the informers it watches with
}

void ScaleOut::start()
{
    leaderelection::LeaderElector *elector = m_leadership->elector();
    sharding::ShardGroup *group = m_group.get();
    QObject::connect(elector, &leaderelection::LeaderElector::startedLeading, group,
        [group](const leaderelection::LeaderToken &term) { group->setLeader(term); });
    QObject::connect(elector, &leaderelection::LeaderElector::stoppedLeading, group,
        [group] { group->setLeader({}); });
    QObject::connect(group, &sharding::ShardGroup::acknowledged, group, [group](quint64 epoch) {
        qCInfo(lcHost).noquote() << QStringLiteral("scale-out: %1 entered epoch %2 (members %3)")
                                        .arg(group->membership().incarnation())
                                        .arg(epoch)
                                        .arg(group->ring().epoch().members.join(u", "));
    });
    m_group->start();
}

void ScaleOut::leave(std::function<void()> done)
{
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
