// SPDX-License-Identifier: Apache-2.0
#include "config/config.h"

#include "auth/delegatingauthorizer.h"
#include "config/clientconfig.h"
#include "config/configschema.h"
#include "config/scalars.h"
#include "config/yamlsupport.h"
#include "plugins/pluginmetadata.h"
#include "serving/tlsoptions.h"

#include <qcm/detail/readatmost.h>
#include <qcm/sharding/membership.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QSet>

#include <functional>
#include <limits>

namespace qcm::host {

namespace {

const QString ApiVersion = QStringLiteral("qcm.io/v1alpha1");
const QString Kind = QStringLiteral("ControllerManagerConfiguration");

QString quoted(const QString &s)
{
    return QLatin1Char('"') + s + QLatin1Char('"');
}

QString join(const QString &path, const QString &key)
{
    return path.isEmpty() ? key : path + QLatin1Char('.') + key;
}

// Reads the fields of one document, stopping at the first error.
class Reader
{
public:
    explicit Reader(QString file) : m_file(std::move(file)) { }

    std::optional<Error> error;
    // Where each field read is: its value's position, by its dotted name.
    QMap<QString, QString> positions;

    bool failed() const { return error.has_value(); }

    void fail(const QString &field, const QString &reason, const YAML::Node &at)
    {
        fail(field, reason + yamlPosition(at));
    }
    void fail(const QString &field, const QString &reason)
    {
        if (!error)
            error = Error {m_file, field, reason};
    }

    // Checks that `map` is a map whose keys are all in `known` and none repeated.
    bool checkMap(const YAML::Node &map, const QString &path, const QStringList &known)
    {
        if (!map.IsMap()) {
            fail(path, QStringLiteral("must be a map"), map);
            return false;
        }
        QSet<QString> seen;
        for (auto it = map.begin(); it != map.end(); ++it) {
            if (!it->first.IsScalar()) {
                fail(path, QStringLiteral("keys must be strings"), it->first);
                return false;
            }
            const QString key = QString::fromStdString(it->first.Scalar());
            if (!known.isEmpty() && !known.contains(key)) {
                fail(join(path, key),
                    QStringLiteral("unknown field; the fields here are %1")
                        .arg(known.join(QStringLiteral(", "))),
                    it->first);
                return false;
            }
            if (seen.contains(key)) {
                fail(join(path, key), QStringLiteral("is repeated"), it->first);
                return false;
            }
            seen.insert(key);
        }
        return true;
    }

    // The scalar text of map[key], or nothing if the key is absent or null.
    std::optional<QString> scalar(
        const YAML::Node &map, const char *key, const QString &path, const QString &what)
    {
        const YAML::Node node = map[key];
        if (!node)
            return std::nullopt;
        positions.insert(join(path, QLatin1String(key)), yamlPosition(node));
        if (node.IsNull())
            return std::nullopt;
        if (!node.IsScalar()) {
            fail(join(path, QLatin1String(key)), QStringLiteral("must be ") + what, node);
            return std::nullopt;
        }
        return QString::fromStdString(node.Scalar());
    }

    void string(const YAML::Node &map, const char *key, const QString &path, QString &out)
    {
        if (auto s = scalar(map, key, path, QStringLiteral("a string")))
            out = *s;
    }

    // A path, relative to the configuration file's directory unless absolute.
    void path(const YAML::Node &map, const char *key, const QString &path, QString &out)
    {
        if (auto s = scalar(map, key, path, QStringLiteral("a path")))
            out = resolve(*s);
    }

    QString resolve(const QString &p) const
    {
        if (p.isEmpty() || QDir::isAbsolutePath(p) || m_file.isEmpty())
            return p;
        return QDir::cleanPath(QFileInfo(m_file).absoluteDir().filePath(p));
    }

    // map[key] parsed by `parse` (scalars.h), handed to `set`.
    template<typename T, typename Parse, typename Set>
    void value(const YAML::Node &map, const char *key, const QString &path, const QString &what,
        Parse &&parse, Set &&set)
    {
        const auto s = scalar(map, key, path, what);
        if (!s)
            return;
        const Result<T> v = parse(*s);
        if (!v) {
            fail(join(path, QLatin1String(key)), v.error().reason, map[key]);
            return;
        }
        set(*v);
    }

