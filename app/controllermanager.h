// ControllerManager: runs the enabled plugins' controllers (kube-controller-manager's
// StartControllers and its shutdown).
//
// start(): for every enabled plugin, load it, create its Controller through its factory with
// a ControllerContext (the shared services plus its controllerConfig entry: workers, resync
// period, settings), start it, and then start the shared informers. A plugin that fails at
// any step is Failed with its reason; the others go on.
//
// shutdown(): stop every controller at once, each draining its queue, all within
// controllerShutdownTimeout; then stop the informers; then destroy the controllers and unload
// their libraries. A controller whose workers are still busy at the deadline is Failed
// (StopTimedOut) and left loaded.
//
// Leader election is not wired in yet: every enabled controller runs on this replica.
//
// Thread safety: the host's main thread only.
#pragma once

#include "config.h"
#include "pluginhost.h"

#include <qcm/context.h>

#include <QtCore/QObject>

namespace qcm::host {

class ControllerManager : public QObject
{
    Q_OBJECT

public:
    // What every controller shares. The caller owns them; they outlive the manager.
    struct Services
    {
        client::RestClient *restClient = nullptr;
        cache::SharedInformerFactory *informerFactory = nullptr;
        metrics::Registry *metricsRegistry = nullptr;
        Clock *clock = nullptr; // null: Clock::system()
    };

    ControllerManager(const ControllerManagerConfig &config, PluginHost &plugins,
        const Services &services, QObject *parent = nullptr);
    ~ControllerManager() override;

    // Returns how many controllers were started.
    int start();
    // True if every controller stopped within the timeout.
    bool shutdown();

    // The context a plugin's controller is created with.
    ControllerContext contextFor(const PluginSpec &plugin) const;

private:
    const ControllerManagerConfig m_config;
    PluginHost &m_plugins;
    const Services m_services;
    bool m_started = false;
    bool m_shutDown = false;
};

} // namespace qcm::host
