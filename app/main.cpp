// qcm: the controller manager host. Reads its configuration and flags, finds the controller
// plugins, and runs the enabled ones against the API server until SIGTERM or SIGINT.
//
// Exit status: 0 after a clean run or shutdown, and for --help, --version, --list-plugins;
// 1 for a bad flag or configuration (nothing is started then) or a client that cannot be
// built; 1 on a second SIGTERM/SIGINT.
#include "clientconfig.h"
#include "config.h"
#include "controllermanager.h"
#include "logging.h"
#include "options.h"
#include "pluginhost.h"
#include "signalwatcher.h"

#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/client/restclient.h>
#include <qcm/metrics/registry.h>
#include <qcm/version.h>

#include <QtCore/QCoreApplication>
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

// Runs the enabled controllers until a shutdown signal.
int run(const ControllerManagerConfig &config, PluginHost &plugins)
{
    const Result<client::RestConfig> restConfig = buildClientConfig(config);
    if (!restConfig)
        return failWith(restConfig.error());
    qCInfo(lcHost).noquote() << QStringLiteral("API server %1 (%2)")
                                    .arg(restConfig->server.toString(), restConfig->source);

    SignalWatcher signalWatcher;
    client::RestClient restClient(*restConfig);
    metrics::Registry registry;
    // Handlers choose their own resync period (ControllerContext::resyncPeriod()).
    cache::SharedInformerFactory informers(&restClient, Duration::zero());
    ControllerManager manager(config, plugins, {&restClient, &informers, &registry, nullptr});

    QObject::connect(&signalWatcher, &SignalWatcher::shutdownRequested, &manager, [&] {
        manager.shutdown();
        QCoreApplication::exit(0);
    });
    manager.start();
    const int status = QCoreApplication::exec();
    manager.shutdown();
    for (const auto &plugin : plugins.plugins()) {
        if (plugin->error().kind == PluginError::Kind::StopTimedOut) {
            // Its workers may still run plugin code: leave without destroying anything.
            std::fflush(stdout);
            std::fflush(stderr);
            std::_Exit(status);
        }
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
    if (!options->configFile.isEmpty()) {
        Result<ControllerManagerConfig> loaded = loadConfig(options->configFile);
        if (!loaded)
            return failWith(loaded.error());
        config = *loaded;
    }
    options->applyTo(config);

    PluginHost plugins;
    plugins.discover(config.pluginDirs);
    if (const std::optional<Error> error = plugins.select(config))
        return failWith(*error);

    if (options->action == Options::Action::ListPlugins) {
        // Loading the enabled plugins checks that every symbol they need resolves.
        for (const auto &plugin : plugins.plugins()) {
            if (plugin->isEnabled() && plugin->state() == PluginState::Discovered)
                plugin->load();
        }
        std::fputs(qPrintable(plugins.listing()), stdout);
        return 0;
    }
    return run(config, plugins);
}
