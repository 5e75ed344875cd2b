// The configmap-restarter plugin: the factory the host loads (see configmaprestarter.h).
#include "configmaprestarter.h"

#include <qcm/plugin.h>

class ConfigMapRestarterPlugin : public QObject, public qcm::ControllerPlugin
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID QCM_CONTROLLER_PLUGIN_IID FILE "configmap-restarter.json")
    Q_INTERFACES(qcm::ControllerPlugin)

public:
    std::unique_ptr<qcm::Controller> create(const qcm::ControllerContext &context) override
    {
        return std::make_unique<qcm::samples::ConfigMapRestarter>(context);
    }
};

#include "plugin.moc"
