// SPDX-License-Identifier: Apache-2.0
// qcm: the controller manager host. Reads its configuration and flags, finds the controller
// plugins, and runs the enabled ones against the API server until SIGTERM or SIGINT.
//
// Exit status: 0 after a clean run or shutdown, and for --help, --version, --list-plugins;
// 1 for a bad flag or configuration (nothing is started then), a client that cannot be
// built or a port that cannot be served; 1 on a second SIGTERM/SIGINT; 1 when leadership is
// lost in run-or-die mode.
#include "auth/delegatedauth.h"
#include "config/clientconfig.h"
#include "config/config.h"
#include "config/duration.h"
#include "config/options.h"
#include "controllers/controllermanager.h"
#include "leadership/leadership.h"
#include "leadership/scaleout.h"
#include "leadership/scaleoutmetrics.h"
#include "logging.h"
#include "plugins/pluginhost.h"
#include "plugins/pluginstatemetrics.h"
#include "reload/reloader.h"
#include "reload/signalwatcher.h"
#include "serving/configz.h"
#include "serving/hostchecks.h"
#include "serving/processmetrics.h"
#include "serving/server.h"
#include "serving/statusz.h"
#include "watchdog/crashrecorder.h"
#include "watchdog/crashrecords.h"
#include "watchdog/watchdog.h"

#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/client/restclient.h>
#include <qcm/metrics/registry.h>
#include <qcm/record/eventbroadcaster.h>
#include <qcm/record/resteventsink.h>
#include <qcm/version.h>

#include <QtCore/QCoreApplication>
#include <QtCore/QDateTime>
#include <QtCore/QLoggingCategory>

#include <cstdio>

using namespace qcm;
using namespace qcm::host;

