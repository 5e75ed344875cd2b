// SPDX-License-Identifier: Apache-2.0
// ScaleOut: this replica's part in its scale-out group, scaleOut.group (docs/scale-out.md,
// "Configuration in the host").
//
//   * A sharding::ShardGroup in leaderElection.resourceNamespace, on the leader-election
//     timings, whose identity is the leader election's: its membership Lease is renewed, and
//     the group's Leases are watched, on the leadership's own REST client (leadership.h), so
//     that they never queue behind controller traffic.
//   * group() is the ShardFilter of the controllers with shards: auto
//     (ControllerManager::Services::shardFilter).
//   * The group's leader is the manager-scope leader: follow() hands the elector's terms to
//     the group (startedLeading: it writes epochs; stoppedLeading: it stops).
//   * leave() is the graceful leave of a shutdown, once the controllers have stopped: the
//     membership Lease is deleted, so that the others take this replica's keys at once.
//   * With leaderElection.scope: controller, a sharding::ControllerScope (controllerScope()):
//     a Lease "<group>-<controller>" per controller that needs leader election, in the same
//     namespace, on the same client, timings and identity, with the same lock events. Each
//     epoch this replica enters gives the scope its members (their identities: the
//     incarnations without "/<term>"), so every member computes the same placement; a lost
//     membership term gives it none, so that this replica hands every controller back until
//     an epoch names its new incarnation. leave() hands every controller back (their Leases
//     released) before the membership Lease goes.
//   * In controller scope with leaderElection.coordinated (KEP-4355): each member writes its
//     emulation version on its membership Lease; controllers are placed only on the epoch's
//     members of the oldest one; each controller placed here has a LeaseCandidate
//     "<identity>.<controller>" for its Lease, registered while it is placed here and deleted
//     before its Lease is handed back, and a coordinated elector of that identity: the API
//     server's election controller writes the holder (docs/scale-out.md).
//   * Each epoch this replica writes (as the leader) is a placement change: a Normal Event
//     EpochWritten on the ring Lease names the epoch, its members, who joined and who left.
//     Each epoch it enters is logged and counted (epochsEntered(), ScaleOutMetrics).
//
// Thread safety: the host's main thread only.
#pragma once

#include "config/config.h"
#include "leadership/leadership.h"

#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/record/eventrecorder.h>
#include <qcm/sharding/controllerscope.h>
#include <qcm/sharding/shardgroup.h>

#include <functional>
#include <map>
#include <memory>

namespace qcm::leaderelection {
class LeaseCandidate;
}

namespace qcm::host {

// The Lease of `controller` in controller scope: "<group>-<controller>".
QString controllerLeaseName(const QString &group, const QString &controller);
// With coordinated election, this member's LeaseCandidate for that Lease, and its identity
// there: "<identity>.<controller>".
QString candidateName(const QString &identity, const QString &controller);

class ScaleOut
{
public:
    // Needs config.scaleOutGroup; an error names the field. `events` records the placement
    // changes (null: none).
    static Result<std::unique_ptr<ScaleOut>> create(const ControllerManagerConfig &config,
        Leadership &leadership, std::shared_ptr<record::EventRecorder> events = nullptr);
    ~ScaleOut();
    Q_DISABLE_COPY_MOVE(ScaleOut)

    std::shared_ptr<sharding::ShardGroup> group() const { return m_group; }
    // scaleOut.group.
    QString name() const { return m_name; }
    // leaderElection.scope: controller: the controllers' Leases; null in manager scope.
    sharding::ControllerScope *controllerScope() const { return m_scope.get(); }
    // How many epochs this replica entered (acknowledged) so far.
    quint64 epochsEntered() const { return m_epochsEntered; }
    // Starts the membership, and gives the group each term of `leadership`'s elector.
    void start();
    // Leaves the group; `done` runs on the main thread once the Lease is gone (or its delete
    // failed, which is logged: the others then drop this replica after leaseDuration). In
    // controller scope, the controllers' Leases are released first.
    void leave(std::function<void()> done);

private:
    ScaleOut() = default;
    // Gives the controller scope the members of the ring's epoch (see above).
    void placeControllers();

    Leadership *m_leadership = nullptr;
    QString m_name;
    QString m_namespace;
    std::shared_ptr<record::EventRecorder> m_events;
    quint64 m_epochsEntered = 0;
    bool m_scopeStopped = false;
    bool m_coordinated = false; // controller scope with leaderElection.coordinated
    // Declared first, destroyed last: the group's informers come from it.
    std::unique_ptr<cache::SharedInformerFactory> m_informers;
    std::shared_ptr<sharding::ShardGroup> m_group;
    // Coordinated controller scope: each controller's candidate, made with its elector.
    std::map<QString, std::unique_ptr<leaderelection::LeaseCandidate>> m_candidates;
    std::unique_ptr<sharding::ControllerScope> m_scope; // controller scope
};

} // namespace qcm::host
