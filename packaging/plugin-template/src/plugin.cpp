// SPDX-License-Identifier: Apache-2.0
// The plugin: the object the host loads from libconfigmap-checksum.so. It is a factory: the
// host calls create() for each controller it starts (again after a configuration reload that
// changes the controller's settings), so it keeps no state of its own.
#include "checksumcontroller.h"

#include <qcm/plugin.h>

class ConfigMapChecksumPlugin : public QObject, public qcm::ControllerPlugin
{
    Q_OBJECT
    // configmap-checksum.json is written by qcm_add_controller_plugin(NAME configmap-checksum).
    Q_PLUGIN_METADATA(IID QCM_CONTROLLER_PLUGIN_IID FILE "configmap-checksum.json")
    Q_INTERFACES(qcm::ControllerPlugin)

public:
    // Bad settings throw std::invalid_argument: the host marks the plugin failed with the
    // message, and runs the others.
    std::unique_ptr<qcm::Controller> create(const qcm::ControllerContext &context) override
    {
        return std::make_unique<checksum::ChecksumController>(context);
    }
};

#include "plugin.moc"
