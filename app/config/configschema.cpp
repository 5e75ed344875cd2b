// SPDX-License-Identifier: Apache-2.0
#include "config/configschema.h"

namespace qcm::host {

namespace {

ConfigField field(const char *path, const char *type, const char *dflt, const char *flag,
    bool reloadable, const char *description)
{
    return {QLatin1String(path), QString::fromUtf8(type), QString::fromUtf8(dflt),
        QLatin1String(flag), reloadable, QString::fromUtf8(description)};
}

QList<ConfigField> build()
{
    constexpr bool Yes = true;
    constexpr bool Restart = false;
    return {
        field("apiVersion", "string", "qcm.io/v1alpha1", "", Restart,
            "If present, must be qcm.io/v1alpha1."),
        field("kind", "string", "ControllerManagerConfiguration", "", Restart,
            "If present, must be ControllerManagerConfiguration."),
        field("kubeconfig", "path", "", "--kubeconfig", Restart,
            "A kubeconfig file; its current context is used. With neither kubeconfig nor "
            "master, qcm uses the in-cluster configuration."),
        field("master", "string", "", "--master", Restart,
            "The API server's URL; overrides the kubeconfig's server."),
        field("clientConnection", "map", "", "", Restart, "The connection to the API server."),
        field("clientConnection.qps", "number", "20", "--kube-api-qps", Restart,
            "Requests per second to the API server, every controller together (watches are "
            "not counted). 0: client-go's default, 5; negative: no limit."),
        field("clientConnection.burst", "integer >= 0", "30", "--kube-api-burst", Restart,
            "The burst above qps. 0: client-go's default, 10."),
        field("clientConnection.maxResponseBytes", "integer >= 1024", "1073741824", "", Restart,
            "The largest response body qcm reads from the API server; a larger one is "
            "abandoned as an error (ResponseTooLarge) naming this limit."),
        field("clientConnection.maxWatchEventBytes", "integer >= 1024", "67108864", "", Restart,
            "The largest single watch event; a larger one is reported as a malformed frame and "
            "skipped, and the watch goes on."),
        field("clientConnection.watchTransport", "string", "dedicated", "", Restart,
            "dedicated gives each watch an HTTP/1.1 connection of its own, read on the client's "
            "I/O thread (fewer thread wakes per event); shared multiplexes the watches onto the "
            "requests' HTTP/2 connection, as client-go does (fewer connections)."),
        field("pluginDirs", "list of paths", "<qcm's directory>/../lib/qcm/plugins", "--plugin-dir",
            Restart,
            "The directories whose *.so files are plugins (not recursive, in name order). "
            "Naming any replaces the default."),
        field("pluginTrust", "string", "strict", "--plugin-trust", Restart,
            "strict refuses a plugin whose file, or a directory above it, is owned by anyone but "
            "root or qcm's user or writable by others (as sshd's StrictModes); warn loads it "
            "with a warning, for development."),
        field("controllers", "list of strings", "[\"*\"]", "--controllers", Yes,
            "Which controllers run: * every controller on by default, name one on, -name one "
            "off; the first entry naming a controller decides."),
        field("leaderElection", "map", "", "", Restart, "Leader election."),
        field("leaderElection.leaderElect", "bool", "true", "--leader-elect", Restart,
            "Campaign for the lock; the controllers that need leader election run only on the "
            "leader."),
        field("leaderElection.leaseDuration", "duration", "15s", "--leader-elect-lease-duration",
            Restart,
            "How long a standby waits after the last renewal it saw before taking the lock."),
        field("leaderElection.renewDeadline", "duration", "10s", "--leader-elect-renew-deadline",
            Restart,
            "How long the leader keeps retrying a renewal before it stops leading; less than "
            "leaseDuration."),
        field("leaderElection.retryPeriod", "duration", "2s", "--leader-elect-retry-period",
            Restart, "The interval between tries."),
        field("leaderElection.resourceLock", "string", "leases", "--leader-elect-resource-lock",
            Restart, "leases, configmaps, endpoints, configmapsleases or endpointsleases."),
        field("leaderElection.resourceName", "string", "qcm", "--leader-elect-resource-name",
            Restart, "The lock object's name."),
        field("leaderElection.resourceNamespace", "string", "kube-system",
            "--leader-elect-resource-namespace", Restart, "The lock object's namespace."),
        field("leaderElection.releaseOnCancel", "bool", "true", "--leader-elect-release-on-cancel",
            Restart, "On SIGTERM or SIGINT, release the lease once the controllers have stopped."),
        field("leaderElection.mode", "string", "run-or-die", "--leader-elect-mode", Restart,
            "A leader that loses the lease: run-or-die exits with status 1; rejoin stops its "
            "controllers and campaigns again."),
        field("leaderElection.coordinated", "bool", "false", "", Restart,
            "Coordinated leader election (KEP-4355): register a LeaseCandidate and follow the "
            "holder the API server's election controller writes (in controller scope, for the "
            "controller Leases too); needs the leases lock and an API server with "
            "CoordinatedLeaderElection."),
        field("leaderElection.emulationVersion", "semver", "", "", Restart,
            "The candidate's emulation version, at most qcm's; empty: qcm's version. The "
            "API server elects the oldest."),
        field("leaderElection.scope", "string", "manager", "", Restart,
            "What a Lease elects: manager, one leader for every controller that needs one; "
            "controller, a Lease per such controller, the controllers spread across the "
            "replicas of scaleOut.group (docs/scale-out.md)."),
        field("scaleOut", "map", "", "", Restart,
            "Scale-out: replicas that share the keys of sharded controllers (docs/scale-out.md)."),
        field("scaleOut.group", "DNS label", "", "", Restart,
            "The group's name, at most 46 characters; every replica with the same group and "
            "leader-election namespace shares the work of the controllers with shards: auto. "
            "Needs leaderElection.leaderElect. Empty: no scale-out."),
        field("serving", "map", "", "", Restart,
            "The health, metrics, configz and statusz endpoints."),
        field("serving.bindAddress", "IP address", "0.0.0.0", "--bind-address", Restart,
            "Where /healthz, /livez, /readyz, /metrics, /configz and /statusz are served."),
        field("serving.securePort", "integer 0-65535", "10257", "--secure-port", Restart,
            "The port; 0 serves nothing."),
        field("serving.tlsCertFile", "path", "", "--tls-cert-file", Restart,
            "PEM certificate (chain) served, with tlsPrivateKeyFile; without both, a "
            "self-signed pair (certDir)."),
        field("serving.tlsPrivateKeyFile", "path", "", "--tls-private-key-file", Restart,
            "PEM private key matching tlsCertFile."),
        field("serving.tlsMinVersion", "string", "VersionTLS12", "--tls-min-version", Restart,
            "The lowest TLS version served: VersionTLS12 or VersionTLS13."),
        field("serving.tlsCipherSuites", "list of strings", "", "--tls-cipher-suites", Restart,
            "The TLS 1.2 cipher suites served, by their IANA names (as Go's crypto/tls names "
            "them); TLS 1.3's are always on. Empty: the TLS library's defaults."),
        field("serving.certDir", "path", "", "--cert-dir", Restart,
            "Without tlsCertFile: where the self-signed pair is kept (qcm.crt, qcm.key), made on "
            "the first start. Empty: a new pair in memory at each start."),
        field("serving.insecurePlainHttp", "bool", "false", "--insecure-plain-http", Restart,
            "Serve plain HTTP, without TLS, with a warning at start; for development only."),
        field("serving.authentication", "map", "", "", Restart,
            "Who a request is: a client certificate, or a bearer token reviewed by the API "
            "server (TokenReview)."),
        field("serving.authentication.clientCAFile", "path", "", "--client-ca-file", Restart,
            "PEM CA bundle that client certificates must chain to. Empty: the client-ca-file of "
            "kube-system/extension-apiserver-authentication, unless skipLookup."),
        field("serving.authentication.skipLookup", "bool", "false", "--authentication-skip-lookup",
            Restart,
            "Do not read the client CA from kube-system/extension-apiserver-authentication."),
        field("serving.authentication.tokenCacheTTL", "duration", "10s",
            "--authentication-token-webhook-cache-ttl", Restart,
            "How long a TokenReview's answer is cached."),
        field("serving.authorization", "map", "", "", Restart,
            "What a request may do: a SubjectAccessReview for its path and verb."),
        field("serving.authorization.alwaysAllowPaths", "list of strings",
            "[\"/healthz\", \"/readyz\", \"/livez\"]", "--authorization-always-allow-paths",
            Restart,
            "Paths served to anyone, without credentials; a trailing * makes a prefix, any other "
            "entry is the exact path."),
        field("serving.authorization.allowCacheTTL", "duration", "10s",
            "--authorization-webhook-cache-authorized-ttl", Restart,
            "How long an allowed SubjectAccessReview is cached."),
        field("serving.authorization.denyCacheTTL", "duration", "10s",
            "--authorization-webhook-cache-unauthorized-ttl", Restart,
            "How long a denied SubjectAccessReview is cached."),
        field("limits", "map", "", "", Restart,
            "How much qcm holds of a file or document from outside it; exceeding a limit is an "
            "error naming it."),
        field("limits.kubeconfigBytes", "integer >= 1024", "16777216", "", Restart,
            "A kubeconfig, each file it names, and the in-cluster CA."),
        field("limits.tokenFileBytes", "integer >= 64", "1048576", "", Restart,
            "A bearer token file (the kubeconfig's tokenFile, the in-cluster token)."),
        field("limits.certificateBytes", "integer >= 1024", "16777216", "", Restart,
            "The serving certificate and key, and the client CA bundle."),
        field("limits.execCredentialBytes", "integer >= 1024", "1048576", "", Restart,
            "The output of an exec credential plugin."),
        field("limits.pluginMetadataBytes", "integer >= 1024", "65536", "", Restart,
            "A plugin's metadata, as compact JSON."),
        field("limits.jsonDepth", "integer 16-100000", "512", "", Restart,
            "Nesting in any JSON document from the API server."),
        field("stateDir", "path", "", "--state-dir", Restart,
            "Where qcm keeps its crash records (a controller's plugin that crashed the process), "
            "for quarantine. Empty: none are kept."),
        field("watchdog", "map", "", "", Restart, "The plugin watchdog and crash-loop quarantine."),
        field("watchdog.stallTimeout", "duration", "60s", "--watchdog-stall-timeout", Restart,
            "A handler, reconcile or factory running longer is a stall: logged, "
            "qcm_controller_stalled, /healthz/<controller>; the event loop blocked longer fails "
            "/livez. 0s: not watched."),
        field("watchdog.quarantineCrashLimit", "integer 0-1000", "3", "--quarantine-crash-limit",
            Restart,
            "A controller whose plugin code crashed qcm this many times within "
            "quarantineWindow starts quarantined (needs stateDir). 0: never."),
        field("watchdog.quarantineWindow", "duration", "10m", "--quarantine-window", Restart,
            "The window of quarantineCrashLimit."),
        field("controllerShutdownTimeout", "duration", "10s", "--controller-shutdown-timeout", Yes,
            "On SIGTERM or SIGINT, how long the controllers get to drain their queues, in "
            "total."),
        field("minResyncPeriod", "duration", "12h", "--min-resync-period", Yes,
            "A controller without its own resyncPeriod resyncs at a random period in "
            "[minResyncPeriod, 2 x minResyncPeriod)."),
        field("controllerConfig", "map", "", "", Yes, "Per controller settings, by name."),
        field("controllerConfig.<name>", "map", "", "", Yes,
            "One controller's entry, by its name (a DNS-1123 label a plugin provides); an "
            "empty entry is allowed."),
        field("controllerConfig.<name>.workers", "integer 1-1000", "1", "", Yes,
            "How many keys the controller reconciles at once."),
        field("controllerConfig.<name>.shards", "string", "none", "", Yes,
            "auto: the controller runs on every replica of scaleOut.group, and each reconciles "
            "the keys that hash to it, whatever the plugin's needsLeaderElection; none: it runs "
            "as its plugin's metadata says. Changing it restarts the controller."),
        field("controllerConfig.<name>.resyncPeriod", "duration", "minResyncPeriod", "", Yes,
            "How often its handlers get every cached object again; 0s: never."),
        field("controllerConfig.<name>.settings", "map", "", "", Yes,
            "Free-form, handed to the plugin; what it reads is in the plugin's documentation."),
    };
}

} // namespace

const QList<ConfigField> &configSchema()
{
    static const QList<ConfigField> schema = build();
    return schema;
}

QStringList configFieldsUnder(const QString &parent)
{
    const QString prefix = parent.isEmpty() ? QString() : parent + QLatin1Char('.');
    QStringList names;
    for (const ConfigField &f : configSchema()) {
        if (!f.path.startsWith(prefix))
            continue;
        const QString rest = f.path.mid(prefix.size());
        if (!rest.contains(QLatin1Char('.')))
            names << rest;
    }
    return names;
}

} // namespace qcm::host
