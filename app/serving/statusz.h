// SPDX-License-Identifier: Apache-2.0
// /statusz: who holds what, as this replica sees it (docs/host.md, "Who holds what"), as JSON:
//
//   identity        this replica's leader-election identity; absent without leader election
//   leaderElection  the manager-scope Lease ("namespace/name"), its holder as last observed,
//                   and whether this replica leads now; null without leader election
//   controllers     each plugin's controller, by name: the plugin's state ("running",
//                   "loaded" or "stopped" on standby, "quarantined", ...) and, for a sharded
//                   controller that runs, keysOwned (PluginSpec::ownedKeys(), as
//                   qcm_scaleout_keys_owned)
//   scaleOut        with scaleOut.group, else null: the group; this replica's incarnation
//                   (empty between terms); the ring's epoch (number, id, members); the epochs
//                   this replica serves and passed the barrier of (base); each member alive,
//                   with the ack on its Lease; how many incarnations it has seen leave;
//                   controllerScope (leaderElection.scope: controller, else null): the
//                   controllers placed across the group, those placed on this replica and
//                   those whose Lease it holds now
//
// Every replica serves its own view: keys are counted where they are owned, and the ring
// names every member. Unlike Kubernetes' text /statusz (KEP-4827), qcm's is JSON, as /configz
// is. Its size is bounded by the plugins loaded and the ring's Epoch::MaxMembers.
//
// Thread safety: reads the plugins' controllers, the elector and the group: the host's main
// thread, where the host serves.
#pragma once

#include "config/config.h"

#include <QtCore/QJsonObject>

namespace qcm::host {

class Leadership;
class PluginHost;
class ScaleOut;

// `leadership` and `scaleOut` may be null (not configured).
QJsonObject statuszJson(const ControllerManagerConfig &config, const PluginHost &plugins,
    const Leadership *leadership, const ScaleOut *scaleOut);

} // namespace qcm::host
