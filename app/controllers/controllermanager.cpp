// SPDX-License-Identifier: Apache-2.0
#include "controllers/controllermanager.h"

#include "config/configdiff.h"
#include "config/duration.h"
#include "logging.h"

#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/record/eventbroadcaster.h>

#include <QtCore/QRandomGenerator>
#include <QtCore/QTimer>

namespace qcm::host {

QString eventSourceComponent(const QString &controllerName)
{
    static const QString suffix = QStringLiteral("-controller");
    return controllerName.endsWith(suffix) ? controllerName : controllerName + suffix;
}

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
    if (m_services.eventBroadcaster)
        context.setEventRecorder(
            m_services.eventBroadcaster->newRecorder({eventSourceComponent(plugin.name()), {}}));
    if (m_leading && requiresLeader(plugin))
        context.setLeaderToken(m_term);
    else if (const auto held = m_held.constFind(plugin.name());
             held != m_held.cend() && requiresLeader(plugin))
        context.setLeaderToken(*held);
    if (isSharded(plugin))
        context.setShardFilter(m_services.shardFilter);
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
    QList<PluginSpec *> configured;
    int standby = 0;
    for (const auto &plugin : m_plugins.plugins()) {
        if (!plugin->isEnabled() || plugin->state() != PluginState::Discovered)
            continue;
        if (!plugin->load())
            continue;
        if (requiresLeader(*plugin)) {
            ++standby; // loaded, so that a broken library is found now; created when leading
            continue;
        }
        const ControllerContext context = contextFor(*plugin);
        qCInfo(lcHost).noquote()
            << QStringLiteral("creating controller %1: %2 worker(s), resync %3%4")
                   .arg(plugin->name())
                   .arg(context.workers())
                   .arg(formatDuration(context.resyncPeriod()),
                       context.shardFilter()
                           ? QStringLiteral(", sharded across %1").arg(m_config.scaleOutGroup)
                           : QString());
        if (plugin->configure(context))
            configured << plugin.get();
    }
    int running = 0;
    for (PluginSpec *plugin : std::as_const(configured))
        running += plugin->start() ? 1 : 0;
    if (m_services.informerFactory)
        m_services.informerFactory->start();
    qCInfo(lcHost).noquote() << QStringLiteral("%1 controller(s) started").arg(running);
    if (standby > 0)
        qCInfo(lcHost).noquote()
            << QStringLiteral("%1 controller(s) wait for leadership").arg(standby);
    return running;
}

bool ControllerManager::requiresLeader(const PluginSpec &plugin) const
{
    return m_config.leaderElection.leaderElect && plugin.metaData().needsLeaderElection
        && !isSharded(plugin);
}

bool ControllerManager::isSharded(const PluginSpec &plugin) const
{
    return m_services.shardFilter && host::isSharded(m_config, plugin.name());
}

bool ControllerManager::mayRun(const PluginSpec &plugin) const
{
    if (!requiresLeader(plugin))
        return true;
    return m_config.leaderElection.scope == LeaderElectionScope::Controller
        ? m_held.contains(plugin.name())
        : m_leading;
}

QStringList ControllerManager::placedControllers() const
{
    QStringList names;
    for (const auto &plugin : m_plugins.plugins())
        if (plugin->isEnabled() && !plugin->name().isEmpty() && requiresLeader(*plugin))
            names << plugin->name();
    return names;
}

PluginSpec *ControllerManager::heldPlugin(const QString &controller) const
{
    if (PluginSpec *plugin = m_plugins.find(controller))
        return plugin;
    for (const auto &plugin : m_plugins.plugins()) // one whose drain timed out is Failed
        if (plugin->name() == controller && plugin->error().kind == PluginError::Kind::StopTimedOut)
            return plugin.get();
    return nullptr;
}

bool ControllerManager::startHeld(
    const QString &controller, const leaderelection::LeaderToken &token)
{
    if (m_shutDown)
        return false;
    m_held.insert(controller, token);
    PluginSpec *plugin = heldPlugin(controller);
    if (!plugin || !plugin->isEnabled() || !requiresLeader(*plugin)) {
        qCWarning(lcHost).noquote()
            << QStringLiteral("holding controller %1, which is not an enabled controller that "
                              "needs leader election here")
                   .arg(controller);
        return false;
    }
    if (!m_reclaiming.contains(controller))
        qCInfo(lcHost).noquote() << QStringLiteral("holding controller %1 (%2)")
                                        .arg(controller, stateName(plugin->state()));
    // A handover whose drain timed out (its workers were stuck, say in a write cut off by a
    // partition) left it Failed; once those workers have returned it may run again. Until
    // then, look again every ReclaimInterval while the term lasts.
    if (!plugin->reclaim() && plugin->state() == PluginState::Failed
        && plugin->error().kind == PluginError::Kind::StopTimedOut) {
        if (!m_reclaiming.contains(controller))
            qCWarning(lcHost).noquote()
                << QStringLiteral("holding controller %1, which waits for its workers to "
                                  "return from reconcile() before it starts again: %2")
                       .arg(controller, plugin->error().message);
        m_reclaiming.insert(controller);
        QTimer::singleShot(std::chrono::duration_cast<std::chrono::milliseconds>(ReclaimInterval),
            this, [this, controller] {
                const auto held = m_held.constFind(controller);
                if (held == m_held.cend() || !m_reclaiming.contains(controller))
                    return; // its term ended meanwhile, or it started
                const leaderelection::LeaderToken term = *held;
                startHeld(controller, term);
            });
        return false;
    }
    m_reclaiming.remove(controller);
    const PluginState s = plugin->state();
    if ((s == PluginState::Discovered || s == PluginState::Unloaded) && !plugin->load())
        return false;
    if (plugin->state() != PluginState::Loaded && plugin->state() != PluginState::Stopped) {
        qCWarning(lcHost).noquote()
            << QStringLiteral("holding controller %1, which cannot start: %2")
                   .arg(controller, plugin->error().message);
        return false;
    }
    const bool started = plugin->configure(contextFor(*plugin)) && plugin->start();
    if (m_services.informerFactory)
        m_services.informerFactory->start(); // the informers it asked for
    qCInfo(lcHost).noquote() << QStringLiteral("holding controller %1: %2")
                                    .arg(controller,
                                        started ? QStringLiteral("started")
                                                : QStringLiteral("did not start: ")
                                                + plugin->error().message);
    return started;
}

