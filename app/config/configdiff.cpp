// SPDX-License-Identifier: Apache-2.0
#include "config/configdiff.h"

#include "config/clientconfig.h"
#include "config/duration.h"
#include "plugins/controllerselection.h"

#include <QtCore/QUrl>

#include <algorithm>

namespace qcm::host {

namespace {

// Equal values of the same type, all the way down: QVariant's own == converts (1 == "1"),
// and a plugin may well tell an integer from a string.
bool sameValue(const QVariant &a, const QVariant &b)
{
    if (a.metaType() != b.metaType())
        return false;
    if (a.metaType() == QMetaType::fromType<QVariantMap>()) {
        const QVariantMap x = a.toMap();
        const QVariantMap y = b.toMap();
        if (x.size() != y.size())
            return false;
        for (auto i = x.cbegin(), j = y.cbegin(); i != x.cend(); ++i, ++j) {
            if (i.key() != j.key() || !sameValue(*i, *j))
                return false;
        }
        return true;
    }
    if (a.metaType() == QMetaType::fromType<QVariantList>()) {
        const QVariantList x = a.toList();
        const QVariantList y = b.toList();
        return x.size() == y.size() && std::equal(x.cbegin(), x.cend(), y.cbegin(), sameValue);
    }
    return a == b;
}

bool sameSettings(const QVariantMap &a, const QVariantMap &b)
{
    return sameValue(QVariant(a), QVariant(b));
}

} // namespace

bool operator==(const ControllerSpec &a, const ControllerSpec &b)
{
    // minResyncPeriod only matters to a controller without a resync period of its own.
    return a.workers == b.workers && a.sharded == b.sharded && a.resyncPeriod == b.resyncPeriod
        && (a.resyncPeriod || a.minResyncPeriod == b.minResyncPeriod)
        && sameSettings(a.settings, b.settings);
}

bool ControllerSpec::matches(const ControllerContext &context) const
{
    if (context.workers() != workers || !sameSettings(context.settings(), settings)
        || (context.shardFilter() != nullptr) != sharded)
        return false;
    const Duration resync = context.resyncPeriod();
    if (resyncPeriod)
        return resync == *resyncPeriod;
    return resync >= minResyncPeriod && resync < 2 * minResyncPeriod;
}

bool isSharded(const ControllerManagerConfig &config, const QString &name)
{
    return !config.scaleOutGroup.isEmpty()
        && config.controllerConfig.value(name).shards == ShardMode::Auto;
}

ControllerSpec controllerSpec(const ControllerManagerConfig &config, const QString &name)
{
    const ControllerConfig entry = config.controllerConfig.value(name);
    return ControllerSpec {entry.workers.value_or(1), entry.resyncPeriod, config.minResyncPeriod,
        entry.settings, isSharded(config, name)};
}

namespace {

QString quoted(const QString &s)
{
    return QLatin1Char('"') + s + QLatin1Char('"');
}

QString shown(const QString &s)
{
    return quoted(s);
}
QString shown(bool b)
{
    return b ? QStringLiteral("true") : QStringLiteral("false");
}
QString shown(qint64 i)
{
    return QString::number(i);
}

QString shown(int i)
{
    return QString::number(i);
}
QString shown(double d)
{
    return QString::number(d);
}
QString shown(Duration d)
{
    return formatDuration(d);
}
QString shown(const QStringList &list)
{
    QStringList items;
    for (const QString &s : list)
        items << quoted(s);
    return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
}
QString shown(PluginTrust trust)
{
    return pluginTrustName(trust);
}
QString shown(client::RestConfig::WatchTransport transport)
{
    return watchTransportName(transport);
}

QString shown(LeaderElectionMode mode)
{
    return leaderElectionModeName(mode);
}

QString shown(LeaderElectionScope scope)
{
    return leaderElectionScopeName(scope);
}

// Collects one Error per restart-only field that differs.
class RestartOnly
{
public:
    RestartOnly(const ControllerManagerConfig &next, QList<Error> &out) : m_next(next), m_out(out)
    { }

    template<typename T>
    void field(const char *name, const T &running, const T &next)
    {
        if (running != next)
            differs(name, shown(running), shown(next));
    }