    void boolean(const YAML::Node &map, const char *key, const QString &path, bool &out)
    {
        value<bool>(
            map, key, path, QStringLiteral("true or false"), parseBool, [&](bool v) { out = v; });
    }

    void integer(const YAML::Node &map, const char *key, const QString &path, qint64 min,
        qint64 max, const std::function<void(qint64)> &set)
    {
        value<qint64>(
            map, key, path, QStringLiteral("an integer"),
            [&](const QString &s) { return parseInteger(s, min, max); }, set);
    }

    void number(const YAML::Node &map, const char *key, const QString &path, double &out)
    {
        value<double>(
            map, key, path, QStringLiteral("a number"), parseNumber, [&](double v) { out = v; });
    }

    void duration(const YAML::Node &map, const char *key, const QString &path,
        const std::function<void(Duration)> &set)
    {
        value<Duration>(
            map, key, path, QStringLiteral("a duration"), parseNonNegativeDuration, set);
    }

    void stringList(
        const YAML::Node &map, const char *key, const QString &path, QStringList &out, bool paths)
    {
        const YAML::Node node = map[key];
        if (!node)
            return;
        positions.insert(join(path, QLatin1String(key)), yamlPosition(node));
        if (node.IsNull()) {
            out.clear();
            return;
        }
        if (!node.IsSequence()) {
            fail(join(path, QLatin1String(key)), QStringLiteral("must be a list"), node);
            return;
        }
        QStringList list;
        for (std::size_t i = 0; i < node.size(); ++i) {
            const YAML::Node item = node[i];
            if (!item.IsScalar()) {
                fail(join(path, QLatin1String(key)) + QStringLiteral("[%1]").arg(i),
                    QStringLiteral("must be a string"), item);
                return;
            }
            const QString text = QString::fromStdString(item.Scalar());
            list << (paths ? resolve(text) : text);
        }
        out = list;
    }

