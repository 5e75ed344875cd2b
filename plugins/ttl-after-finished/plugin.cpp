// SPDX-License-Identifier: Apache-2.0
// The ttl-after-finished plugin: the factory the host loads (see ttlafterfinishedcontroller.h).
#include "ttlafterfinishedcontroller.h"

#include <qcm/plugin.h>

class TtlAfterFinishedPlugin : public QObject, public qcm::ControllerPlugin
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID QCM_CONTROLLER_PLUGIN_IID FILE "ttl-after-finished.json")
    Q_INTERFACES(qcm::ControllerPlugin)

public:
    // Throws std::invalid_argument for bad settings: the host marks the plugin failed with it.
    std::unique_ptr<qcm::Controller> create(const qcm::ControllerContext &context) override
    {
        return std::make_unique<qcm::samples::TtlAfterFinishedController>(context);
    }
};

#include "plugin.moc"
