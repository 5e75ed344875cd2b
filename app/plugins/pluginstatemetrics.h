// SPDX-License-Identifier: Apache-2.0
// PluginStateMetrics: qcm_plugin_state{plugin,state}, one gauge series per plugin and state,
// 1 for the state the plugin is in and 0 for the others (kube-state-metrics' convention for
// a state set), read from the PluginHost at each scrape, so plugins found later appear too.
//
// The `plugin` label is the controller's name. A plugin file whose metadata gave no name, and
// the files of a duplicated name (both refused), are labelled with their file path instead,
// so that no two series collide.
//
// Thread safety: collect() reads the plugins' states and must run on the host's main thread,
// which is where the host serves /metrics.
#pragma once

#include <qcm/metrics/collectable.h>

namespace qcm::host {

class PluginHost;

class PluginStateMetrics : public metrics::Collectable
{
public:
    explicit PluginStateMetrics(const PluginHost &plugins);
    std::vector<metrics::MetricFamily> collect() const override;

private:
    const PluginHost &m_plugins;
};

} // namespace qcm::host
