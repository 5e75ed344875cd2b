// SPDX-License-Identifier: Apache-2.0
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
// Leader election (leaderElection.leaderElect): a plugin whose metadata needs leader election
// (requiresLeader()) is only loaded by start(), and waits there on standby. startLeading()
// (the elector's startedLeading) creates and starts those controllers; stopLeading() (its
// stoppedLeading) stops them: in run-or-die mode it only shuts their queues to new work,
// since the process exits right after and draining would reconcile without the lease; in
// rejoin mode it stops them as shutdown() does, and they go back to standby (Stopped) until
// the next startLeading(). The other controllers run on every replica, from start().
// startLeading() is given the term's LeaderToken: the contexts of the controllers that need
// leader election carry it, and their Controller starts no reconcile once the term is over
// (controller.h), so that a rejoin-mode drain does not reconcile without the lease.
//
// Controller scope (leaderElection.scope: controller, docs/scale-out.md): each controller
// that needs leader election has a term of its own (leadership/scaleout.h), and
// startHeld()/stopHeld() start and stop that one controller in its term, as startLeading() and
// stopLeading() do all of them in manager scope; a controller handed back always drains
// (rejoin), whatever leaderElection.mode, since the process goes on running the others.
//
// Scale-out (docs/scale-out.md): a controller whose entry says shards: auto, with
// Services::shardFilter set (the host's ShardGroup of scaleOut.group), runs on every replica
// from start(), whatever its plugin's needsLeaderElection, and its context carries the filter:
// it enqueues and reconciles only the keys this replica owns.
//
// Events: with Services::eventBroadcaster (the host's one, on its REST client), every
// context gets a recorder of it whose source component is eventSourceComponent(name).
//
// Thread safety: the host's main thread only.
#pragma once

#include "config/config.h"
#include "plugins/pluginhost.h"

#include <qcm/context.h>
#include <qcm/leaderelection/leadertoken.h>

#include <QtCore/QObject>

namespace qcm::record {
class EventBroadcaster;
}

namespace qcm::host {

// The EventSource component of a controller's Events, after kube-controller-manager's: its
// controllers record as their canonical name, which ends in "-controller"
// ("ttl-after-finished-controller" for --controllers ttl-after-finished). So: the controller's
// name if it ends in "-controller" ("sample-controller", as upstream's sample-controller),
// else the name with "-controller" added.
QString eventSourceComponent(const QString &controllerName);

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
        // The host's: each context gets a recorder of it. Null: contexts without a recorder.
        record::EventBroadcaster *eventBroadcaster = nullptr;
        // The scale-out group's filter (sharding::ShardGroup); null: no scale-out.
        std::shared_ptr<sharding::ShardFilter> shardFilter;
    };

    ControllerManager(const ControllerManagerConfig &config, PluginHost &plugins,
        const Services &services, QObject *parent = nullptr);
    ~ControllerManager() override;

    // Returns how many controllers were started.
    int start();
    // stopAll(), then unloadAll(). True if every controller stopped within the timeout.
    bool shutdown();
    // The first half of shutdown(): stops every controller within the timeout, then the
    // informers. The host releases the lease after it, and unloads only once its event loop
    // has ended: objects a controller left for deferred deletion may still hold plugin code.
    bool stopAll();
    // The second half: destroys the controllers and unloads the libraries.
    void unloadAll();

    // The context a plugin's controller is created with.
    ControllerContext contextFor(const PluginSpec &plugin) const;
    // A reload's new configuration (reloader.h): controllers created from now on get it.
    void setConfig(const ControllerManagerConfig &config) { m_config = config; }

    const ControllerManagerConfig &config() const { return m_config; }
    // Leader election is on, the plugin's metadata needs it, and it is not sharded.
    bool requiresLeader(const PluginSpec &plugin) const;
    // Its entry says shards: auto and there is a scale-out group.
    bool isSharded(const PluginSpec &plugin) const;
    // Between startLeading() and stopLeading().
    bool isLeading() const { return m_leading; }
    // The plugin may run here now: it needs no leader, or this replica holds its term (manager
    // scope: leads; controller scope: between startHeld() and stopHeld() of its name).
    bool mayRun(const PluginSpec &plugin) const;
    // Controller scope: the enabled plugins that need leader election, the ones to place.
    // Every member must compute the same list (the same controllers setting), so that they
    // compute the same placement; a quarantined one is placed all the same.
    QStringList placedControllers() const;
    // Starts the controllers that need leader election, in the term `token` stands for (none:
    // not tied to a term, as in tests); returns how many started.
    int startLeading(std::optional<leaderelection::LeaderToken> token = std::nullopt);
    void stopLeading();
    // Controller scope: starts `controller` in the term `token` stands for (if it is enabled,
    // needs leader election and is on standby); true if it started. If its last drain timed
    // out, it starts once its workers have returned (PluginSpec::reclaim()), looked for every
    // ReclaimInterval while the term lasts.
    static constexpr Duration ReclaimInterval = std::chrono::milliseconds(500);
    bool startHeld(const QString &controller, const leaderelection::LeaderToken &token);
    // Controller scope: its term is over; stops it, draining, within controllerShutdownTimeout.
    void stopHeld(const QString &controller);

private:
    // The plugin of a controller-scope controller: PluginHost::find(), or the one whose last
    // drain timed out (Failed, which find() skips).
    PluginSpec *heldPlugin(const QString &controller) const;
    // Stops the plugins' controllers at once, all within controllerShutdownTimeout.
    bool stopWithin(const QList<PluginSpec *> &plugins);

    ControllerManagerConfig m_config;
    PluginHost &m_plugins;
    const Services m_services;
    bool m_started = false;
    bool m_shutDown = false;
    bool m_allStopped = true;
    bool m_unloaded = false;
    bool m_leading = false;
    std::optional<leaderelection::LeaderToken> m_term; // while leading
    QMap<QString, leaderelection::LeaderToken> m_held; // controller scope: the terms held
    QSet<QString> m_reclaiming; // held, waiting for the workers of a drain that timed out
};

} // namespace qcm::host
