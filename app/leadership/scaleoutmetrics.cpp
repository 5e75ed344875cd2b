// SPDX-License-Identifier: Apache-2.0
#include "leadership/scaleoutmetrics.h"

#include "leadership/scaleout.h"
#include "plugins/pluginhost.h"

namespace qcm::host {

namespace {

metrics::MetricFamily family(const char *name, const char *help, metrics::MetricType type,
    const metrics::Labels &labels, double value)
{
    metrics::ClientMetric sample;
    sample.labels = labels;
    sample.value = value;
    return {QString::fromLatin1(name), QString::fromLatin1(help), type, {std::move(sample)}};
}

} // namespace

ScaleOutMetrics::ScaleOutMetrics(const ScaleOut &scaleOut, const PluginHost &plugins)
    : m_scaleOut(scaleOut), m_plugins(plugins)
{ }

std::vector<metrics::MetricFamily> ScaleOutMetrics::collect() const
{
    using metrics::MetricType;
    sharding::ShardGroup &group = *m_scaleOut.group();
    const metrics::Labels labels {{QStringLiteral("group"), m_scaleOut.name()}};
    std::vector<metrics::MetricFamily> families;
    families.push_back(family("qcm_scaleout_epoch", "The newest epoch of the group's ring read.",
        MetricType::Gauge, labels, double(group.ring().epoch().number)));
    families.push_back(family("qcm_scaleout_serving_epoch",
        "The epoch this replica entered last (its acknowledgement).", MetricType::Gauge, labels,
        double(group.servingEpoch())));
    families.push_back(family("qcm_scaleout_base_epoch",
        "The epoch whose barrier this replica passed last; 0 before the first.", MetricType::Gauge,
        labels, double(group.baseEpoch())));
    families.push_back(family("qcm_scaleout_members", "The members of the group alive.",
        MetricType::Gauge, labels, double(group.membership().aliveMembers().size())));
    families.push_back(family("qcm_scaleout_epochs_entered_total",
        "Epochs this replica entered, each a handover of keys.", MetricType::Counter, labels,
        double(m_scaleOut.epochsEntered())));
    if (const sharding::ControllerScope *scope = m_scaleOut.controllerScope()) {
        families.push_back(family("qcm_scaleout_controllers_placed",
            "Controller scope: the controllers the placement gives this replica.",
            MetricType::Gauge, labels, double(scope->placed().size())));
        families.push_back(family("qcm_scaleout_controllers_held",
            "Controller scope: the controllers whose Lease this replica holds.", MetricType::Gauge,
            labels, double(scope->held().size())));
    }
    metrics::MetricFamily owned {QStringLiteral("qcm_scaleout_keys_owned"),
        QStringLiteral("The objects of each sharded controller's own resource that hash to this "
                       "replica."),
        MetricType::Gauge, {}};
    for (const auto &plugin : m_plugins.plugins()) {
        const qsizetype keys = plugin->ownedKeys();
        if (keys < 0)
            continue;
        metrics::ClientMetric sample;
        sample.labels = labels;
        sample.labels.emplace(QStringLiteral("controller"), plugin->name());
        sample.value = double(keys);
        owned.metrics.push_back(std::move(sample));
    }
    families.push_back(std::move(owned)); // left out of the output when no series
    return families;
}

} // namespace qcm::host