    // The position is the new file's (where to look, as for every other configuration
    // error); a field the new file leaves out is back at its default.
    void differs(const char *name, const QString &running, const QString &next)
    {
        const QString field = QLatin1String(name);
        const auto position = m_next.positions.constFind(field);
        m_out << Error {m_next.file, field,
            QStringLiteral("cannot change without a restart (running with %1, the new "
                           "configuration has %2)%3")
                .arg(running, next,
                    position != m_next.positions.cend()
                        ? *position
                        : QStringLiteral(" (not set in the file: its default)"))};
    }

private:
    const ControllerManagerConfig &m_next;
    QList<Error> &m_out;
};

// The API server's URL without a user or password in it.
QString withoutUserInfo(const QString &url)
{
    return QUrl(url).toString(QUrl::RemoveUserInfo);
}

} // namespace

QString ConfigDiff::summary() const
{
    QStringList parts;
    if (!enabled.isEmpty())
        parts << QStringLiteral("enabled: %1").arg(enabled.join(QStringLiteral(", ")));
    if (!disabled.isEmpty())
        parts << QStringLiteral("disabled: %1").arg(disabled.join(QStringLiteral(", ")));
    if (!changed.isEmpty())
        parts << QStringLiteral("changed: %1").arg(changed.join(QStringLiteral(", ")));
    return parts.isEmpty() ? QStringLiteral("no change to the controllers")
                           : parts.join(QStringLiteral("; "));
}

ConfigDiff diffConfigs(const ControllerManagerConfig &running, const ControllerManagerConfig &next,
    const QSet<QString> &known, const QSet<QString> &disabledByDefault)
{
    ConfigDiff diff;
    RestartOnly r(next, diff.restartOnly);
    r.field("kubeconfig", running.kubeconfig, next.kubeconfig);
    if (running.master != next.master) // shown without a user or password in it
        r.differs(
            "master", shown(withoutUserInfo(running.master)), shown(withoutUserInfo(next.master)));
    r.field("clientConnection.qps", running.kubeApiQps, next.kubeApiQps);
    r.field("clientConnection.burst", running.kubeApiBurst, next.kubeApiBurst);
    r.field("clientConnection.maxResponseBytes", running.maxResponseBytes, next.maxResponseBytes);
    r.field(
        "clientConnection.maxWatchEventBytes", running.maxWatchEventBytes, next.maxWatchEventBytes);
    r.field("clientConnection.watchTransport", running.watchTransport, next.watchTransport);
    r.field("pluginDirs", running.pluginDirs, next.pluginDirs);
    r.field("pluginTrust", running.pluginTrust, next.pluginTrust);
    const LeaderElectionConfig &a = running.leaderElection;
    const LeaderElectionConfig &b = next.leaderElection;
    r.field("leaderElection.leaderElect", a.leaderElect, b.leaderElect);
    r.field("leaderElection.leaseDuration", a.leaseDuration, b.leaseDuration);
    r.field("leaderElection.renewDeadline", a.renewDeadline, b.renewDeadline);
    r.field("leaderElection.retryPeriod", a.retryPeriod, b.retryPeriod);
    r.field("leaderElection.resourceLock", a.resourceLock, b.resourceLock);
    r.field("leaderElection.resourceName", a.resourceName, b.resourceName);
    r.field("leaderElection.resourceNamespace", a.resourceNamespace, b.resourceNamespace);
    r.field("leaderElection.releaseOnCancel", a.releaseOnCancel, b.releaseOnCancel);
    r.field("leaderElection.mode", a.mode, b.mode);
    r.field("leaderElection.coordinated", a.coordinated, b.coordinated);
    r.field("leaderElection.emulationVersion", a.emulationVersion, b.emulationVersion);
    r.field("leaderElection.scope", a.scope, b.scope);
    r.field("scaleOut.group", running.scaleOutGroup, next.scaleOutGroup);
    r.field("serving.bindAddress", running.bindAddress, next.bindAddress);
    r.field("serving.securePort", running.securePort, next.securePort);
    r.field("serving.tlsCertFile", running.tlsCertFile, next.tlsCertFile);
    r.field("serving.tlsMinVersion", running.tlsMinVersion, next.tlsMinVersion);
    r.field("serving.tlsCipherSuites", running.tlsCipherSuites, next.tlsCipherSuites);
    r.field("serving.tlsPrivateKeyFile", running.tlsPrivateKeyFile, next.tlsPrivateKeyFile);
    r.field("serving.certDir", running.certDir, next.certDir);
    r.field("serving.insecurePlainHttp", running.insecurePlainHttp, next.insecurePlainHttp);
    r.field("limits.kubeconfigBytes", running.limits.kubeconfigBytes, next.limits.kubeconfigBytes);
    r.field("limits.tokenFileBytes", running.limits.tokenFileBytes, next.limits.tokenFileBytes);
    r.field(
        "limits.certificateBytes", running.limits.certificateBytes, next.limits.certificateBytes);
    r.field("limits.execCredentialBytes", running.limits.execCredentialBytes,
        next.limits.execCredentialBytes);
    r.field("limits.pluginMetadataBytes", running.limits.pluginMetadataBytes,
        next.limits.pluginMetadataBytes);
    r.field("limits.jsonDepth", running.limits.jsonDepth, next.limits.jsonDepth);
    r.field("stateDir", running.stateDir, next.stateDir);
    r.field("watchdog.stallTimeout", running.stallTimeout, next.stallTimeout);
    r.field(
        "watchdog.quarantineCrashLimit", running.quarantineCrashLimit, next.quarantineCrashLimit);
    r.field("watchdog.quarantineWindow", running.quarantineWindow, next.quarantineWindow);
    const ServingAuthConfig &ra = running.servingAuth;
    const ServingAuthConfig &na = next.servingAuth;
    r.field("serving.authentication.clientCAFile", ra.clientCAFile, na.clientCAFile);
    r.field("serving.authentication.skipLookup", ra.skipLookup, na.skipLookup);
    r.field("serving.authentication.tokenCacheTTL", ra.tokenCacheTtl, na.tokenCacheTtl);
    r.field("serving.authorization.alwaysAllowPaths", ra.alwaysAllowPaths, na.alwaysAllowPaths);
    r.field("serving.authorization.allowCacheTTL", ra.allowCacheTtl, na.allowCacheTtl);
    r.field("serving.authorization.denyCacheTTL", ra.denyCacheTtl, na.denyCacheTtl);

    QStringList names = known.values();
    std::sort(names.begin(), names.end());
    for (const QString &name : std::as_const(names)) {
        const bool before = isControllerEnabled(name, disabledByDefault, running.controllers);
        const bool after = isControllerEnabled(name, disabledByDefault, next.controllers);
        if (!before && after)
            diff.enabled << name;
        else if (before && !after)
            diff.disabled << name;
        else if (before && after && controllerSpec(running, name) != controllerSpec(next, name))
            diff.changed << name;
    }
    return diff;
}

} // namespace qcm::host
