// SPDX-License-Identifier: Apache-2.0
// The sample-controller plugin: the factory the host loads (see foocontroller.h).
#include "foocontroller.h"

#include <qcm/plugin.h>

class SampleControllerPlugin : public QObject, public qcm::ControllerPlugin
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID QCM_CONTROLLER_PLUGIN_IID FILE "sample-controller.json")
    Q_INTERFACES(qcm::ControllerPlugin)

public:
    // Throws std::invalid_argument for any setting (it has none), or for a context without an
    // event recorder: the host marks the plugin failed with the message.
    std::unique_ptr<qcm::Controller> create(const qcm::ControllerContext &context) override
    {
        context.requireKnownSettings({});
        return std::make_unique<qcm::samples::FooController>(context);
    }
};

#include "plugin.moc"