void ControllerManager::stopHeld(const QString &controller)
{
    m_reclaiming.remove(controller);
    if (!m_held.remove(controller) || m_shutDown)
        return;
    PluginSpec *plugin = heldPlugin(controller);
    if (!plugin || plugin->state() != PluginState::Running || !requiresLeader(*plugin))
        return;
    const bool stopped = stopWithin({plugin});
    qCInfo(lcHost).noquote() << QStringLiteral("handed controller %1 back: %2")
                                    .arg(controller,
                                        stopped ? QStringLiteral("stopped")
                                                : QStringLiteral("its workers did not stop "
                                                                 "within %1")
                                                      .arg(formatDuration(
                                                          m_config.controllerShutdownTimeout)));
}

int ControllerManager::startLeading(std::optional<leaderelection::LeaderToken> token)
{
    if (m_shutDown || m_leading || m_config.leaderElection.scope == LeaderElectionScope::Controller)
        return 0; // in controller scope, each controller's own term starts it (startHeld())
    m_leading = true;
    m_term = std::move(token);
    QList<PluginSpec *> configured;
    for (const auto &plugin : m_plugins.plugins()) {
        const PluginState s = plugin->state();
        if (!plugin->isEnabled() || !requiresLeader(*plugin)
            || (s != PluginState::Loaded && s != PluginState::Stopped))
            continue;
        if (plugin->configure(contextFor(*plugin)))
            configured << plugin.get();
    }
    int running = 0;
    for (PluginSpec *plugin : std::as_const(configured))
        running += plugin->start() ? 1 : 0;
    if (m_services.informerFactory)
        m_services.informerFactory->start(); // the informers the new controllers asked for
    qCInfo(lcHost).noquote() << QStringLiteral(
        "leading: %1 controller(s) that need leader election started")
                                    .arg(running);
    return running;
}

void ControllerManager::stopLeading()
{
    if (!m_leading)
        return;
    m_leading = false;
    m_term.reset();
    if (m_shutDown)
        return;
    QList<PluginSpec *> running;
    for (const auto &plugin : m_plugins.plugins()) {
        if (requiresLeader(*plugin) && plugin->state() == PluginState::Running)
            running << plugin.get();
    }
    if (m_config.leaderElection.mode == LeaderElectionMode::RunOrDie) {
        for (PluginSpec *plugin : std::as_const(running))
            plugin->controller()->shutDown(); // no new work from now on
        qCCritical(lcHost).noquote()
            << QStringLiteral("leader election lost: %1 controller(s) stopped taking work; "
                              "exiting (run-or-die)")
                   .arg(running.size());
        return; // the elector exits the process now
    }
    stopWithin(running);
    qCWarning(lcHost).noquote() << QStringLiteral(
        "leader election lost: %1 controller(s) stopped; campaigning again "
        "(rejoin)")
                                       .arg(running.size());
}

bool ControllerManager::stopWithin(const QList<PluginSpec *> &plugins)
{
    for (PluginSpec *plugin : plugins)
        plugin->controller()->shutDown(); // all at once: they drain in parallel
    const auto deadline = std::chrono::steady_clock::now() + m_config.controllerShutdownTimeout;
    bool allStopped = true;
    for (PluginSpec *plugin : plugins) {
        const Duration left
            = std::max<Duration>(Duration::zero(), deadline - std::chrono::steady_clock::now());
        allStopped &= plugin->stop(left);
    }
    return allStopped;
}

bool ControllerManager::shutdown()
{
    const bool allStopped = stopAll();
    unloadAll();
    return allStopped;
}

bool ControllerManager::stopAll()
{
    if (m_shutDown)
        return m_allStopped;
    m_shutDown = true;
    QList<PluginSpec *> running;
    for (const auto &plugin : m_plugins.plugins()) {
        if (plugin->state() == PluginState::Running)
            running << plugin.get();
    }
    m_allStopped = stopWithin(running);
    if (m_services.informerFactory)
        m_services.informerFactory->shutdown();
    if (!m_allStopped)
        qCCritical(lcHost).noquote()
            << QStringLiteral("some controllers did not stop within %1; their workers are "
                              "abandoned")
                   .arg(formatDuration(m_config.controllerShutdownTimeout));
    return m_allStopped;
}

void ControllerManager::unloadAll()
{
    if (m_unloaded)
        return;
    m_unloaded = true;
    for (const auto &plugin : m_plugins.plugins()) {
        const PluginState s = plugin->state();
        if (s == PluginState::Loaded || s == PluginState::Configured || s == PluginState::Stopped
            || (s == PluginState::Failed && plugin->isLibraryLoaded()
                && plugin->error().kind != PluginError::Kind::StopTimedOut))
            plugin->unload();
    }
}

} // namespace qcm::host
