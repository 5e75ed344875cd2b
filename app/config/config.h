// SPDX-License-Identifier: Apache-2.0
// ControllerManagerConfig: what qcm runs with, read from controller-manager.yaml and then
// overridden by command-line flags (options.h).
//
// The file is parsed strictly: malformed YAML, an unknown or repeated field, a value of the
// wrong type, a bad duration or number is an Error naming the file, the field and the
// reason with its line and column, and nothing starts on a half-read configuration. The
// fields, their defaults and the kube-controller-manager flags they mirror are documented in
// docs/host.md.
//
// Thread safety: plain values.
#pragma once

#include "plugins/plugintrust.h"

#include <qcm/client/restconfig.h>
#include <qcm/clock.h>
#include <qcm/detail/inputlimits.h>
#include <qcm/result.h>

#include <QtCore/QMap>
#include <QtCore/QStringList>
#include <QtCore/QVariantMap>

#include <optional>

namespace qcm::host {

using namespace std::chrono_literals;

// Where a value came from, for messages: a flag ("--controllers") or a file position.
struct Origin
{
    QString file; // empty for a flag
    QString field; // "controllers", "controllerConfig.foo", "--controllers"
    QString position; // " (line 3, column 14)", or empty

    Error error(const QString &reason) const { return Error {file, field, reason + position}; }
};

// What a replica does when it loses leadership without being asked to stop.
enum class LeaderElectionMode {
    RunOrDie, // "run-or-die": exit with status 1, as kube-controller-manager does
    Rejoin, // "rejoin": stop the leader's controllers and campaign again
};
// "run-or-die" or "rejoin"; anything else is an error naming both.
Result<LeaderElectionMode> parseLeaderElectionMode(const QString &text);
QString leaderElectionModeName(LeaderElectionMode mode);

// What one Lease elects (docs/scale-out.md, "Whole controllers").
enum class LeaderElectionScope {
    Manager, // "manager": one Lease, whose holder runs every controller that needs a leader
    Controller, // "controller": a Lease per such controller, spread across scaleOut.group
};
// "manager" or "controller"; anything else is an error naming both.
Result<LeaderElectionScope> parseLeaderElectionScope(const QString &text);
QString leaderElectionScopeName(LeaderElectionScope scope);

// component-base's LeaderElectionConfiguration, with kube-controller-manager's defaults, plus
// releaseOnCancel and mode (docs/host.md says why they exist and why these defaults).
struct LeaderElectionConfig
{
    bool leaderElect = true;
    Duration leaseDuration = 15s;
    Duration renewDeadline = 10s;
    Duration retryPeriod = 2s;
    QString resourceLock = QStringLiteral("leases");
    QString resourceName = QStringLiteral("qcm");
    QString resourceNamespace = QStringLiteral("kube-system");
    bool releaseOnCancel = true;
    LeaderElectionMode mode = LeaderElectionMode::RunOrDie;
    // Coordinated leader election (KEP-4355, docs/host.md): a LeaseCandidate for the lock's
    // Lease, and an elector that follows the holder the API server's election controller
    // writes. kube-controller-manager's feature gate CoordinatedLeaderElection.
    bool coordinated = false;
    QString emulationVersion; // the candidate's; empty: qcm's own version
    LeaderElectionScope scope = LeaderElectionScope::Manager; // controller: needs scaleOut.group
};

// The delegated authentication and authorization of the endpoint (auth/, docs/security.md),
// with kube-controller-manager's flags and defaults.
struct ServingAuthConfig
{
    QString clientCAFile; // --client-ca-file; empty: the cluster's, unless skipLookup
    bool skipLookup = false; // --authentication-skip-lookup
    Duration tokenCacheTtl = 10s; // --authentication-token-webhook-cache-ttl
    QStringList alwaysAllowPaths {QStringLiteral("/healthz"), QStringLiteral("/readyz"),
        QStringLiteral("/livez")}; // --authorization-always-allow-paths
    Duration allowCacheTtl = 10s; // --authorization-webhook-cache-authorized-ttl
    Duration denyCacheTtl = 10s; // --authorization-webhook-cache-unauthorized-ttl
};

// How a controller's keys are spread across the replicas (docs/scale-out.md).
enum class ShardMode {
    None, // "none": it runs where its plugin's metadata says (the leader, or every replica)
    Auto, // "auto": on every replica of scaleOut.group, each reconciling the keys it owns
};
// "none" or "auto"; anything else is an error naming both.
Result<ShardMode> parseShardMode(const QString &text);
QString shardModeName(ShardMode mode);
// A scale-out group's name, as sharding::Membership::isValidGroup() says; empty: none.
Result<QString> parseScaleOutGroup(const QString &text);

// One controller's entry under controllerConfig.
struct ControllerConfig
{
    std::optional<int> workers; // default 1
    ShardMode shards = ShardMode::None;
    std::optional<Duration> resyncPeriod; // default: random in [minResyncPeriod, 2x)
    QVariantMap settings; // handed to the plugin as is
    Origin origin;
};

struct ControllerManagerConfig
{
    QString file; // the file it was read from; empty when there is none
    QString kubeconfig;
    QString master;
    double kubeApiQps = 20; // kube-controller-manager's defaults
    int kubeApiBurst = 30;
    // The REST client's limits (client::RestConfig, docs/security.md).
    qint64 maxResponseBytes = client::RestConfig::DefaultMaxResponseBytes;
    qint64 maxWatchEventBytes = client::RestConfig::DefaultMaxWatchEventBytes;
    client::RestConfig::WatchTransport watchTransport
        = client::RestConfig::WatchTransport::Dedicated;
    QStringList pluginDirs;
    PluginTrust pluginTrust = PluginTrust::Strict; // plugins/plugintrust.h
    QStringList controllers {QStringLiteral("*")};
    Origin controllersOrigin {{}, QStringLiteral("controllers"), {}};
    LeaderElectionConfig leaderElection;
    QString scaleOutGroup; // scaleOut.group; empty: no scale-out (docs/scale-out.md)
    QString bindAddress = QStringLiteral("0.0.0.0");
    int securePort = 10257; // 0 serves nothing
    QString tlsCertFile; // both empty: a self-signed pair (serving/selfsignedcert.h)
    QString tlsPrivateKeyFile;
    QString tlsMinVersion; // empty: VersionTLS12 (serving/tlsoptions.h)
    QStringList tlsCipherSuites; // empty: the TLS library's defaults
    QString certDir; // the self-signed pair's directory; empty: held in memory
    bool insecurePlainHttp = false; // serve without TLS (a warning at start)
    ServingAuthConfig servingAuth;
    // How much qcm holds of a file or document from outside (docs/security.md); configBytes
    // comes from --max-config-bytes only (the file cannot bound its own reading).
    detail::InputLimits limits;
    QString stateDir; // crash records (watchdog/); empty: none kept
    Duration stallTimeout = 60s; // the watchdog's; zero: not watched
    int quarantineCrashLimit = 3; // crashes within quarantineWindow; 0: no quarantine
    Duration quarantineWindow = 10min;
    Duration controllerShutdownTimeout = 10s;
    Duration minResyncPeriod = 12h;
    QMap<QString, ControllerConfig> controllerConfig;
    // Where the file sets each field: " (line L, column C)" of its value, by the field's dotted
    // name ("kubeconfig", "leaderElection.leaseDuration"); a field the file leaves out has
    // none. For messages about a field that is valid on its own (configdiff.h).
    QMap<QString, QString> positions;
};

// Parses one document. `file` names it in errors; relative paths in it (kubeconfig,
// pluginDirs) are taken relative to the file's directory.
Result<ControllerManagerConfig> parseConfig(const QByteArray &yaml, const QString &file);
// Reads and parses a file; a file that cannot be read is an error.
Result<ControllerManagerConfig> loadConfig(const QString &file);

} // namespace qcm::host