namespace {

int failWith(const Error &error)
{
    std::fprintf(stderr, "qcm: %s\n", qPrintable(error.toString()));
    return 1;
}

// The EventSource component of the Events qcm records itself (the lease's), as
// kube-controller-manager records its own as "kube-controller-manager".
const QString HostEventComponent = QStringLiteral("qcm");
// How long shutdown waits for the consumers' threads once the flush is over or timed out: a
// retry sleeping ends at once, only a write that does not return takes it.
constexpr Duration EventShutdownTimeout = std::chrono::seconds(1);

// Before qcm exits: writes the Events still queued (the controllers' last ones, the lease's
// "stopped leading"), within `timeout`, then stops the broadcaster. False if a write did not
// return even then: its thread still uses the REST client, which must not be destroyed.
bool flushEvents(record::EventBroadcaster &events, Duration timeout)
{
    if (!events.flush(timeout))
        qCWarning(lcHost).noquote()
            << QStringLiteral("the Events still queued were not all written within %1; the "
                              "rest are dropped")
                   .arg(formatDuration(timeout));
    if (events.shutdown(EventShutdownTimeout))
        return true;
    qCWarning(lcHost).noquote() << QStringLiteral(
        "an Event write did not return; exiting without waiting for it");
    return false;
}

// Runs the enabled controllers until a shutdown signal.
int run(const ControllerManagerConfig &config, const Options &flags, PluginHost &plugins)
{
    const Result<client::RestConfig> restConfig = buildClientConfig(config);
    if (!restConfig)
        return failWith(restConfig.error());
    qCInfo(lcHost).noquote() << QStringLiteral("API server %1 (%2)")
                                    .arg(restConfig->server.toString(), restConfig->source);

    if (!config.stateDir.isEmpty())
        if (const std::optional<Error> error = CrashRecorder::install(config.stateDir))
            return failWith(*error);
    SignalWatcher signalWatcher;
    client::RestClient restClient(*restConfig);
    // One EventBroadcaster for the host, as kube-controller-manager's Run starts its own:
    // every Event is logged (StartStructuredLogging) and written through the host's REST
    // client (StartRecordingToSink). Each controller's context gets a recorder of it, and so
    // does the leader-election lock.
    record::EventBroadcaster events;
    events.startStructuredLogging(&lcEvents());
    events.startRecordingToSink(std::make_shared<record::RestEventSink>(&restClient));
    // A quarantine is an Event about the host's Lease, where an operator looks for the host.
    QMap<QString, QString> quarantined;
    for (const auto &plugin : plugins.plugins())
        if (plugin->state() == PluginState::Quarantined)
            quarantined.insert(plugin->name(), plugin->error().message);
    if (!quarantined.isEmpty()) {
        record::ObjectReference lease;
        lease.kind = QStringLiteral("Lease");
        lease.apiVersion = QStringLiteral("coordination.k8s.io/v1");
        lease.namespaceName = config.leaderElection.resourceNamespace;
        lease.name = config.leaderElection.resourceName;
        const auto recorder = events.newRecorder({HostEventComponent, {}});
        for (auto it = quarantined.cbegin(); it != quarantined.cend(); ++it)
            recorder->event(lease, record::EventTypeWarning, QStringLiteral("Quarantined"),
                QStringLiteral("controller %1 is quarantined: %2").arg(it.key(), it.value()));
    }
    metrics::Registry registry;
    registry.registerCollectable(std::make_shared<ProcessMetrics>());
    registry.registerCollectable(std::make_shared<PluginStateMetrics>(plugins));
    std::unique_ptr<Leadership> leadership;
    if (config.leaderElection.leaderElect) {
        Result<std::unique_ptr<Leadership>> created = Leadership::create(
            config, *restConfig, &registry, events.newRecorder({HostEventComponent, {}}));
        if (!created)
            return failWith(created.error());
        leadership = std::move(*created);
        if (config.controllerShutdownTimeout > config.leaderElection.renewDeadline)
            qCWarning(lcHost).noquote()
                << QStringLiteral("controllerShutdownTimeout (%1) is longer than "
                                  "leaderElection.renewDeadline (%2): on shutdown, the leader's "
                                  "controllers may still drain after its term has ended")
                       .arg(formatDuration(config.controllerShutdownTimeout),
                           formatDuration(config.leaderElection.renewDeadline));
    }
    // Scale-out (docs/scale-out.md): the group of the controllers with shards: auto.
    std::unique_ptr<ScaleOut> scaleOut;
    if (!config.scaleOutGroup.isEmpty()) {
        if (!leadership)
            return failWith(Error {config.file, QStringLiteral("scaleOut.group"),
                QStringLiteral("needs leaderElection.leaderElect (the group's leader writes its "
                               "epochs)")});
        Result<std::unique_ptr<ScaleOut>> created
            = ScaleOut::create(config, *leadership, events.newRecorder({HostEventComponent, {}}));
        if (!created)
            return failWith(created.error());
        scaleOut = std::move(*created);
        registry.registerCollectable(std::make_shared<ScaleOutMetrics>(*scaleOut, plugins));
    }

    // Handlers choose their own resync period (ControllerContext::resyncPeriod()).
    cache::SharedInformerFactory informers(&restClient, Duration::zero());
    ControllerManager manager(config, plugins,
        {&restClient, &informers, &registry, nullptr, &events,
            scaleOut ? scaleOut->group() : nullptr});
    Reloader reloader(flags, plugins, manager); // SIGHUP and file changes (docs/host.md)

    Watchdog watchdog(config.stallTimeout, &registry);
    watchdog.start();
    const HostChecks checks(plugins, manager, leadership.get(), &watchdog);
    std::unique_ptr<DelegatedAuth> auth;
    std::unique_ptr<Server> server;
    if (config.securePort != 0) {
        Result<std::unique_ptr<DelegatedAuth>> created
            = DelegatedAuth::create(config.servingAuth, *restConfig);
        if (!created)
            return failWith(created.error());
        auth = std::move(*created);
        const QStringList secrets = secretsOf(*restConfig);
        server = std::make_unique<Server>(Server::Endpoints {
            {QStringLiteral("healthz"), [&checks] { return checks.healthz(); }},
            {QStringLiteral("livez"), [&checks] { return checks.livez(); }},
            {QStringLiteral("readyz"), [&checks] { return checks.readyz(); }},
            &registry,
            [&manager, secrets, quarantined] {
                return configzJson(manager.config(), secrets, quarantined);
            },
            [&manager, &plugins, &leadership, &scaleOut] {
                return statuszJson(manager.config(), plugins, leadership.get(), scaleOut.get());
            },
        });
        server->setDelegatedAuth(auth->authenticator(), auth->authorizer());
        if (const std::optional<Error> error
            = server->listen({config.bindAddress, quint16(config.securePort), config.tlsCertFile,
                config.tlsPrivateKeyFile, config.tlsMinVersion, config.tlsCipherSuites,
                config.certDir, config.insecurePlainHttp}))
            return failWith(*error);
    }

    // With releaseOnCancel, the lease is released once the controllers have stopped.
    const auto releaseAndExit = [&] {
        if (leadership && leadership->elector()->isRunning()) {
            QObject::connect(leadership->elector(), &leaderelection::LeaderElector::finished,
                &manager, [] { QCoreApplication::exit(0); });
            leadership->elector()->stop();
        } else {
            QCoreApplication::exit(0);
        }
    };
    QObject::connect(&signalWatcher, &SignalWatcher::shutdownRequested, &manager, [&] {
        reloader.shutdown(); // first: it may be stopping a controller
        manager.stopAll(); // unloading waits until the event loop has ended
        if (scaleOut) // no sharded reconcile runs any more: the others may take the keys now
            scaleOut->leave(releaseAndExit);
        else
            releaseAndExit();
    });
    // Controller scope: each controller's own term starts and stops it; a reload may change
    // which controllers are placed.
    if (sharding::ControllerScope *scope = scaleOut ? scaleOut->controllerScope() : nullptr) {
        const auto place = [scope, &manager] {
            if (const std::optional<Error> error
                = scope->setControllers(manager.placedControllers()))
                qCCritical(lcHost).noquote() << error->toString();
        };
        place();
        QObject::connect(scope, &sharding::ControllerScope::controllerStarted, &manager,
            [&manager](const QString &controller, const leaderelection::LeaderToken &term) {
                manager.startHeld(controller, term);
            });
        QObject::connect(scope, &sharding::ControllerScope::controllerStopped, &manager,
            [&manager](const QString &controller) { manager.stopHeld(controller); });
        QObject::connect(&reloader, &Reloader::finished, scope, place);
    }
    if (scaleOut)
        scaleOut->start();
    manager.start();
    QObject::connect(&signalWatcher, &SignalWatcher::reloadRequested, &reloader,
        [&reloader] { reloader.reload(QStringLiteral("SIGHUP")); });
    reloader.watch();
    if (leadership) {
        leaderelection::LeaderElector *elector = leadership->elector();
        QObject::connect(elector, &leaderelection::LeaderElector::startedLeading, &manager,
            [&manager](const leaderelection::LeaderToken &term) { manager.startLeading(term); });
        QObject::connect(elector, &leaderelection::LeaderElector::stoppedLeading, &manager,
            [&manager] { manager.stopLeading(); });
        QObject::connect(elector, &leaderelection::LeaderElector::newLeader, &manager,
            [](const QString &identity) {
                qCInfo(lcHost).noquote()
                    << QStringLiteral("the leader is now %1")
                           .arg(identity.isEmpty() ? QStringLiteral("nobody") : identity);
            });
        qCInfo(lcHost).noquote() << QStringLiteral("leader election as %1 on %2 %3/%4")
                                        .arg(leadership->identity(),
                                            config.leaderElection.resourceLock,
                                            config.leaderElection.resourceNamespace,
                                            config.leaderElection.resourceName);
        elector->run();
    }
    const int status = QCoreApplication::exec();
    reloader.shutdown();
    manager.shutdown();
    // A thread left running (a worker still in plugin code, an Event write still in the REST
    // client) forbids destroying what it uses: then leave without destroying anything.
    bool abandoned = !flushEvents(events, config.controllerShutdownTimeout);
    for (const auto &plugin : plugins.plugins())
        abandoned = abandoned || plugin->error().kind == PluginError::Kind::StopTimedOut;
    if (abandoned) {
        std::fflush(stdout);
        std::fflush(stderr);
        std::_Exit(status);
    }
    return status;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("qcm"));
    QCoreApplication::setApplicationVersion(QStringLiteral(QCM_VERSION_STRING));
    if (!qEnvironmentVariableIsSet("QT_MESSAGE_PATTERN"))
        qSetMessagePattern(QStringLiteral(
            "%{time yyyy-MM-ddThh:mm:ss.zzz} "
            "%{if-debug}D%{endif}%{if-info}I%{endif}%{if-warning}W%{endif}%{if-critical}E%{endif}"
            "%{if-fatal}F%{endif} %{category}: %{message}"));
    // Like kube-controller-manager at its default verbosity: no debug output unless asked for
    // (QT_LOGGING_RULES="qcm.*.debug=true").
    if (!qEnvironmentVariableIsSet("QT_LOGGING_RULES"))
        QLoggingCategory::setFilterRules(QStringLiteral("*.debug=false"));

