// SPDX-License-Identifier: Apache-2.0
// The configmap-restarter plugin: the factory the host loads (see configmaprestarter.h).
#include "configmaprestarter.h"

#include <qcm/plugin.h>

class ConfigMapRestarterPlugin : public QObject, public qcm::ControllerPlugin
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID QCM_CONTROLLER_PLUGIN_IID FILE "configmap-restarter.json")
    Q_INTERFACES(qcm::ControllerPlugin)

public:
    // Throws std::invalid_argument for any setting (it has none), and without an event
    // recorder: the host marks the plugin failed with the message.
    std::unique_ptr<qcm::Controller> create(const qcm::ControllerContext &context) override
    {
        context.requireKnownSettings({});
        return std::make_unique<qcm::samples::ConfigMapRestarter>(context);
    }
};

#include "plugin.moc"
