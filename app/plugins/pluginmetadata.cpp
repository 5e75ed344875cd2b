// SPDX-License-Identifier: Apache-2.0
#include "plugins/pluginmetadata.h"

#include <qcm/detail/inputlimits.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QRegularExpression>

namespace qcm::host {

namespace {

const QString IidPrefix = QStringLiteral("io.qcm.ControllerPlugin/");

const QRegularExpression &versionPattern()
{
    static const QRegularExpression re(QStringLiteral("^([0-9]+)\\.([0-9]+)\\.([0-9]+)$"));
    return re;
}

PluginError invalid(const QString &message)
{
    return PluginError {PluginError::Kind::InvalidMetaData, message};
}

// The JSON value as it would be written, for messages.
QString shown(const QJsonValue &value)
{
    if (value.isString())
        return QLatin1Char('"') + value.toString() + QLatin1Char('"');
    if (value.isObject())
        return QStringLiteral("an object");
    if (value.isArray())
        return QStringLiteral("an array");
    return QString::fromUtf8(QJsonDocument(QJsonArray {value}).toJson(QJsonDocument::Compact))
        .mid(1)
        .chopped(1);
}

class FieldReader
{
public:
    explicit FieldReader(const QJsonObject &object) : m_object(object) { }

    std::optional<PluginError> error;

    QString string(const char *key)
    {
        const QJsonValue v = value(key);
        if (error || v.isString())
            return v.toString();
        fail(QStringLiteral("\"%1\" must be a string, not %2").arg(QLatin1String(key), shown(v)));
        return {};
    }
    QString version(const char *key)
    {
        const QString v = string(key);
        if (!error && !versionPattern().match(v).hasMatch())
            fail(QStringLiteral("\"%1\" must be a version major.minor.patch, not \"%2\"")
                     .arg(QLatin1String(key), v));
        return v;
    }
    bool boolean(const char *key)
    {
        const QJsonValue v = value(key);
        if (error || v.isBool())
            return v.toBool();
        fail(QStringLiteral("\"%1\" must be true or false, not %2")
                 .arg(QLatin1String(key), shown(v)));
        return false;
    }
    int integer(const char *key)
    {
        const QJsonValue v = value(key);
        if (error)
            return 0;
        const double d = v.toDouble(-1);
        if (!v.isDouble() || d < 1 || d > 1000000 || d != double(int(d))) {
            fail(QStringLiteral("\"%1\" must be a positive integer, not %2")
                     .arg(QLatin1String(key), shown(v)));
            return 0;
        }
        return int(d);
    }

private:
    QJsonValue value(const char *key)
    {
        if (error)
            return {};
        const QJsonValue v = m_object.value(QLatin1String(key));
        if (v.isUndefined())
            fail(QStringLiteral("\"%1\" is missing").arg(QLatin1String(key)));
        return v;
    }
    void fail(const QString &message)
    {
        if (!error)
            error = invalid(QStringLiteral("invalid metadata: ") + message);
    }

    const QJsonObject m_object;
};

} // namespace

bool isControllerName(const QString &name)
{
    static const QRegularExpression dnsLabel(QStringLiteral("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"));
    return name.size() <= 63 && dnsLabel.match(name).hasMatch();
}

int compareVersions(const QString &a, const QString &b)
{
    const QRegularExpressionMatch ma = versionPattern().match(a);
    const QRegularExpressionMatch mb = versionPattern().match(b);
    for (int i = 1; i <= 3; ++i) {
        const qint64 x = ma.captured(i).toLongLong();
        const qint64 y = mb.captured(i).toLongLong();
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

Result<PluginMetaData, PluginError> readPluginMetaData(
    const QJsonObject &loaderMetaData, const QString &hostSdkVersion, int hostAbiVersion)
{
    using Kind = PluginError::Kind;
    const QString expectedIid = IidPrefix + QString::number(hostAbiVersion);
    const QJsonValue iid = loaderMetaData.value(QLatin1String("IID"));
    if (!iid.isString())
        return PluginError {
            Kind::NotAPlugin, QStringLiteral("not a Qt plugin: no IID in its metadata")};
    if (iid.toString() != expectedIid) {
        if (iid.toString().startsWith(IidPrefix))
            return PluginError {Kind::IncompatibleSdk,
                QStringLiteral("incompatible SDK: the plugin implements %1, this host loads %2 "
                               "(plugin ABI %3)")
                    .arg(iid.toString(), expectedIid)
                    .arg(hostAbiVersion)};
        return PluginError {Kind::WrongIid,
            QStringLiteral("not a qcm controller plugin: expected IID \"%1\", but found \"%2\"")
                .arg(expectedIid, iid.toString())};
    }
    const QJsonValue metaData = loaderMetaData.value(QLatin1String("MetaData"));
    // Bounded before a field is read: a description of megabytes is not metadata.
    const qint64 size = QJsonDocument(metaData.toObject()).toJson(QJsonDocument::Compact).size();
    const qint64 limit = detail::inputLimits().pluginMetadataBytes;
    if (size > limit)
        return PluginError {Kind::InvalidMetaData,
            QStringLiteral("its metadata is %1 bytes of JSON, more than the limit of %2 "
                           "(limits.pluginMetadataBytes)")
                .arg(size)
                .arg(limit)};
    if (!metaData.isObject() || metaData.toObject().isEmpty())
        return PluginError {Kind::MissingMetaData,
            QStringLiteral("no plugin metadata: Q_PLUGIN_METADATA names no FILE (build the plugin "
                           "with qcm_add_controller_plugin() and name its <name>.json)")};

    FieldReader r(metaData.toObject());
    PluginMetaData m;
    m.name = r.string("name");
    if (!r.error && !isControllerName(m.name))
        return invalid(
            QStringLiteral("invalid metadata: \"name\" must be lowercase letters, digits "
                           "and '-' (at most 63), not \"%1\"")
                .arg(m.name));
    m.version = r.version("version");
    m.description = r.string("description");
    m.sdkVersion = r.version("sdkVersion");
    m.sdkAbiVersion = r.integer("sdkAbiVersion");
    m.enabledByDefault = r.boolean("enabledByDefault");
    m.needsLeaderElection = r.boolean("needsLeaderElection");
    if (r.error)
        return *r.error;

    if (m.sdkAbiVersion != hostAbiVersion)
        return PluginError {Kind::IncompatibleSdk,
            QStringLiteral("incompatible SDK: built against qcm SDK %1 (plugin ABI %2); this host "
                           "has SDK %3 (plugin ABI %4)")
                .arg(m.sdkVersion)
                .arg(m.sdkAbiVersion)
                .arg(hostSdkVersion)
                .arg(hostAbiVersion)};
    if (compareVersions(m.sdkVersion, hostSdkVersion) > 0)
        return PluginError {Kind::IncompatibleSdk,
            QStringLiteral("incompatible SDK: built against qcm SDK %1, newer than this host's %2 "
                           "(it may need what %2 lacks)")
                .arg(m.sdkVersion, hostSdkVersion)};
    return m;
}

} // namespace qcm::host
