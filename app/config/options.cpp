// SPDX-License-Identifier: Apache-2.0
#include "config/options.h"

#include "auth/delegatingauthorizer.h"
#include "config/duration.h"
#include "config/scalars.h"
#include "plugins/installdirs.h"
#include "serving/tlsoptions.h"

#include <QtCore/QCommandLineParser>

#include <limits>

namespace qcm::host {

namespace {

// qcm's own flags, in --help order.
QList<FlagHelp> flags()
{
    const ControllerManagerConfig d; // the defaults, shown in the help
    const LeaderElectionConfig &le = d.leaderElection;
    auto dflt = [](const QString &value) { return QStringLiteral(" (default %1)").arg(value); };
    return {
        {{QStringLiteral("config")}, QStringLiteral("file"),
            QStringLiteral("The configuration file (controller-manager.yaml; every field is "
                           "described in docs/host.md). Flags override its values.")},
        {{QStringLiteral("kubeconfig")}, QStringLiteral("path"),
            QStringLiteral("Path to kubeconfig file with authorization and master location "
                           "information (the master location can be overridden by the master "
                           "flag). With neither --kubeconfig nor --master, qcm uses the "
                           "in-cluster configuration.")},
        {{QStringLiteral("master")}, QStringLiteral("url"),
            QStringLiteral("The address of the Kubernetes API server (overrides any value in "
                           "kubeconfig).")},
        {{QStringLiteral("controllers")}, QStringLiteral("names"),
            QStringLiteral("A list of controllers to enable. '*' enables all on-by-default "
                           "controllers, 'foo' enables the controller named 'foo', '-foo' "
                           "disables the controller named 'foo'. The controllers are the "
                           "plugins found in the plugin directories (see --list-plugins).")
                + dflt(QStringLiteral("*"))},
        {{QStringLiteral("plugin-dir")}, QStringLiteral("dirs"),
            QStringLiteral("Directories to load controller plugins (.so files) from, "
                           "comma-separated or repeated. Replaces pluginDirs of the "
                           "configuration file.")
                + dflt(defaultPluginDirDescription())},
        {{QStringLiteral("plugin-trust")}, QStringLiteral("mode"),
            QStringLiteral("strict refuses a plugin whose file, or a directory above it, is "
                           "owned by anyone but root or qcm's user, or writable by others, as "
                           "sshd's StrictModes does: whoever can write a plugin runs code with "
                           "qcm's credentials. warn loads it with a warning, for development.")
                + dflt(pluginTrustName(d.pluginTrust))},
        {{QStringLiteral("list-plugins")}, {},
            QStringLiteral("Print every plugin found (name, version, file, state, enabled, "
                           "error) and exit. Loads the enabled plugins' libraries to check "
                           "them, but creates no controller.")},
        {{QStringLiteral("leader-elect")}, QStringLiteral("bool"),
            QStringLiteral("Start a leader election client and gain leadership before executing "
                           "the main loop. Enable this when running replicated components for "
                           "high availability.")
                + dflt(QStringLiteral("true"))},
        {{QStringLiteral("leader-elect-lease-duration")}, QStringLiteral("duration"),
            QStringLiteral("The duration that non-leader candidates will wait after observing a "
                           "leadership renewal until attempting to acquire leadership of a led "
                           "but unrenewed leader slot.")
                + dflt(formatDuration(le.leaseDuration))},
        {{QStringLiteral("leader-elect-renew-deadline")}, QStringLiteral("duration"),
            QStringLiteral("The interval between attempts by the acting master to renew a "
                           "leadership slot before it stops leading. This must be less than the "
                           "lease duration.")
                + dflt(formatDuration(le.renewDeadline))},
        {{QStringLiteral("leader-elect-retry-period")}, QStringLiteral("duration"),
            QStringLiteral("The duration the clients should wait between attempting acquisition "
                           "and renewal of a leadership.")
                + dflt(formatDuration(le.retryPeriod))},
        {{QStringLiteral("leader-elect-resource-lock")}, QStringLiteral("type"),
            QStringLiteral("The type of resource object that is used for locking during leader "
                           "election.")
                + dflt(le.resourceLock)},
        {{QStringLiteral("leader-elect-resource-name")}, QStringLiteral("name"),
            QStringLiteral("The name of resource object that is used for locking during leader "
                           "election.")
                + dflt(le.resourceName)},
        {{QStringLiteral("leader-elect-resource-namespace")}, QStringLiteral("namespace"),
            QStringLiteral("The namespace of resource object that is used for locking during "
                           "leader election.")
                + dflt(le.resourceNamespace)},
        {{QStringLiteral("leader-elect-release-on-cancel")}, QStringLiteral("bool"),
            QStringLiteral("On SIGTERM or SIGINT, release the lease once the leader's "
                           "controllers have stopped, so that a standby takes over at once "
                           "instead of after the lease duration. kube-controller-manager never "
                           "releases.")
                + dflt(le.releaseOnCancel ? QStringLiteral("true") : QStringLiteral("false"))},
        {{QStringLiteral("leader-elect-mode")}, QStringLiteral("mode"),
            QStringLiteral("What a leader does when it loses the lease: run-or-die exits with "
                           "status 1 (kube-controller-manager's behaviour); rejoin stops the "
                           "controllers that need leader election and campaigns again.")
                + dflt(leaderElectionModeName(le.mode))},
        {{QStringLiteral("kube-api-qps")}, QStringLiteral("qps"),
            QStringLiteral("QPS to use while talking with kubernetes apiserver (0: client-go's "
                           "default of 5; negative: no limit).")
                + dflt(QString::number(d.kubeApiQps))},
        {{QStringLiteral("kube-api-burst")}, QStringLiteral("burst"),
            QStringLiteral("Burst to use while talking with kubernetes apiserver (0: client-go's "
                           "default of 10).")
                + dflt(QString::number(d.kubeApiBurst))},
        {{QStringLiteral("bind-address")}, QStringLiteral("ip"),
            QStringLiteral("The IP address on which to listen for the --secure-port port.")
                + dflt(d.bindAddress)},
        {{QStringLiteral("secure-port"), QStringLiteral("port")}, QStringLiteral("port"),
            QStringLiteral("The port on which to serve HTTPS with authentication and "
                           "authorization: /healthz, /readyz, /livez, /metrics, /configz and "
                           "/statusz. 0 serves nothing. --port is the same setting.")
                + dflt(QString::number(d.securePort))},
        {{QStringLiteral("tls-cert-file")}, QStringLiteral("file"),
            QStringLiteral("File containing the x509 certificate for HTTPS (the server's "
                           "certificate first, then any intermediates). If HTTPS serving is "
                           "enabled, and --tls-cert-file and --tls-private-key-file are not "
                           "provided, a self-signed certificate and key are generated for "
                           "localhost and the host name, and saved to the directory specified "
                           "by --cert-dir.")},
        {{QStringLiteral("tls-private-key-file")}, QStringLiteral("file"),
            QStringLiteral("File containing the x509 private key matching --tls-cert-file.")},
        {{QStringLiteral("tls-min-version")}, QStringLiteral("version"),
            QStringLiteral("Minimum TLS version supported. Possible values: VersionTLS12, "
                           "VersionTLS13.")
                + dflt(QStringLiteral("VersionTLS12"))},
        {{QStringLiteral("tls-cipher-suites")}, QStringLiteral("suites"),
            QStringLiteral("Comma-separated list of cipher suites for the server, by their IANA "
                           "names (TLS 1.2; TLS 1.3's are always on). If omitted, the TLS "
                           "library's defaults are used. Possible values: ")
                + supportedCipherSuiteNames().join(QStringLiteral(", ")) + QLatin1Char('.')},
        {{QStringLiteral("cert-dir")}, QStringLiteral("dir"),
            QStringLiteral("The directory where the TLS certs are located. If --tls-cert-file "
                           "and --tls-private-key-file are provided, this flag will be ignored. "
                           "Empty: the self-signed certificate is held in memory, new at each "
                           "start.")},
        {{QStringLiteral("insecure-plain-http")}, QStringLiteral("bool"),
            QStringLiteral("Serve plain HTTP instead of HTTPS, with a warning at start: "
                           "credentials and responses cross the network in clear. For "
                           "development only.")
                + dflt(QStringLiteral("false"))},
        {{QStringLiteral("client-ca-file")}, QStringLiteral("file"),
            QStringLiteral("If set, any request presenting a client certificate signed by one of "
                           "the authorities in the client-ca-file is authenticated with an "
                           "identity corresponding to the CommonName of the client "
                           "certificate. Unset: the client CA of "
                           "kube-system/extension-apiserver-authentication, unless "
                           "--authentication-skip-lookup.")},
        {{QStringLiteral("authentication-skip-lookup")}, QStringLiteral("bool"),
            QStringLiteral("If false, the API server is asked for the client CA that "
                           "--client-ca-file leaves unset.")
                + dflt(QStringLiteral("false"))},
        {{QStringLiteral("authentication-token-webhook-cache-ttl")}, QStringLiteral("duration"),
            QStringLiteral("The duration to cache responses from the webhook token "
                           "authenticator.")
                + dflt(formatDuration(d.servingAuth.tokenCacheTtl))},
        {{QStringLiteral("authorization-always-allow-paths")}, QStringLiteral("paths"),
            QStringLiteral("A list of HTTP paths to skip during authorization, i.e. these are "
                           "authorized without contacting the 'core' kubernetes server; qcm "
                           "serves them without authentication too.")
                + dflt(d.servingAuth.alwaysAllowPaths.join(QLatin1Char(',')))},
        {{QStringLiteral("authorization-webhook-cache-authorized-ttl")}, QStringLiteral("duration"),
            QStringLiteral("The duration to cache 'authorized' responses from the webhook "
                           "authorizer.")
                + dflt(formatDuration(d.servingAuth.allowCacheTtl))},
        {{QStringLiteral("authorization-webhook-cache-unauthorized-ttl")},
            QStringLiteral("duration"),
            QStringLiteral("The duration to cache 'unauthorized' responses from the webhook "
                           "authorizer.")
                + dflt(formatDuration(d.servingAuth.denyCacheTtl))},
        {{QStringLiteral("max-config-bytes")}, QStringLiteral("bytes"),
            QStringLiteral("The largest configuration file (--config) qcm reads; the other "
                           "limits are controller-manager.yaml's limits section.")
                + dflt(QString::number(d.limits.configBytes))},
        {{QStringLiteral("state-dir")}, QStringLiteral("dir"),
            QStringLiteral("The directory where qcm keeps its crash records: which controller's "
                           "plugin code was running when the process died of a fatal signal. "
                           "Empty: none are kept, and nothing is quarantined.")},
        {{QStringLiteral("watchdog-stall-timeout")}, QStringLiteral("duration"),
            QStringLiteral("How long a controller's handler, reconcile or factory, or the event "
                           "loop, may make no progress before the watchdog reports it. 0s: no "
                           "watchdog.")
                + dflt(formatDuration(d.stallTimeout))},
        {{QStringLiteral("quarantine-crash-limit")}, QStringLiteral("n"),
            QStringLiteral("A controller that crashed qcm this many times within "
                           "--quarantine-window starts quarantined (not run) until its crash "
                           "records are removed or the limit is raised. 0: no quarantine.")
                + dflt(QString::number(d.quarantineCrashLimit))},
        {{QStringLiteral("quarantine-window")}, QStringLiteral("duration"),
            QStringLiteral("The window in which --quarantine-crash-limit crashes quarantine a "
                           "controller.")
                + dflt(formatDuration(d.quarantineWindow))},
        {{QStringLiteral("controller-shutdown-timeout")}, QStringLiteral("duration"),
            QStringLiteral("How long to wait, on SIGTERM or SIGINT, for the controllers to "
                           "finish the work in their queues before exiting.")
                + dflt(formatDuration(d.controllerShutdownTimeout))},
        {{QStringLiteral("min-resync-period")}, QStringLiteral("duration"),
            QStringLiteral("The resync period of a controller without its own resyncPeriod is "
                           "random between MinResyncPeriod and 2*MinResyncPeriod.")
                + dflt(formatDuration(d.minResyncPeriod))},
    };
}

void addOptions(QCommandLineParser &parser)
{
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser.setApplicationDescription(
        QStringLiteral("qcm, a Kubernetes controller manager that runs controller plugins."));
    parser.addHelpOption();
    parser.addVersionOption();
    for (const FlagHelp &flag : flags())
        parser.addOption(QCommandLineOption(flag.names, flag.description, flag.valueName));
}

QStringList splitList(const QStringList &values)
{
    QStringList out;
    for (const QString &v : values)
        for (const QString &part : v.split(QLatin1Char(','), Qt::SkipEmptyParts))
            out << part.trimmed();
    return out;
}

// pflag lets a bool flag stand alone (--leader-elect) or take =true/=false, and never takes
// the next argument as its value. QCommandLineParser's valued options would; give it the =.
QStringList normaliseBoolFlags(const QStringList &arguments)
{
    QStringList out;
    for (const QString &a : arguments) {
        if (a == QLatin1String("--leader-elect") || a == QLatin1String("-leader-elect")
            || a == QLatin1String("--leader-elect-release-on-cancel")
            || a == QLatin1String("-leader-elect-release-on-cancel")
            || a == QLatin1String("--insecure-plain-http")
            || a == QLatin1String("-insecure-plain-http")
            || a == QLatin1String("--authentication-skip-lookup")
            || a == QLatin1String("-authentication-skip-lookup"))
            out << a + QStringLiteral("=true");
        else
            out << a;
    }
    return out;
}

} // namespace

QList<FlagHelp> flagTable()
{
    // QCommandLineParser's own two, as --help prints them.
    QList<FlagHelp> table {
        {{QStringLiteral("h"), QStringLiteral("help")}, {},
            QStringLiteral("Displays help on commandline options.")},
        {{QStringLiteral("help-all")}, {},
            QStringLiteral("Displays help including Qt specific options.")},
        {{QStringLiteral("v"), QStringLiteral("version")}, {},
            QStringLiteral("Displays version information.")},
    };
    table += flags();
    return table;
}

QString helpText()
{
    // One flag per line and its description below, wrapped at word boundaries, as pflag lays
    // out kube-controller-manager's: QCommandLineParser's two columns leave too little room
    // beside flags as long as --authorization-webhook-cache-unauthorized-ttl.
    constexpr int Width = 80;
    const QString indent(6, QLatin1Char(' '));
    QString out = QStringLiteral("Usage: qcm [options]\n"
                                 "qcm, a Kubernetes controller manager that runs controller "
                                 "plugins.\n\nOptions:\n");
    for (const FlagHelp &flag : flagTable()) {
        QStringList names;
        for (const QString &n : flag.names)
            names << (n.size() == 1 ? QStringLiteral("-") : QStringLiteral("--")) + n;
        out += QStringLiteral("  ") + names.join(QStringLiteral(", "));
        if (!flag.valueName.isEmpty())
            out += QStringLiteral(" <%1>").arg(flag.valueName);
        out += QLatin1Char('\n');
        QString line = indent;
        for (const QString &word : flag.description.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            if (line.size() > indent.size() && line.size() + 1 + word.size() > Width) {
                out += line + QLatin1Char('\n');
                line = indent;
            }
            if (line.size() > indent.size())
                line += QLatin1Char(' ');
            line += word;
        }
        out += line + QLatin1Char('\n');
    }
    return out;
}

Result<Options> parseOptions(const QStringList &arguments)
{
    QCommandLineParser parser;
    addOptions(parser);
    if (!parser.parse(normaliseBoolFlags(arguments)))
        return Error {{}, {}, parser.errorText()};
    if (!parser.positionalArguments().isEmpty())
        return Error {{}, {},
            QStringLiteral("unexpected arguments: %1")
                .arg(parser.positionalArguments().join(QLatin1Char(' ')))};

    Options o;
    if (parser.isSet(QStringLiteral("help")))
        o.action = Options::Action::ShowHelp;
    else if (parser.isSet(QStringLiteral("version")))
        o.action = Options::Action::ShowVersion;
    else if (parser.isSet(QStringLiteral("list-plugins")))
        o.action = Options::Action::ListPlugins;

    std::optional<Error> error;
    auto value = [&](const char *name) -> std::optional<QString> {
        const QString n = QLatin1String(name);
        if (!parser.isSet(n))
            return std::nullopt;
        return parser.values(n).constLast(); // the last one wins, as in pflag
    };
    auto fail = [&](const char *name, const QString &reason) {
        if (!error)
            error = Error {{}, QStringLiteral("--") + QLatin1String(name), reason};
    };
    // The flag's value parsed by `parse` (scalars.h); nothing if unset or bad.
    auto parsed = [&](const char *name, auto &&parse) {
        using T = std::decay_t<decltype(*parse(QString()))>;
        std::optional<T> out;
        if (const auto v = value(name)) {
            auto r = parse(*v);
            if (r)
                out = *r;
            else
                fail(name, r.error().reason);
        }
        return out;
    };
    auto duration = [&](const char *name) { return parsed(name, parseNonNegativeDuration); };
    auto integer = [&](const char *name, qint64 min, qint64 max) -> std::optional<int> {
        const auto v = parsed(name, [&](const QString &s) { return parseInteger(s, min, max); });
        return v ? std::optional<int>(int(*v)) : std::nullopt;
    };

    o.configFile = value("config").value_or(QString());
    o.kubeconfig = value("kubeconfig");
    o.master = value("master");
    if (parser.isSet(QStringLiteral("controllers")))
        o.controllers = splitList(parser.values(QStringLiteral("controllers")));
    if (parser.isSet(QStringLiteral("plugin-dir")))
        o.pluginDirs = splitList(parser.values(QStringLiteral("plugin-dir")));
    o.pluginTrust = parsed("plugin-trust", parsePluginTrust);
    o.leaderElect = parsed("leader-elect", parseBool);
    o.leaseDuration = duration("leader-elect-lease-duration");
    o.renewDeadline = duration("leader-elect-renew-deadline");
    o.retryPeriod = duration("leader-elect-retry-period");
    o.resourceLock = value("leader-elect-resource-lock");
    o.resourceName = value("leader-elect-resource-name");
    o.resourceNamespace = value("leader-elect-resource-namespace");
    o.releaseOnCancel = parsed("leader-elect-release-on-cancel", parseBool);
    o.leaderElectionMode = parsed("leader-elect-mode", parseLeaderElectionMode);
    o.kubeApiQps = parsed("kube-api-qps", parseNumber);
    o.kubeApiBurst = integer("kube-api-burst", 0, std::numeric_limits<int>::max());
    o.bindAddress = value("bind-address");
    o.securePort = integer("secure-port", 0, 65535);
    o.tlsCertFile = value("tls-cert-file");
    o.tlsPrivateKeyFile = value("tls-private-key-file");
    o.tlsMinVersion = value("tls-min-version");
    if (parser.isSet(QStringLiteral("tls-cipher-suites")))
        o.tlsCipherSuites = splitList(parser.values(QStringLiteral("tls-cipher-suites")));
    if (!error) {
        if (const std::optional<Error> e = checkTlsSettings(
                o.tlsMinVersion.value_or(QString()), o.tlsCipherSuites.value_or(QStringList())))
            error = *e; // names the flag
    }
    o.certDir = value("cert-dir");
    o.insecurePlainHttp = parsed("insecure-plain-http", parseBool);
    o.clientCAFile = value("client-ca-file");
    o.authenticationSkipLookup = parsed("authentication-skip-lookup", parseBool);
    o.authenticationTokenWebhookCacheTtl = duration("authentication-token-webhook-cache-ttl");
    if (parser.isSet(QStringLiteral("authorization-always-allow-paths"))) {
        o.authorizationAlwaysAllowPaths
            = splitList(parser.values(QStringLiteral("authorization-always-allow-paths")));
        if (const std::optional<Error> e
            = DelegatingAuthorizer::checkAlwaysAllowPaths(*o.authorizationAlwaysAllowPaths);
            e && !error)
            error = *e;
    }
    o.authorizationWebhookCacheAuthorizedTtl
        = duration("authorization-webhook-cache-authorized-ttl");
    o.authorizationWebhookCacheUnauthorizedTtl
        = duration("authorization-webhook-cache-unauthorized-ttl");
    if (const auto v = parsed("max-config-bytes",
            [](const QString &s) { return parseInteger(s, 1024, qint64(1) << 40); }))
        o.maxConfigBytes = *v;
    o.stateDir = value("state-dir");
    o.stallTimeout = duration("watchdog-stall-timeout");
    o.quarantineCrashLimit = integer("quarantine-crash-limit", 0, 1000);
    o.quarantineWindow = duration("quarantine-window");
    o.controllerShutdownTimeout = duration("controller-shutdown-timeout");
    o.minResyncPeriod = duration("min-resync-period");
    if (error)
        return *error;
    return o;
}

void Options::applyTo(ControllerManagerConfig &config) const
{
    auto set = [](auto &field, const auto &flag) {
        if (flag)
            field = *flag;
    };
    set(config.kubeconfig, kubeconfig);
    set(config.master, master);
    if (controllers) {
        config.controllers = *controllers;
        config.controllersOrigin = Origin {{}, QStringLiteral("--controllers"), {}};
    }
    set(config.pluginDirs, pluginDirs);
    set(config.pluginTrust, pluginTrust);
    applyDefaultPluginDir(config); // neither the flag nor the file named one
    set(config.leaderElection.leaderElect, leaderElect);
    set(config.leaderElection.leaseDuration, leaseDuration);
    set(config.leaderElection.renewDeadline, renewDeadline);
    set(config.leaderElection.retryPeriod, retryPeriod);
    set(config.leaderElection.resourceLock, resourceLock);
    set(config.leaderElection.resourceName, resourceName);
    set(config.leaderElection.resourceNamespace, resourceNamespace);
    set(config.leaderElection.releaseOnCancel, releaseOnCancel);
    set(config.leaderElection.mode, leaderElectionMode);
    set(config.kubeApiQps, kubeApiQps);
    set(config.kubeApiBurst, kubeApiBurst);
    set(config.bindAddress, bindAddress);
    set(config.securePort, securePort);
    set(config.tlsCertFile, tlsCertFile);
    set(config.tlsPrivateKeyFile, tlsPrivateKeyFile);
    set(config.tlsMinVersion, tlsMinVersion);
    set(config.tlsCipherSuites, tlsCipherSuites);
    set(config.certDir, certDir);
    set(config.insecurePlainHttp, insecurePlainHttp);
    set(config.servingAuth.clientCAFile, clientCAFile);
    set(config.servingAuth.skipLookup, authenticationSkipLookup);
    set(config.servingAuth.tokenCacheTtl, authenticationTokenWebhookCacheTtl);
    set(config.servingAuth.alwaysAllowPaths, authorizationAlwaysAllowPaths);
    set(config.servingAuth.allowCacheTtl, authorizationWebhookCacheAuthorizedTtl);
    set(config.servingAuth.denyCacheTtl, authorizationWebhookCacheUnauthorizedTtl);
    set(config.limits.configBytes, maxConfigBytes);
    set(config.stateDir, stateDir);
    set(config.stallTimeout, stallTimeout);
    set(config.quarantineCrashLimit, quarantineCrashLimit);
    set(config.quarantineWindow, quarantineWindow);
    set(config.controllerShutdownTimeout, controllerShutdownTimeout);
    set(config.minResyncPeriod, minResyncPeriod);
}

} // namespace qcm::host
