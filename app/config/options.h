// SPDX-License-Identifier: Apache-2.0
// Options: qcm's command line. The flags are named after kube-controller-manager's, and every
// flag given overrides the matching field of controller-manager.yaml (applyTo()).
//
// A bool flag is written as pflag accepts it: --leader-elect, --leader-elect=true or
// --leader-elect=false. List flags (--controllers, --plugin-dir) take comma-separated values
// and may be repeated. Durations are Go's ("15s", "1m30s").
//
// Thread safety: plain values.
#pragma once

#include "config/config.h"

#include <QtCore/QStringList>

#include <optional>

namespace qcm::host {

struct Options
{
    enum class Action { Run, ListPlugins, ShowHelp, ShowVersion };
    Action action = Action::Run;
    QString configFile;

    // The flags that were given; unset ones leave the file's value (or the default).
    std::optional<QString> kubeconfig;
    std::optional<QString> master;
    std::optional<QStringList> controllers;
    std::optional<QStringList> pluginDirs;
    std::optional<PluginTrust> pluginTrust;
    std::optional<bool> leaderElect;
    std::optional<Duration> leaseDuration;
    std::optional<Duration> renewDeadline;
    std::optional<Duration> retryPeriod;
    std::optional<QString> resourceLock;
    std::optional<QString> resourceName;
    std::optional<QString> resourceNamespace;
    std::optional<bool> releaseOnCancel;
    std::optional<LeaderElectionMode> leaderElectionMode;
    std::optional<double> kubeApiQps;
    std::optional<int> kubeApiBurst;
    std::optional<QString> bindAddress;
    std::optional<int> securePort;
    std::optional<QString> tlsCertFile;
    std::optional<QString> tlsPrivateKeyFile;
    std::optional<QString> tlsMinVersion;
    std::optional<QStringList> tlsCipherSuites;
    std::optional<QString> certDir;
    std::optional<bool> insecurePlainHttp;
    std::optional<QString> clientCAFile;
    std::optional<bool> authenticationSkipLookup;
    std::optional<Duration> authenticationTokenWebhookCacheTtl;
    std::optional<QStringList> authorizationAlwaysAllowPaths;
    std::optional<Duration> authorizationWebhookCacheAuthorizedTtl;
    std::optional<Duration> authorizationWebhookCacheUnauthorizedTtl;
    std::optional<qint64> maxConfigBytes;
    std::optional<QString> stateDir;
    std::optional<Duration> stallTimeout;
    std::optional<int> quarantineCrashLimit;
    std::optional<Duration> quarantineWindow;
    std::optional<Duration> controllerShutdownTimeout;
    std::optional<Duration> minResyncPeriod;

    // Overrides `config` with every flag that was given. Then, if neither the flag nor the file
    // named a plugin directory, gives `config` the installation's (installdirs.h).
    void applyTo(ControllerManagerConfig &config) const;
};

// Parses `arguments` (argv, the program name first). An unknown flag or a bad value is an
// Error whose field is the flag ("--kube-api-qps").
Result<Options> parseOptions(const QStringList &arguments);

// The --help text: every flag, what it does, and its default.
QString helpText();

// One flag as --help and the qcm(1) man page show it (manpages/manpage.h renders the same
// table, so the two cannot drift).
struct FlagHelp
{
    QStringList names; // without dashes; the first is the name, the others aliases
    QString valueName; // empty: a flag without value (--list-plugins)
    QString description; // with " (default ...)" where there is one
};

// Every flag qcm takes, in --help order, --help and --version included.
QList<FlagHelp> flagTable();

} // namespace qcm::host
