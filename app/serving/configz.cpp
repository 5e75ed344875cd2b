// SPDX-License-Identifier: Apache-2.0
#include "serving/configz.h"

#include "config/clientconfig.h"
#include "config/duration.h"

#include <qcm/client/restconfig.h>

#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QUrl>

namespace qcm::host {

namespace {

// Secrets shorter than this are not scrubbed from other values: "a" would erase every "a".
constexpr int MinSecretLength = 6;

QString scrub(QString text, const QStringList &secrets)
{
    for (const QString &secret : secrets)
        text.replace(secret, QLatin1String(Redacted));
    return text;
}

QJsonValue redactValue(const QVariant &value, const QStringList &secrets);

QJsonObject redactMap(const QVariantMap &map, const QStringList &secrets)
{
    QJsonObject out;
    for (auto it = map.begin(); it != map.end(); ++it) {
        out.insert(scrub(it.key(), secrets),
            isSecretKey(it.key()) ? QJsonValue(QLatin1String(Redacted))
                                  : redactValue(it.value(), secrets));
    }
    return out;
}

QJsonValue redactValue(const QVariant &value, const QStringList &secrets)
{
    switch (value.typeId()) {
    case QMetaType::QVariantMap:
        return redactMap(value.toMap(), secrets);
    case QMetaType::QVariantList: {
        QJsonArray out;
        for (const QVariant &item : value.toList())
            out.append(redactValue(item, secrets));
        return out;
    }
    case QMetaType::Bool:
        return value.toBool();
    case QMetaType::LongLong:
    case QMetaType::Int:
        return value.toLongLong();
    case QMetaType::Double:
        return value.toDouble();
    default:
        if (value.isNull())
            return QJsonValue::Null;
        return scrub(value.toString(), secrets);
    }
}

QJsonArray stringArray(const QStringList &list, const QStringList &secrets)
{
    QJsonArray out;
    for (const QString &s : list)
        out.append(scrub(s, secrets));
    return out;
}

QString withoutUserInfo(const QString &url)
{
    QUrl parsed(url);
    if (!parsed.isValid() || parsed.userInfo().isEmpty())
        return url;
    parsed.setUserInfo({});
    const QString prefix = parsed.scheme() + QStringLiteral("://");
    QString out = parsed.toString();
    if (out.startsWith(prefix))
        out.insert(prefix.size(), QLatin1String(Redacted) + QLatin1Char('@'));
    return out;
}

} // namespace

bool isSecretKey(const QString &key)
{
    static const char *const words[]
        = {"password", "passwd", "secret", "token", "credential", "auth", "bearer", "private"};
    const QString lower = key.toLower();
    for (const char *word : words) {
        if (lower.contains(QLatin1String(word)))
            return true;
    }
    return lower.endsWith(QLatin1String("key"));
}

QStringList secretsOf(const client::RestConfig &rest)
{
    QStringList secrets;
    auto add = [&](const QString &s) {
        const QString trimmed = s.trimmed();
        if (trimmed.size() >= MinSecretLength && !secrets.contains(trimmed))
            secrets << trimmed;
    };
    add(rest.bearerToken);
    add(rest.password);
    if (!rest.bearerTokenFile.isEmpty()) {
        QFile file(rest.bearerTokenFile);
        if (file.open(QIODevice::ReadOnly))
            add(QString::fromUtf8(file.readAll()));
    }
    for (const QByteArray &pem : {rest.clientKeyData, rest.clientCertData}) {
        if (pem.isEmpty())
            continue;
        add(QString::fromUtf8(pem));
        add(QString::fromLatin1(pem.toBase64())); // as a kubeconfig's *-data fields hold it
        for (const QByteArray &line : pem.split('\n')) {
            if (!line.startsWith("-----"))
                add(QString::fromLatin1(line));
        }
    }
    if (rest.exec) {
        for (const auto &variable : rest.exec->env)
            add(variable.second);
    }
    // Longest first, so that a secret containing another is replaced whole.
    std::sort(secrets.begin(), secrets.end(),
        [](const QString &a, const QString &b) { return a.size() > b.size(); });
    return secrets;
}

QJsonObject configzJson(const ControllerManagerConfig &config, const QStringList &secrets,
    const QMap<QString, QString> &quarantined)
{
    const LeaderElectionConfig &le = config.leaderElection;
    QJsonObject controllerConfig;
    for (auto it = config.controllerConfig.begin(); it != config.controllerConfig.end(); ++it) {
        QJsonObject entry;
        if (it->workers)
            entry.insert(QStringLiteral("workers"), *it->workers);
        entry.insert(QStringLiteral("shards"), shardModeName(it->shards));
        if (it->resyncPeriod)
            entry.insert(QStringLiteral("resyncPeriod"), formatDuration(*it->resyncPeriod));
        entry.insert(QStringLiteral("settings"), redactMap(it->settings, secrets));
        controllerConfig.insert(it.key(), entry);
    }
    const QJsonObject body {
        {QStringLiteral("apiVersion"), QStringLiteral("qcm.io/v1alpha1")},
        {QStringLiteral("kind"), QStringLiteral("ControllerManagerConfiguration")},
        {QStringLiteral("file"), scrub(config.file, secrets)},
        {QStringLiteral("kubeconfig"), scrub(config.kubeconfig, secrets)},
        {QStringLiteral("master"), scrub(withoutUserInfo(config.master), secrets)},
        {QStringLiteral("clientConnection"),
            QJsonObject {{QStringLiteral("qps"), config.kubeApiQps},
                {QStringLiteral("burst"), config.kubeApiBurst},
                {QStringLiteral("maxResponseBytes"), double(config.maxResponseBytes)},
                {QStringLiteral("maxWatchEventBytes"), double(config.maxWatchEventBytes)},
                {QStringLiteral("watchTransport"), watchTransportName(config.watchTransport)}}},
        {QStringLiteral("pluginDirs"), stringArray(config.pluginDirs, secrets)},
        {QStringLiteral("pluginTrust"), pluginTrustName(config.pluginTrust)},
        {QStringLiteral("controllers"), stringArray(config.controllers, secrets)},
        {QStringLiteral("leaderElection"),
            QJsonObject {{QStringLiteral("leaderElect"), le.leaderElect},
                {QStringLiteral("leaseDuration"), formatDuration(le.leaseDuration)},
                {QStringLiteral("renewDeadline"), formatDuration(le.renewDeadline)},
                {QStringLiteral("retryPeriod"), formatDuration(le.retryPeriod)},
                {QStringLiteral("resourceLock"), le.resourceLock},
                {QStringLiteral("resourceName"), le.resourceName},
                {QStringLiteral("resourceNamespace"), le.resourceNamespace},
                {QStringLiteral("releaseOnCancel"), le.releaseOnCancel},
                {QStringLiteral("mode"), leaderElectionModeName(le.mode)},
                {QStringLiteral("coordinated"), le.coordinated},
                {QStringLiteral("emulationVersion"), le.emulationVersion},
                {QStringLiteral("scope"), leaderElectionScopeName(le.scope)}}},
        {QStringLiteral("scaleOut"), QJsonObject {{QStringLiteral("group"), config.scaleOutGroup}}},
        {QStringLiteral("serving"),
            QJsonObject {{QStringLiteral("bindAddress"), config.bindAddress},
                {QStringLiteral("securePort"), config.securePort},
                {QStringLiteral("tlsCertFile"), scrub(config.tlsCertFile, secrets)},
                {QStringLiteral("tlsMinVersion"), config.tlsMinVersion},
                {QStringLiteral("tlsCipherSuites"),
                    QJsonArray::fromStringList(config.tlsCipherSuites)},
                {QStringLiteral("tlsPrivateKeyFile"), scrub(config.tlsPrivateKeyFile, secrets)},
                {QStringLiteral("certDir"), scrub(config.certDir, secrets)},
                {QStringLiteral("insecurePlainHttp"), config.insecurePlainHttp},
                {QStringLiteral("authentication"),
                    QJsonObject {{QStringLiteral("clientCAFile"),
                                     scrub(config.servingAuth.clientCAFile, secrets)},
                        {QStringLiteral("skipLookup"), config.servingAuth.skipLookup},
                        {QStringLiteral("tokenCacheTTL"),
                            formatDuration(config.servingAuth.tokenCacheTtl)}}},
                {QStringLiteral("authorization"),
                    QJsonObject {
                        {QStringLiteral("alwaysAllowPaths"),
                            QJsonArray::fromStringList(config.servingAuth.alwaysAllowPaths)},
                        {QStringLiteral("allowCacheTTL"),
                            formatDuration(config.servingAuth.allowCacheTtl)},
                        {QStringLiteral("denyCacheTTL"),
                            formatDuration(config.servingAuth.denyCacheTtl)}}}}},
        {QStringLiteral("limits"),
            QJsonObject {{QStringLiteral("kubeconfigBytes"), config.limits.kubeconfigBytes},
                {QStringLiteral("tokenFileBytes"), config.limits.tokenFileBytes},
                {QStringLiteral("certificateBytes"), config.limits.certificateBytes},
                {QStringLiteral("execCredentialBytes"), config.limits.execCredentialBytes},
                {QStringLiteral("pluginMetadataBytes"), config.limits.pluginMetadataBytes},
                {QStringLiteral("jsonDepth"), config.limits.jsonDepth},
                {QStringLiteral("configBytes"), config.limits.configBytes}}},
        {QStringLiteral("stateDir"), scrub(config.stateDir, secrets)},
        {QStringLiteral("watchdog"),
            QJsonObject {{QStringLiteral("stallTimeout"), formatDuration(config.stallTimeout)},
                {QStringLiteral("quarantineCrashLimit"), config.quarantineCrashLimit},
                {QStringLiteral("quarantineWindow"), formatDuration(config.quarantineWindow)}}},
        {QStringLiteral("controllerShutdownTimeout"),
            formatDuration(config.controllerShutdownTimeout)},
        {QStringLiteral("minResyncPeriod"), formatDuration(config.minResyncPeriod)},
        {QStringLiteral("controllerConfig"), controllerConfig},
    };
    QJsonObject out {{QStringLiteral("controllermanager.qcm.io"), body}};
    if (!quarantined.isEmpty()) {
        QJsonObject q;
        for (auto it = quarantined.cbegin(); it != quarantined.cend(); ++it)
            q.insert(it.key(), scrub(it.value(), secrets));
        out.insert(QStringLiteral("quarantined"), q);
    }
    return out;
}

} // namespace qcm::host
