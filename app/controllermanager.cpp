#include "controllermanager.h"

#include "duration.h"
#include "logging.h"

#include <qcm/cache/sharedinformerfactory.h>

#include <QtCore/QRandomGenerator>

namespace qcm::host {

ControllerManager::ControllerManager(const ControllerManagerConfig &config, PluginHost &plugins,
    const Services &services, QObject *parent)
    : QObject(parent), m_config(config), m_plugins(plugins), m_services(services)
{ }

ControllerManager::~ControllerManager()
{
    if (m_started && !m_shutDown)
        shutdown();
}

ControllerContext ControllerManager::contextFor(const PluginSpec &plugin) const
{
    ControllerContext context(plugin.name());
    context.setInformerFactory(m_services.informerFactory);
    context.setRestClient(m_services.restClient);
    context.setMetricsRegistry(m_services.metricsRegistry);
    context.setClock(m_services.clock);
    const ControllerConfig entry = m_config.controllerConfig.value(plugin.name());
    context.setWorkers(entry.workers.value_or(1));
    context.setSettings(entry.settings);
    if (entry.resyncPeriod) {
        context.setResyncPeriod(*entry.resyncPeriod);
    } else {
        // kube-controller-manager's ResyncPeriod(): random in [min, 2*min), so that the
        // controllers do not all relist at once.
        const double factor = QRandomGenerator::global()->generateDouble() + 1;
        context.setResyncPeriod(
            Duration(qint64(double(m_config.minResyncPeriod.count()) * factor)));
    }
    return context;
}

int ControllerManager::start()
{
    if (m_started)
        return 0;
    m_started = true;
    if (m_config.leaderElection.leaderElect)
        qCWarning(lcHost) << "leader election is not built into this qcm yet: every enabled "
                             "controller runs on this replica";
    QList<PluginSpec *> configured;
    for (const auto &plugin : m_plugins.plugins()) {
        if (!plugin->isEnabled() || plugin->state() != PluginState::Discovered)
            continue;
        if (!plugin->load())
            continue;
        const ControllerContext context = contextFor(*plugin);
        qCInfo(lcHost).noquote() << QStringLiteral(
            "creating controller %1: %2 worker(s), resync %3")
                                        .arg(plugin->name())
                                        .arg(context.workers())
                                        .arg(formatDuration(context.resyncPeriod()));
        if (plugin->configure(context))
            configured << plugin.get();
    }
    int running = 0;
    for (PluginSpec *plugin : std::as_const(configured))
        running += plugin->start() ? 1 : 0;
    if (m_services.informerFactory)
        m_services.informerFactory->start();
    qCInfo(lcHost).noquote() << QStringLiteral("%1 controller(s) started").arg(running);
    return running;
}

bool ControllerManager::shutdown()
{
    if (m_shutDown)
        return true;
    m_shutDown = true;
    const auto deadline = std::chrono::steady_clock::now() + m_config.controllerShutdownTimeout;
    QList<PluginSpec *> running;
    for (const auto &plugin : m_plugins.plugins()) {
        if (plugin->state() == PluginState::Running) {
            plugin->controller()->shutDown(); // all at once: they drain in parallel
            running << plugin.get();
        }
    }
    bool allStopped = true;
    for (PluginSpec *plugin : std::as_const(running)) {
        const Duration left
            = std::max<Duration>(Duration::zero(), deadline - std::chrono::steady_clock::now());
        allStopped &= plugin->stop(left);
    }
    if (m_services.informerFactory)
        m_services.informerFactory->shutdown();
    for (const auto &plugin : m_plugins.plugins()) {
        const PluginState s = plugin->state();
        if (s == PluginState::Loaded || s == PluginState::Configured || s == PluginState::Stopped
            || (s == PluginState::Failed && plugin->isLibraryLoaded()
                && plugin->error().kind != PluginError::Kind::StopTimedOut))
            plugin->unload();
    }
    if (!allStopped)
        qCCritical(lcHost).noquote()
            << QStringLiteral("some controllers did not stop within %1; their workers are "
                              "abandoned")
                   .arg(formatDuration(m_config.controllerShutdownTimeout));
    return allStopped;
}

} // namespace qcm::host
