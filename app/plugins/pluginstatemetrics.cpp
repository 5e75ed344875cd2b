// SPDX-License-Identifier: Apache-2.0
#include "plugins/pluginstatemetrics.h"

#include "plugins/pluginhost.h"

#include <QtCore/QHash>

namespace qcm::host {

namespace {

constexpr PluginState AllStates[]
    = {PluginState::Discovered, PluginState::Loaded, PluginState::Configured, PluginState::Running,
        PluginState::Stopped, PluginState::Unloaded, PluginState::Failed, PluginState::Quarantined};

} // namespace

PluginStateMetrics::PluginStateMetrics(const PluginHost &plugins) : m_plugins(plugins) { }

std::vector<metrics::MetricFamily> PluginStateMetrics::collect() const
{
    QHash<QString, int> files; // name -> how many files give it
    for (const auto &plugin : m_plugins.plugins())
        ++files[plugin->name()];

    metrics::MetricFamily family {QStringLiteral("qcm_plugin_state"),
        QStringLiteral("The state of each controller plugin: 1 for its current state, 0 for "
                       "the others."),
        metrics::MetricType::Gauge, {}};
    for (const auto &plugin : m_plugins.plugins()) {
        const QString name = plugin->name();
        const QString label = name.isEmpty() || files.value(name) > 1 ? plugin->filePath() : name;
        for (const PluginState state : AllStates) {
            metrics::ClientMetric sample;
            sample.labels
                = {{QStringLiteral("plugin"), label}, {QStringLiteral("state"), stateName(state)}};
            sample.value = plugin->state() == state ? 1 : 0;
            family.metrics.push_back(std::move(sample));
        }
    }
    return {std::move(family)};
}

} // namespace qcm::host
