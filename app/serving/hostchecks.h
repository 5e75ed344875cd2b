// SPDX-License-Identifier: Apache-2.0
// The host's health checks, for its three endpoints (healthchecks.h serves them):
//
//   /livez    ping, leaderElection, event-loop     is the process alive? (liveness probes)
//   /healthz  ping, leaderElection, <controller>…  everything (kube-controller-manager's)
//   /readyz   ping, informer-sync, <controller>…   ready to do its work? (readiness probes)
//
//   leaderElection   only with leader election: fails when this replica last saw itself
//                    holding the lease longer ago than leaseDuration + 20 s (a stuck elector).
//   event-loop       only with the watchdog: fails while the host's event loop is blocked, and
//                    for one stall timeout after (watchdog/watchdog.h).
//   <controller>     one per enabled plugin. Under /healthz it fails when the plugin failed
//                    (its error is the reason) or the watchdog sees it stalled. Under /readyz it
//                    passes when the controller runs and its caches have synced, or, for a
//                    controller that needs leader election on a replica that does not hold its
//                    term (ControllerManager::mayRun(): manager scope, not leading; controller
//                    scope, not holding that controller's Lease), when it waits on standby
//                    (loaded, or stopped after a lost term) once the elector has seen the
//                    lease's holder; it fails before the controller has started,
//                    before that first look at the lease, while its caches sync, once it has
//                    stopped, and when failed.
//   informer-sync    every running controller's informers and handlers have synced.
//
// Thread safety: the checks read the plugins' states: run them on the host's main thread.
#pragma once

#include "serving/healthchecks.h"

namespace qcm::host {

class ControllerManager;
class Leadership;
class PluginHost;
class Watchdog;

struct HostChecks
{
    // `leadership` is null without leader election, `watchdog` without a watchdog. All outlive
    // the checks.
    HostChecks(const PluginHost &plugins, const ControllerManager &manager,
        const Leadership *leadership, const Watchdog *watchdog = nullptr);

    QList<HealthCheck> livez() const;
    QList<HealthCheck> healthz() const;
    QList<HealthCheck> readyz() const;

private:
    QList<HealthCheck> leaderElection() const;

    const PluginHost &m_plugins;
    const ControllerManager &m_manager;
    const Leadership *m_leadership;
    const Watchdog *m_watchdog;
};

} // namespace qcm::host
