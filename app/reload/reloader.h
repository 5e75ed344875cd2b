// SPDX-License-Identifier: Apache-2.0
// Reloader: changes without restart (docs/host.md). On SIGHUP, or when controller-manager.yaml
// changes on disk, it reads the configuration again, with the flags over it as at start-up,
// and checks it as strictly as at start-up; on a change in a plugin directory it looks for
// new, removed and replaced .so files (PluginHost::rescan()). Then it brings each plugin to
// what the configuration now asks (reloadstep.h), one plugin at a time: it starts the
// controllers newly enabled or newly found, stops (draining, within
// controllerShutdownTimeout, without blocking the event loop: ControllerStopper) and unloads
// the ones disabled, and restarts the ones whose workers, resyncPeriod or settings changed.
// Every other controller keeps running, untouched.
//
// A configuration that cannot be read, is invalid (the same errors as at start-up, with
// file, field, line and column), or changes a field that needs a restart (configdiff.h) is
// refused whole: it is logged, finished(false, ...) is emitted, and the running set stays
// exactly as it was. A rescan is never refused: a new plugin starts if the configuration in
// force enables it.
//
// Leader election: a controller that needs it is started by a reload only while this replica
// leads (mayRun(), the one place that asks); otherwise it is loaded and waits on standby, as
// at start-up, and the elector's startedLeading starts it.
//
// One reload runs at a time; a request that comes meanwhile runs after it (several as one).
// Call shutdown() before ControllerManager::shutdown(): it stops watching and finishes the
// stops in progress.
//
// Thread safety: the host's main thread only.
#pragma once

#include "config/configdiff.h"
#include "config/options.h"
#include "controllers/controllerstopper.h"
#include "plugins/pluginhost.h"
#include "reload/reloadstep.h"

#include <QtCore/QObject>

#include <memory>

namespace qcm::host {

class ControllerManager;
class PathWatcher;

class Reloader : public QObject
{
    Q_OBJECT

public:
    static constexpr Duration DefaultSettle = std::chrono::milliseconds(500);

    // `flags` are the command line's: applied over the file at every reload, as at start-up.
    Reloader(const Options &flags, PluginHost &plugins, ControllerManager &manager,
        QObject *parent = nullptr);
    ~Reloader() override;

    // From now on, a change of the configuration file (if --config) reloads, and a change in
    // a plugin directory rescans, once the change has settled for `settle` (pathwatcher.h).
    void watch(Duration settle = DefaultSettle);
    // Reads the configuration and the plugin directories again and applies the difference.
    void reload(const QString &reason);
    // Reads the plugin directories again and starts or stops what that changes.
    void rescan(const QString &reason);
    // Stops watching, finishes the stops in progress, and takes no more requests.
    void shutdown();
    bool isBusy() const { return m_busy; }

    // Whether this replica may run the plugin's controller now: it does not need leader
    // election, or leader election is off, or this replica leads.
    bool mayRun(const PluginSpec &plugin) const;

signals:
    // A reload or rescan is over, its stops included: applied, or refused (the reasons are
    // in `summary`, and in the log).
    void finished(bool applied, const QString &summary);

private:
    enum class Request { None, Rescan, Reload };
    void run(Request request, const QString &reason);
    // Reads and checks the new configuration and makes it the manager's; the errors if not.
    Result<ConfigDiff, QList<Error>> applyConfig(const ControllerManagerConfig &running);
    Result<ControllerManagerConfig> readConfig() const;
    void converge(PluginSpec *plugin);
    void startController(PluginSpec &plugin);
    PluginView viewOf(const PluginSpec &plugin) const;
    void finishIfDone();

    const Options m_flags;
    PluginHost &m_plugins;
    ControllerManager &m_manager;
    ControllerStopper m_stopper;
    std::unique_ptr<PathWatcher> m_configWatcher;
    std::unique_ptr<PathWatcher> m_pluginWatcher;
    QSet<QString> m_retry; // failed controllers this reload tries again
    bool m_busy = false;
    bool m_shutDown = false;
    bool m_applied = true;
    QString m_summary;
    Request m_pending = Request::None;
    QStringList m_pendingReasons;
};

} // namespace qcm::host