    const Result<Options> options = parseOptions(QCoreApplication::arguments());
    if (!options) {
        std::fprintf(stderr, "qcm: %s\nRun qcm --help for the flags.\n",
            qPrintable(options.error().toString()));
        return 1;
    }
    switch (options->action) {
    case Options::Action::ShowHelp:
        std::fputs(qPrintable(helpText()), stdout);
        return 0;
    case Options::Action::ShowVersion:
        std::printf("qcm %s (plugin ABI %d)\n", QCM_VERSION_STRING, QCM_ABI_VERSION);
        return 0;
    case Options::Action::Run:
    case Options::Action::ListPlugins:
        break;
    }

    ControllerManagerConfig config;
    if (options->maxConfigBytes) { // the one limit the file cannot set: its own
        detail::InputLimits limits = detail::inputLimits();
        limits.configBytes = *options->maxConfigBytes;
        detail::setInputLimits(limits);
    }
    if (!options->configFile.isEmpty()) {
        Result<ControllerManagerConfig> loaded = loadConfig(options->configFile);
        if (!loaded)
            return failWith(loaded.error());
        config = *loaded;
    }
    options->applyTo(config);
    detail::setInputLimits(config.limits); // before the kubeconfig or any plugin is read

    PluginHost plugins;
    plugins.setTrust(config.pluginTrust);
    plugins.discover(config.pluginDirs);
    if (const std::optional<Error> error = plugins.select(config))
        return failWith(*error);
    // The controllers whose plugin code crashed qcm too often start quarantined
    // (watchdog/crashrecords.h); the others run.
    if (!config.stateDir.isEmpty()) {
        const QString records = CrashRecorder::recordsDir(config.stateDir);
        const QMap<QString, QString> quarantined
            = quarantinedControllers(readCrashRecords(records), config.quarantineCrashLimit,
                config.quarantineWindow, QDateTime::currentSecsSinceEpoch(), records);
        for (const auto &plugin : plugins.plugins())
            if (plugin->isEnabled() && plugin->state() == PluginState::Discovered
                && quarantined.contains(plugin->name()))
                plugin->quarantine(quarantined.value(plugin->name()));
    }

    if (options->action == Options::Action::ListPlugins) {
        // Loading the enabled plugins checks that every symbol they need resolves.
        for (const auto &plugin : plugins.plugins()) {
            if (plugin->isEnabled() && plugin->state() == PluginState::Discovered)
                plugin->load();
        }
        std::fputs(qPrintable(plugins.listing()), stdout);
        return 0;
    }
    return run(config, *options, plugins);
}
