// SPDX-License-Identifier: Apache-2.0
// ScaleOutMetrics: the scale-out group's state as this replica sees it, read at each scrape
// (docs/scale-out.md, "Operating a group"), every series labelled {group="<scaleOut.group>"}:
//
//   qcm_scaleout_epoch                     the newest epoch of the ring read
//   qcm_scaleout_serving_epoch             the epoch this replica entered last (acked)
//   qcm_scaleout_base_epoch                the epoch whose barrier it passed last: keys it
//                                          gained start from there (0: none passed yet)
//   qcm_scaleout_members                   the members alive, by their Leases
//   qcm_scaleout_epochs_entered_total      counter: epochs entered, each a handover of keys
//   qcm_scaleout_keys_owned{controller}    per sharded controller that runs: the objects of
//                                          its own resource that hash to this replica
//                                          (Controller::ownedKeys())
//   qcm_scaleout_controllers_placed        controller scope only: the controllers the
//                                          placement gives this replica
//   qcm_scaleout_controllers_held          controller scope only: the controllers whose Lease
//                                          it holds (placed, once their handover is over)
//
// Summed over the replicas, keys_owned is each controller's object count once the group has
// settled (every replica's serving and base epochs equal the ring's).
//
// Thread safety: collect() reads the group and the plugins' controllers and must run on the
// host's main thread, which is where the host serves /metrics.
#pragma once

#include <qcm/metrics/collectable.h>

namespace qcm::host {

class PluginHost;
class ScaleOut;

class ScaleOutMetrics : public metrics::Collectable
{
public:
    ScaleOutMetrics(const ScaleOut &scaleOut, const PluginHost &plugins);
    std::vector<metrics::MetricFamily> collect() const override;

private:
    const ScaleOut &m_scaleOut;
    const PluginHost &m_plugins;
};

} // namespace qcm::host