    Origin origin(const QString &field, const YAML::Node &at) const
    {
        return Origin {m_file, field, yamlPosition(at)};
    }

private:
    QString m_file;
};

void readLeaderElection(Reader &r, const YAML::Node &node, LeaderElectionConfig &le)
{
    const QString path = QStringLiteral("leaderElection");
    if (!r.checkMap(node, path, configFieldsUnder(path)))
        return;
    r.boolean(node, "leaderElect", path, le.leaderElect);
    r.duration(node, "leaseDuration", path, [&](Duration d) { le.leaseDuration = d; });
    r.duration(node, "renewDeadline", path, [&](Duration d) { le.renewDeadline = d; });
    r.duration(node, "retryPeriod", path, [&](Duration d) { le.retryPeriod = d; });
    r.string(node, "resourceLock", path, le.resourceLock);
    r.string(node, "resourceName", path, le.resourceName);
    r.string(node, "resourceNamespace", path, le.resourceNamespace);
    r.boolean(node, "releaseOnCancel", path, le.releaseOnCancel);
    r.value<LeaderElectionMode>(node, "mode", path, QStringLiteral("run-or-die or rejoin"),
        parseLeaderElectionMode, [&](LeaderElectionMode m) { le.mode = m; });
    r.boolean(node, "coordinated", path, le.coordinated);
    r.string(node, "emulationVersion", path, le.emulationVersion);
    r.value<LeaderElectionScope>(node, "scope", path, QStringLiteral("manager or controller"),
        parseLeaderElectionScope, [&](LeaderElectionScope s) { le.scope = s; });
}

void readControllerConfig(Reader &r, const YAML::Node &node, ControllerManagerConfig &config)
{
    const QString path = QStringLiteral("controllerConfig");
    if (!r.checkMap(node, path, {}))
        return;
    for (auto it = node.begin(); it != node.end() && !r.failed(); ++it) {
        const QString name = QString::fromStdString(it->first.Scalar());
        const QString entryPath = join(path, name);
        if (!isControllerName(name)) {
            r.fail(entryPath,
                QStringLiteral("is not a controller name (lowercase letters, digits and '-')"),
                it->first);
            return;
        }
        ControllerConfig entry;
        entry.origin = r.origin(entryPath, it->first);
        const YAML::Node body = it->second;
        if (body.IsNull()) {
            config.controllerConfig.insert(name, entry);
            continue;
        }
        if (!r.checkMap(
                body, entryPath, configFieldsUnder(QStringLiteral("controllerConfig.<name>"))))
            return;
        r.integer(body, "workers", entryPath, 1, 1000, [&](qint64 v) { entry.workers = int(v); });
        r.value<ShardMode>(body, "shards", entryPath, QStringLiteral("none or auto"),
            parseShardMode, [&](ShardMode m) { entry.shards = m; });
        if (entry.shards == ShardMode::Auto && config.scaleOutGroup.isEmpty())
            r.fail(join(entryPath, QStringLiteral("shards")),
                QStringLiteral("auto needs scaleOut.group (a scale-out group to shard across)"),
                body["shards"]);
        r.duration(body, "resyncPeriod", entryPath, [&](Duration d) { entry.resyncPeriod = d; });
        if (const YAML::Node settings = body["settings"]; settings && !settings.IsNull()) {
            const QString settingsPath = join(entryPath, QStringLiteral("settings"));
            if (!settings.IsMap()) {
                r.fail(settingsPath, QStringLiteral("must be a map"), settings);
                return;
            }
            Result<QVariant> value = yamlToVariant(settings, settingsPath);
            if (!value) {
                r.fail(value.error().field, value.error().reason); // it has the position
                return;
            }
            entry.settings = value->toMap();
        }
        config.controllerConfig.insert(name, entry);
    }
}

} // namespace

Result<LeaderElectionMode> parseLeaderElectionMode(const QString &text)
{
    if (text == QLatin1String("run-or-die"))
        return LeaderElectionMode::RunOrDie;
    if (text == QLatin1String("rejoin"))
        return LeaderElectionMode::Rejoin;
    return Error {{}, {}, QStringLiteral("must be run-or-die or rejoin, not %1").arg(quoted(text))};
}

Result<LeaderElectionScope> parseLeaderElectionScope(const QString &text)
{
    if (text == QLatin1String("manager"))
        return LeaderElectionScope::Manager;
    if (text == QLatin1String("controller"))
        return LeaderElectionScope::Controller;
    return Error {
        {}, {}, QStringLiteral("must be manager or controller, not %1").arg(quoted(text))};
}

QString leaderElectionScopeName(LeaderElectionScope scope)
{
    return scope == LeaderElectionScope::Controller ? QStringLiteral("controller")
                                                    : QStringLiteral("manager");
}

Result<ShardMode> parseShardMode(const QString &text)
{
    if (text == QLatin1String("none"))
        return ShardMode::None;
    if (text == QLatin1String("auto"))
        return ShardMode::Auto;
    return Error {{}, {}, QStringLiteral("must be none or auto, not %1").arg(quoted(text))};
}

QString shardModeName(ShardMode mode)
{
    return mode == ShardMode::Auto ? QStringLiteral("auto") : QStringLiteral("none");
}

Result<QString> parseScaleOutGroup(const QString &text)
{
    if (text.isEmpty() || sharding::Membership::isValidGroup(text))
        return text;
    return Error {{}, {},
        QStringLiteral("must be a DNS label of at most %1 characters (lowercase letters, digits "
                       "and '-'), not %2")
            .arg(sharding::Membership::MaxGroupLength)
            .arg(quoted(text.left(64)))};
}

QString leaderElectionModeName(LeaderElectionMode mode)
{
    return mode == LeaderElectionMode::Rejoin ? QStringLiteral("rejoin")
                                              : QStringLiteral("run-or-die");
}

Result<ControllerManagerConfig> parseConfig(const QByteArray &yaml, const QString &file)
{
    const Result<YAML::Node> document = loadYamlDocument(yaml, file);
    if (!document)
        return document.error();
    const YAML::Node &root = *document;
    ControllerManagerConfig config;
    config.file = file;
    config.controllersOrigin.file = file;
    if (!root || root.IsNull())
        return config; // an empty file: every default
    Reader r(file);
    if (!r.checkMap(root, {}, configFieldsUnder({})))
        return *r.error;

    QString apiVersion = ApiVersion;
    QString kind = Kind;
    r.string(root, "apiVersion", {}, apiVersion);
    if (!r.failed() && apiVersion != ApiVersion)
        r.fail(QStringLiteral("apiVersion"),
            QStringLiteral("must be %1, not %2").arg(ApiVersion, quoted(apiVersion)),
            root["apiVersion"]);
    r.string(root, "kind", {}, kind);
    if (!r.failed() && kind != Kind)
        r.fail(QStringLiteral("kind"), QStringLiteral("must be %1, not %2").arg(Kind, quoted(kind)),
            root["kind"]);

    r.path(root, "kubeconfig", {}, config.kubeconfig);
    r.string(root, "master", {}, config.master);
    if (const YAML::Node cc = root["clientConnection"]; cc && !cc.IsNull()) {
        const QString path = QStringLiteral("clientConnection");
        if (r.checkMap(cc, path, configFieldsUnder(path))) {
            r.number(cc, "qps", path, config.kubeApiQps);
            r.integer(cc, "maxResponseBytes", path, 1024, std::numeric_limits<qint64>::max(),
                [&](qint64 v) { config.maxResponseBytes = v; });
            r.integer(cc, "maxWatchEventBytes", path, 1024, std::numeric_limits<qint64>::max(),
                [&](qint64 v) { config.maxWatchEventBytes = v; });
            r.integer(cc, "burst", path, 0, std::numeric_limits<int>::max(),
                [&](qint64 v) { config.kubeApiBurst = int(v); });
            r.value<client::RestConfig::WatchTransport>(cc, "watchTransport", path,
                QStringLiteral("dedicated or shared"), parseWatchTransport,
                [&](client::RestConfig::WatchTransport t) { config.watchTransport = t; });
        }
    }
    r.stringList(root, "pluginDirs", {}, config.pluginDirs, true);
    r.value<PluginTrust>(root, "pluginTrust", {}, QStringLiteral("strict or warn"),
        parsePluginTrust, [&](PluginTrust t) { config.pluginTrust = t; });
    r.stringList(root, "controllers", {}, config.controllers, false);
    if (const YAML::Node c = root["controllers"])
        config.controllersOrigin = r.origin(QStringLiteral("controllers"), c);
    if (const YAML::Node le = root["leaderElection"]; le && !le.IsNull() && !r.failed())
        readLeaderElection(r, le, config.leaderElection);
    if (const YAML::Node so = root["scaleOut"]; so && !so.IsNull() && !r.failed()) {
        const QString p = QStringLiteral("scaleOut");
        if (r.checkMap(so, p, configFieldsUnder(p))) {
            r.value<QString>(so, "group", p, QStringLiteral("a DNS label"), parseScaleOutGroup,
                [&](const QString &g) { config.scaleOutGroup = g; });
            if (!config.scaleOutGroup.isEmpty() && !config.leaderElection.leaderElect)
                r.fail(QStringLiteral("scaleOut.group"),
                    QStringLiteral("needs leaderElection.leaderElect (the group's leader writes "
                                   "its epochs)"),
                    so["group"]);
        }
    }
    if (!r.failed() && config.leaderElection.scope == LeaderElectionScope::Controller
        && config.scaleOutGroup.isEmpty())
        r.fail(QStringLiteral("leaderElection.scope"),
            QStringLiteral("controller needs scaleOut.group (its members share the controllers)"),
            root["leaderElection"]["scope"]);
    if (const YAML::Node serving = root["serving"]; serving && !serving.IsNull() && !r.failed()) {
        const QString path = QStringLiteral("serving");
        if (r.checkMap(serving, path, configFieldsUnder(path))) {
            r.string(serving, "bindAddress", path, config.bindAddress);
            r.integer(serving, "securePort", path, 0, 65535,
                [&](qint64 v) { config.securePort = int(v); });
            r.path(serving, "tlsCertFile", path, config.tlsCertFile);
            r.path(serving, "tlsPrivateKeyFile", path, config.tlsPrivateKeyFile);
            r.string(serving, "tlsMinVersion", path, config.tlsMinVersion);
            r.stringList(serving, "tlsCipherSuites", path, config.tlsCipherSuites, false);
            r.path(serving, "certDir", path, config.certDir);
            r.boolean(serving, "insecurePlainHttp", path, config.insecurePlainHttp);
            ServingAuthConfig &auth = config.servingAuth;
            if (const YAML::Node n = serving["authentication"]; n && !n.IsNull() && !r.failed()) {
                const QString p = QStringLiteral("serving.authentication");
                if (r.checkMap(n, p, configFieldsUnder(p))) {
                    r.path(n, "clientCAFile", p, auth.clientCAFile);
                    r.boolean(n, "skipLookup", p, auth.skipLookup);
                    r.duration(n, "tokenCacheTTL", p, [&](Duration d) { auth.tokenCacheTtl = d; });
                }
            }
            if (const YAML::Node n = serving["authorization"]; n && !n.IsNull() && !r.failed()) {
                const QString p = QStringLiteral("serving.authorization");
                if (r.checkMap(n, p, configFieldsUnder(p))) {
                    r.stringList(n, "alwaysAllowPaths", p, auth.alwaysAllowPaths, false);
                    if (!r.failed())
                        if (const std::optional<Error> e
                            = DelegatingAuthorizer::checkAlwaysAllowPaths(auth.alwaysAllowPaths))
                            r.fail(join(p, QLatin1String("alwaysAllowPaths")), e->reason,
                                n["alwaysAllowPaths"]);
                    r.duration(n, "allowCacheTTL", p, [&](Duration d) { auth.allowCacheTtl = d; });
                    r.duration(n, "denyCacheTTL", p, [&](Duration d) { auth.denyCacheTtl = d; });
                }
            }
            if (!r.failed()) {
                if (const std::optional<Error> e
                    = checkTlsSettings(config.tlsMinVersion, config.tlsCipherSuites)) {
                    const char *key = e->field == QLatin1String("--tls-min-version")
                        ? "tlsMinVersion"
                        : "tlsCipherSuites";
                    r.fail(join(path, QLatin1String(key)), e->reason, serving[key]);
                }
            }
        }
    }
    if (const YAML::Node l = root["limits"]; l && !l.IsNull() && !r.failed()) {
        const QString p = QStringLiteral("limits");
        detail::InputLimits &limits = config.limits;
        if (r.checkMap(l, p, configFieldsUnder(p))) {
            constexpr qint64 Max = qint64(1) << 40;
            r.integer(
                l, "kubeconfigBytes", p, 1024, Max, [&](qint64 v) { limits.kubeconfigBytes = v; });
            r.integer(
                l, "tokenFileBytes", p, 64, Max, [&](qint64 v) { limits.tokenFileBytes = v; });
            r.integer(l, "certificateBytes", p, 1024, Max,
                [&](qint64 v) { limits.certificateBytes = v; });
            r.integer(l, "execCredentialBytes", p, 1024, Max,
                [&](qint64 v) { limits.execCredentialBytes = v; });
            r.integer(l, "pluginMetadataBytes", p, 1024, Max,
                [&](qint64 v) { limits.pluginMetadataBytes = v; });
            r.integer(l, "jsonDepth", p, 16, 100000, [&](qint64 v) { limits.jsonDepth = int(v); });
        }
    }
    r.path(root, "stateDir", {}, config.stateDir);
    if (const YAML::Node w = root["watchdog"]; w && !w.IsNull() && !r.failed()) {
        const QString p = QStringLiteral("watchdog");
        if (r.checkMap(w, p, configFieldsUnder(p))) {
            r.duration(w, "stallTimeout", p, [&](Duration d) { config.stallTimeout = d; });
            r.integer(w, "quarantineCrashLimit", p, 0, 1000,
                [&](qint64 v) { config.quarantineCrashLimit = int(v); });
            r.duration(w, "quarantineWindow", p, [&](Duration d) { config.quarantineWindow = d; });
        }
    }
    r.duration(root, "controllerShutdownTimeout", {},
        [&](Duration d) { config.controllerShutdownTimeout = d; });
    r.duration(root, "minResyncPeriod", {}, [&](Duration d) { config.minResyncPeriod = d; });
    if (const YAML::Node cc = root["controllerConfig"]; cc && !cc.IsNull() && !r.failed())
        readControllerConfig(r, cc, config);
    if (r.error)
        return *r.error;
    config.positions = r.positions;
    return config;
}

Result<ControllerManagerConfig> loadConfig(const QString &file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return Error {
            file, {}, QStringLiteral("cannot read the configuration: %1").arg(f.errorString())};
    const Result<QByteArray> contents = detail::readAtMost(f, detail::inputLimits().configBytes,
        QStringLiteral("the configuration"), QStringLiteral("--max-config-bytes"));
    if (!contents)
        return contents.error();
    return parseConfig(*contents, file);
}

} // namespace qcm::host
