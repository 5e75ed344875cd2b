// SPDX-License-Identifier: Apache-2.0
// Leadership: the host's leader election, built from leaderElection in the configuration as
// kube-controller-manager builds its own (leaderElectAndRun):
//
//   * the lock is --leader-elect-resource-lock/-name/-namespace (newResourceLock), with the
//     identity "<hostname>_<uuid>";
//   * it has its own REST client (user agent "qcm/leader-election"), whose requests time out
//     at max(renewDeadline / 2, 1s) as client-go's NewFromKubeconfig does, and whose rate
//     limit the controllers cannot use up: renewals never queue behind controller traffic;
//   * durations, releaseOnCancel and mode (run-or-die, rejoin) come from the configuration;
//     the elector registers leader_election_master_status{name} in the host's registry;
//   * with leaderElection.coordinated (KEP-4355), a LeaseCandidate named after the identity,
//     for the lock's Lease, with qcm's version as binary version and
//     leaderElection.emulationVersion (qcm's by default), and a coordinated elector: the API
//     server's election controller picks the holder (docs/host.md);
//   * the /healthz check tolerates 20 s past the lease, as kube-controller-manager's
//     NewLeaderHealthzAdaptor(20 * time.Second);
//   * the lock records its events ("<identity> became leader", "<identity> stopped leading",
//     reason LeaderElection, on the Lease) with `lockEvents`, as kube-controller-manager's
//     lock records them with its recorder of component "kube-controller-manager" (null: the
//     lock logs them).
//
// A configuration the elector refuses (an unknown lock type, renewDeadline >= leaseDuration,
// ...) is an Error naming the configuration field and its flag.
//
// Thread safety: create and use it on the host's main thread; the elector runs on that
// thread's event loop (leaderelector.h).
#pragma once

#include "config/config.h"

#include <qcm/client/restconfig.h>
#include <qcm/leaderelection/leaderelector.h>

#include <memory>

namespace qcm::client {
class RestClient;
}
namespace qcm::leaderelection {
class LeaseCandidate;
}
namespace qcm::record {
class EventRecorder;
}

namespace qcm::host {

class Leadership
{
public:
    static constexpr Duration HealthzTolerance = std::chrono::seconds(20);

    // `exitProcess` replaces run-or-die's exit in tests (null: the elector's default).
    static Result<std::unique_ptr<Leadership>> create(const ControllerManagerConfig &config,
        const client::RestConfig &restConfig, metrics::Registry *registry,
        std::shared_ptr<record::EventRecorder> lockEvents = nullptr,
        std::function<void(int)> exitProcess = {});
    ~Leadership();
    Q_DISABLE_COPY_MOVE(Leadership)

    leaderelection::LeaderElector *elector() const { return m_elector.get(); }
    // The leader election's own REST client (also the scale-out group's, scaleout.h).
    client::RestClient *client() const { return m_client.get(); }
    QString identity() const { return m_elector->identity(); }
    // The /healthz/leaderElection check: nothing when healthy.
    std::optional<QString> check() const;
    // Whether the elector has seen the lock's holder at least once (newLeader(), itself
    // included): until then this replica does not know whether it will lead, so its
    // controllers are not yet on standby (/readyz).
    bool hasObservedLeader() const { return m_observedLeader; }

private:
    Leadership() = default;

    // Declared first, destroyed last: the elector's lock uses it.
    std::unique_ptr<client::RestClient> m_client;
    std::unique_ptr<leaderelection::LeaderElector> m_elector;
    std::unique_ptr<leaderelection::LeaseCandidate> m_candidate; // leaderElection.coordinated
    bool m_observedLeader = false;
};

} // namespace qcm::host
