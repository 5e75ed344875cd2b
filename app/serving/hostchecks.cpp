// SPDX-License-Identifier: Apache-2.0
#include "serving/hostchecks.h"

#include "controllers/controllermanager.h"
#include "leadership/leadership.h"
#include "plugins/pluginhost.h"
#include "watchdog/watchdog.h"

namespace qcm::host {

namespace {

using Failure = std::optional<QString>;

Failure failedPlugin(const PluginSpec &plugin)
{
    if (plugin.state() == PluginState::Failed)
        return QStringLiteral("failed: %1").arg(plugin.error().message);
    if (plugin.state() == PluginState::Quarantined)
        return QStringLiteral("quarantined: %1").arg(plugin.error().message);
    return std::nullopt;
}

Failure notReady(
    const PluginSpec &plugin, const ControllerManager &manager, const Leadership *leadership)
{
    if (Failure failed = failedPlugin(plugin))
        return failed;
    const PluginState state = plugin.state();
    if (!manager.mayRun(plugin)) {
        if (leadership && !leadership->hasObservedLeader())
            return QStringLiteral("waiting for the first look at the lease");
        if (state == PluginState::Loaded || state == PluginState::Stopped)
            return std::nullopt; // on standby
        return QStringLiteral("not on standby yet (%1)").arg(stateName(state));
    }
    if (state != PluginState::Running)
        return QStringLiteral("not running (%1)").arg(stateName(state));
    if (!plugin.controller() || !plugin.controller()->hasSynced())
        return QStringLiteral("running, but its caches have not synced yet");
    return std::nullopt;
}

Failure unsyncedCaches(const PluginHost &plugins)
{
    QStringList unsynced;
    for (const auto &plugin : plugins.plugins()) {
        if (plugin->state() == PluginState::Running && plugin->controller()
            && !plugin->controller()->hasSynced())
            unsynced << plugin->name();
    }
    if (unsynced.isEmpty())
        return std::nullopt;
    return QStringLiteral("the caches of %1 have not synced")
        .arg(unsynced.join(QStringLiteral(", ")));
}

// One check per enabled plugin with a name.
template<typename Check>
QList<HealthCheck> perController(const PluginHost &plugins, Check check)
{
    QList<HealthCheck> checks;
    for (const auto &plugin : plugins.plugins()) {
        if (!plugin->isEnabled() || plugin->name().isEmpty())
            continue;
        const PluginSpec *p = plugin.get();
        checks << HealthCheck {p->name(), [p, check] { return check(*p); }};
    }
    return checks;
}

} // namespace

HostChecks::HostChecks(const PluginHost &plugins, const ControllerManager &manager,
    const Leadership *leadership, const Watchdog *watchdog)
    : m_plugins(plugins), m_manager(manager), m_leadership(leadership), m_watchdog(watchdog)
{ }

QList<HealthCheck> HostChecks::leaderElection() const
{
    if (!m_leadership)
        return {};
    const Leadership *leadership = m_leadership;
    return {{QStringLiteral("leaderElection"), [leadership] { return leadership->check(); }}};
}

QList<HealthCheck> HostChecks::livez() const
{
    QList<HealthCheck> checks = QList<HealthCheck> {pingCheck()} + leaderElection();
    if (m_watchdog && m_watchdog->stallTimeout() > Duration::zero())
        checks << m_watchdog->eventLoopCheck();
    return checks;
}

QList<HealthCheck> HostChecks::healthz() const
{
    const Watchdog *watchdog = m_watchdog;
    return livez() + perController(m_plugins, [watchdog](const PluginSpec &p) -> Failure {
        if (Failure failed = failedPlugin(p))
            return failed;
        return watchdog ? watchdog->controllerStall(p.name()) : std::nullopt;
    });
}

QList<HealthCheck> HostChecks::readyz() const
{
    const PluginHost *plugins = &m_plugins;
    const ControllerManager *manager = &m_manager;
    const Leadership *leadership = m_leadership;
    return QList<HealthCheck> {pingCheck(),
               {QStringLiteral("informer-sync"), [plugins] { return unsyncedCaches(*plugins); }}}
    + perController(m_plugins,
        [manager, leadership](const PluginSpec &p) { return notReady(p, *manager, leadership); });
}

} // namespace qcm::host
