// SPDX-License-Identifier: Apache-2.0
#include "reload/reloader.h"

#include "config/duration.h"
#include "controllers/controllermanager.h"
#include "logging.h"
#include "plugins/controllerselection.h"
#include "reload/fileidentity.h"
#include "reload/pathwatcher.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QTimer>

namespace qcm::host {

namespace {

// The configuration file's contents, or that there is none.
QByteArray fileSnapshot(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return QByteArrayLiteral("-");
    return QByteArrayLiteral("+") + file.readAll();
}

// Every .so file of the directories, with its identity: a new, removed, replaced or
// rewritten file changes it.
QByteArray directoriesSnapshot(const QStringList &directories)
{
    QByteArray snapshot;
    for (const QString &directory : directories) {
        snapshot += directory.toUtf8() + '\n';
        const QDir dir(directory);
        for (const QString &name :
            dir.entryList({QStringLiteral("*.so")}, QDir::Files, QDir::Name)) {
            const FileIdentity id = FileIdentity::of(dir.filePath(name));
            snapshot += name.toUtf8() + ' ' + QByteArray::number(id.device) + ' '
                + QByteArray::number(id.inode) + ' ' + QByteArray::number(id.size) + ' '
                + QByteArray::number(id.modifiedNs) + '\n';
        }
    }
    return snapshot;
}

QString controllerNames(const QList<PluginSpec *> &plugins)
{
    QStringList names;
    for (const PluginSpec *p : plugins)
        names << (p->name().isEmpty() ? p->filePath() : p->name());
    return names.join(QStringLiteral(", "));
}

} // namespace

Reloader::Reloader(
    const Options &flags, PluginHost &plugins, ControllerManager &manager, QObject *parent)
    : QObject(parent), m_flags(flags), m_plugins(plugins), m_manager(manager), m_stopper(this)
{ }

Reloader::~Reloader()
{
    shutdown();
}

void Reloader::watch(Duration settle)
{
    if (m_shutDown)
        return;
    if (!m_flags.configFile.isEmpty()) {
        const QString file = QFileInfo(m_flags.configFile).absoluteFilePath();
        // The directory too: an editor or a ConfigMap volume replaces the file by a rename.
        m_configWatcher = std::make_unique<PathWatcher>(
            QStringList {file, QFileInfo(file).absolutePath()},
            [file] { return fileSnapshot(file); }, settle);
        connect(m_configWatcher.get(), &PathWatcher::changed, this,
            [this, file] { reload(QStringLiteral("%1 changed").arg(file)); });
    }
    const QStringList directories = m_manager.config().pluginDirs;
    QStringList paths;
    for (const QString &directory : directories) {
        const QString absolute = QFileInfo(directory).absoluteFilePath();
        // The parent too: it sees the directory itself created, removed or renamed.
        paths << absolute << QFileInfo(absolute).absolutePath();
    }
    paths.removeDuplicates();
    if (!paths.isEmpty()) {
        m_pluginWatcher = std::make_unique<PathWatcher>(
            paths, [directories] { return directoriesSnapshot(directories); }, settle);
        connect(m_pluginWatcher.get(), &PathWatcher::changed, this,
            [this] { rescan(QStringLiteral("a plugin directory changed")); });
    }
    QStringList watched = directories;
    if (m_configWatcher)
        watched.prepend(QFileInfo(m_flags.configFile).absoluteFilePath());
    qCInfo(lcHost).noquote() << QStringLiteral("watching %1 for changes; SIGHUP reloads")
                                    .arg(watched.isEmpty() ? QStringLiteral("nothing")
                                                           : watched.join(QStringLiteral(", ")));
}

void Reloader::reload(const QString &reason)
{
    run(Request::Reload, reason);
}

void Reloader::rescan(const QString &reason)
{
    run(Request::Rescan, reason);
}

void Reloader::shutdown()
{
    if (m_shutDown)
        return;
    m_shutDown = true;
    m_configWatcher.reset();
    m_pluginWatcher.reset();
    m_stopper.finishNow();
    m_pending = Request::None;
}

bool Reloader::mayRun(const PluginSpec &plugin) const
{
    // The one place a reload asks about leadership (ControllerManager::mayRun()).
    return m_manager.mayRun(plugin);
}

void Reloader::run(Request request, const QString &reason)
{
    if (m_shutDown)
        return;
    if (m_busy) {
        // After the one in progress, once: a reload covers a rescan.
        m_pending = std::max(m_pending, request);
        m_pendingReasons << reason;
        return;
    }
    m_busy = true;
    m_applied = true;
    m_summary.clear();
    m_retry.clear();
    const ControllerManagerConfig running = m_manager.config();
    qCInfo(lcHost).noquote() << QStringLiteral("%1 (%2)").arg(
        request == Request::Reload ? QStringLiteral("reloading") : QStringLiteral("rescanning"),
        reason);

    // The plugin directories first: the configuration may name a plugin that just arrived.
    const PluginHost::RescanResult found = m_plugins.rescan(running.pluginDirs);
    const QSet<QString> disabledByDefault = m_plugins.disabledByDefaultNames();
    for (PluginSpec *p : found.added)
        p->setEnabled(!p->name().isEmpty()
            && isControllerEnabled(p->name(), disabledByDefault, running.controllers));
    QStringList summary;
    if (!found.added.isEmpty())
        summary << QStringLiteral("found %1").arg(controllerNames(found.added));
    if (!found.dropped.isEmpty())
        summary << QStringLiteral("gone: %1").arg(found.dropped.join(QStringLiteral(", ")));

    if (request == Request::Reload) {
        const Result<ConfigDiff, QList<Error>> applied = applyConfig(running);
        if (!applied) {
            m_applied = false;
            for (const Error &e : applied.error()) {
                qCCritical(lcHost).noquote() << QStringLiteral("reload refused: ") + e.toString();
                summary << e.toString();
            }
            qCCritical(lcHost).noquote()
                << QStringLiteral("the configuration was not applied: the running controllers "
                                  "are unchanged");
        } else {
            summary << applied->summary();
        }
    }
    m_summary = summary.isEmpty() ? QStringLiteral("nothing changed")
                                  : summary.join(QStringLiteral("; "));

    // Steps never add or drop records; a copy all the same, since they run plugin code.
    QList<PluginSpec *> plugins;
    for (const auto &p : m_plugins.plugins())
        plugins << p.get();
    for (PluginSpec *p : std::as_const(plugins))
        converge(p);
    if (m_pluginWatcher)
        m_pluginWatcher->ensureWatched(); // a plugin directory created since
    finishIfDone();
}

Result<ControllerManagerConfig> Reloader::readConfig() const
{
    ControllerManagerConfig config;
    if (!m_flags.configFile.isEmpty()) {
        Result<ControllerManagerConfig> loaded = loadConfig(m_flags.configFile);
        if (!loaded)
            return loaded.error();
        config = *loaded;
    }
    m_flags.applyTo(config);
    return config;
}

Result<ConfigDiff, QList<Error>> Reloader::applyConfig(const ControllerManagerConfig &running)
{
    const Result<ControllerManagerConfig> next = readConfig();
    if (!next)
        return QList<Error> {next.error()};
    const QSet<QString> known = m_plugins.knownNames();
    const QSet<QString> disabledByDefault = m_plugins.disabledByDefaultNames();
    const ConfigDiff diff = diffConfigs(running, *next, known, disabledByDefault);
    if (!diff.restartOnly.isEmpty())
        return diff.restartOnly;
    // Validates the names as at start-up and, only if they are all known, marks each plugin
    // enabled or not.
    if (const std::optional<Error> error = m_plugins.select(*next))
        return QList<Error> {*error};
    m_manager.setConfig(*next);
    for (const QString &name : diff.enabled + diff.changed)
        m_retry.insert(name);
    return diff;
}

PluginView Reloader::viewOf(const PluginSpec &plugin) const
{
    PluginView view;
    view.state = plugin.state();
    view.error = plugin.error().kind;
    view.enabled = plugin.isEnabled() && !plugin.name().isEmpty();
    view.mayRun = mayRun(plugin);
    view.fileChanged = plugin.isFileChanged();
    view.stale = view.state == PluginState::Running && plugin.controller()
        && !controllerSpec(m_manager.config(), plugin.name())
                .matches(plugin.controller()->context());
    view.retry = m_retry.contains(plugin.name());
    return view;
}

void Reloader::converge(PluginSpec *plugin)
{
    // Each step moves the plugin on; a handful always reaches a state with nothing to do.
    for (int i = 0; i < 8 && !m_shutDown; ++i) {
        if (m_stopper.isStopping(plugin))
            return; // converged again when the stop is over
        const PluginView view = viewOf(*plugin);
        const ReloadStep step = nextStep(view);
        if (step != ReloadStep::None)
            qCDebug(lcHost).noquote()
                << QStringLiteral("%1: %2").arg(plugin->filePath(), stepName(step));
        switch (step) {
        case ReloadStep::None:
            if (view.enabled && view.fileChanged && view.state != PluginState::Running
                && view.error != PluginError::Kind::StopTimedOut)
                qCWarning(lcHost).noquote()
                    << QStringLiteral("controller %1 is enabled but not started: %2 was removed "
                                      "or replaced after qcm loaded it; restart qcm to run it")
                           .arg(plugin->name(), plugin->filePath());
            return;
        case ReloadStep::Start:
            startController(*plugin);
            return;
        case ReloadStep::Load:
            plugin->load(); // on standby until this replica leads
            return;
        case ReloadStep::Stop: {
            qCInfo(lcHost).noquote()
                << QStringLiteral("stopping controller %1%2")
                       .arg(plugin->name(),
                           view.stale ? QStringLiteral(" to restart it with its new configuration")
                                      : QString());
            QPointer<PluginSpec> guard(plugin);
            m_stopper.stop(plugin, m_manager.config().controllerShutdownTimeout, [this, guard] {
                if (guard)
                    converge(guard);
                finishIfDone();
            });
            return;
        }
        case ReloadStep::Unload:
            plugin->unload();
            break;
        case ReloadStep::Retry:
            m_retry.remove(plugin->name()); // once
            qCInfo(lcHost).noquote() << QStringLiteral("trying controller %1 again: %2")
                                            .arg(plugin->name(), plugin->error().message);
            plugin->unload();
            break;
        }
    }
}

void Reloader::startController(PluginSpec &plugin)
{
    const PluginState s = plugin.state();
    if ((s == PluginState::Discovered || s == PluginState::Unloaded) && !plugin.load())
        return;
    const ControllerContext context = m_manager.contextFor(plugin);
    qCInfo(lcHost).noquote() << QStringLiteral("creating controller %1: %2 worker(s), resync %3")
                                    .arg(plugin.name())
                                    .arg(context.workers())
                                    .arg(formatDuration(context.resyncPeriod()));
    if (plugin.configure(context))
        plugin.start(); // its informers start at once: the factory has started
}

void Reloader::finishIfDone()
{
    if (!m_busy || m_stopper.pending() > 0)
        return;
    m_busy = false;
    int running = 0;
    for (const auto &p : m_plugins.plugins())
        running += p->state() == PluginState::Running ? 1 : 0;
    qCInfo(lcHost).noquote() << QStringLiteral("%1: %2; %3 controller(s) running")
                                    .arg(m_applied ? QStringLiteral("applied")
                                                   : QStringLiteral("refused"),
                                        m_summary)
                                    .arg(running);
    emit finished(m_applied, m_summary);
    if (m_pending != Request::None && !m_shutDown) {
        const Request next = std::exchange(m_pending, Request::None);
        const QString reasons = m_pendingReasons.join(QStringLiteral(", "));
        m_pendingReasons.clear();
        // From the event loop, not from inside whoever called us.
        QTimer::singleShot(0, this, [this, next, reasons] { run(next, reasons); });
    }
}

} // namespace qcm::host
