// SPDX-License-Identifier: Apache-2.0
// Plugin metadata validation, in Qt Creator's order (IID, then each field, then the SDK), each
// failure a typed error with its own message.
#include "plugins/pluginmetadata.h"

#include <QtCore/QJsonDocument>
#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::host;

Q_DECLARE_METATYPE(qcm::host::PluginError::Kind)

class tst_PluginMetaData : public QObject
{
    Q_OBJECT

private slots:
    void valid();
    void invalid_data();
    void invalid();
    void olderSdkMinorIsCompatible();
    void versions();
};

namespace {

QJsonObject good()
{
    return QJsonObject {{QStringLiteral("name"), QStringLiteral("sample-controller")},
        {QStringLiteral("version"), QStringLiteral("1.2.3")},
        {QStringLiteral("description"), QStringLiteral("Foo -> Deployment")},
        {QStringLiteral("sdkVersion"), QStringLiteral("0.1.0")},
        {QStringLiteral("sdkAbiVersion"), 1}, {QStringLiteral("enabledByDefault"), false},
        {QStringLiteral("needsLeaderElection"), true}};
}

QJsonObject loaderMetaData(
    const QJsonObject &metaData, const QString &iid = QStringLiteral("io.qcm.ControllerPlugin/1"))
{
    QJsonObject o {
        {QStringLiteral("IID"), iid}, {QStringLiteral("className"), QStringLiteral("X")}};
    if (!metaData.isEmpty())
        o.insert(QStringLiteral("MetaData"), metaData);
    return o;
}

QJsonObject with(QJsonObject o, const char *key, const QJsonValue &value)
{
    if (value.isUndefined())
        o.remove(QLatin1String(key));
    else
        o.insert(QLatin1String(key), value);
    return o;
}

} // namespace

void tst_PluginMetaData::valid()
{
    const auto m = readPluginMetaData(loaderMetaData(good()), QStringLiteral("0.1.0"), 1);
    QVERIFY2(m.ok(), qPrintable(m.ok() ? QString() : m.error().message));
    QCOMPARE(m->name, QStringLiteral("sample-controller"));
    QCOMPARE(m->version, QStringLiteral("1.2.3"));
    QCOMPARE(m->description, QStringLiteral("Foo -> Deployment"));
    QCOMPARE(m->sdkVersion, QStringLiteral("0.1.0"));
    QCOMPARE(m->sdkAbiVersion, 1);
    QVERIFY(!m->enabledByDefault);
    QVERIFY(m->needsLeaderElection);
}

void tst_PluginMetaData::invalid_data()
{
    using K = PluginError::Kind;
    QTest::addColumn<QJsonObject>("raw");
    QTest::addColumn<PluginError::Kind>("kind");
    QTest::addColumn<QString>("message");
    QTest::newRow("no IID") << QJsonObject {{QStringLiteral("MetaData"), good()}} << K::NotAPlugin
                            << QStringLiteral("not a Qt plugin: no IID in its metadata");
    QTest::newRow("wrong IID")
        << loaderMetaData(good(), QStringLiteral("org.kde.KPluginFactory")) << K::WrongIid
        << QStringLiteral("not a qcm controller plugin: expected IID "
                          "\"io.qcm.ControllerPlugin/1\", but found \"org.kde.KPluginFactory\"");
    QTest::newRow("other ABI in the IID")
        << loaderMetaData(good(), QStringLiteral("io.qcm.ControllerPlugin/2")) << K::IncompatibleSdk
        << QStringLiteral("incompatible SDK: the plugin implements io.qcm.ControllerPlugin/2, this "
                          "host loads io.qcm.ControllerPlugin/1 (plugin ABI 1)");
    QTest::newRow("no MetaData") << loaderMetaData({}) << K::MissingMetaData
                                 << QStringLiteral("no plugin metadata: Q_PLUGIN_METADATA names no "
                                                   "FILE (build the plugin with "
                                                   "qcm_add_controller_plugin() and name its "
                                                   "<name>.json)");
    QTest::newRow("name missing") << loaderMetaData(with(good(), "name", QJsonValue::Undefined))
                                  << K::InvalidMetaData
                                  << QStringLiteral("invalid metadata: \"name\" is missing");
    QTest::newRow("name not a string")
        << loaderMetaData(with(good(), "name", 42)) << K::InvalidMetaData
        << QStringLiteral("invalid metadata: \"name\" must be a "
                          "string, not 42");
    QTest::newRow("name not a DNS label")
        << loaderMetaData(with(good(), "name", QStringLiteral("Sample_Controller")))
        << K::InvalidMetaData
        << QStringLiteral("invalid metadata: \"name\" must be lowercase letters, digits and '-' "
                          "(at most 63), not \"Sample_Controller\"");
    QTest::newRow("version missing")
        << loaderMetaData(with(good(), "version", QJsonValue::Undefined)) << K::InvalidMetaData
        << QStringLiteral("invalid metadata: \"version\" is missing");
    QTest::newRow("version malformed")
        << loaderMetaData(with(good(), "version", QStringLiteral("1.2"))) << K::InvalidMetaData
        << QStringLiteral("invalid metadata: \"version\" must be a version major.minor.patch, not "
                          "\"1.2\"");
    QTest::newRow("description missing")
        << loaderMetaData(with(good(), "description", QJsonValue::Undefined)) << K::InvalidMetaData
        << QStringLiteral("invalid metadata: \"description\" is missing");
    QTest::newRow("sdkVersion missing")
        << loaderMetaData(with(good(), "sdkVersion", QJsonValue::Undefined)) << K::InvalidMetaData
        << QStringLiteral("invalid metadata: \"sdkVersion\" is missing");
    QTest::newRow("sdkAbiVersion a string")
        << loaderMetaData(with(good(), "sdkAbiVersion", QStringLiteral("1"))) << K::InvalidMetaData
        << QStringLiteral("invalid metadata: \"sdkAbiVersion\" must be a positive integer, not "
                          "\"1\"");
    QTest::newRow("sdkAbiVersion fractional")
        << loaderMetaData(with(good(), "sdkAbiVersion", 1.5)) << K::InvalidMetaData
        << QStringLiteral(
               "invalid metadata: \"sdkAbiVersion\" must be a positive integer, not 1.5");
    QTest::newRow("enabledByDefault a string")
        << loaderMetaData(with(good(), "enabledByDefault", QStringLiteral("yes")))
        << K::InvalidMetaData
        << QStringLiteral("invalid metadata: \"enabledByDefault\" must be true or false, not "
                          "\"yes\"");
    QTest::newRow("needsLeaderElection missing")
        << loaderMetaData(with(good(), "needsLeaderElection", QJsonValue::Undefined))
        << K::InvalidMetaData
        << QStringLiteral("invalid metadata: \"needsLeaderElection\" is missing");
    QTest::newRow("other ABI")
        << loaderMetaData(
               with(with(good(), "sdkAbiVersion", 2), "sdkVersion", QStringLiteral("2.0.0")))
        << K::IncompatibleSdk
        << QStringLiteral("incompatible SDK: built against qcm SDK 2.0.0 (plugin ABI 2); this host "
                          "has SDK 0.1.0 (plugin ABI 1)");
    QTest::newRow("newer SDK")
        << loaderMetaData(with(good(), "sdkVersion", QStringLiteral("0.2.0"))) << K::IncompatibleSdk
        << QStringLiteral("incompatible SDK: built against qcm SDK 0.2.0, newer than this host's "
                          "0.1.0 (it may need what 0.1.0 lacks)");
}

void tst_PluginMetaData::invalid()
{
    QFETCH(QJsonObject, raw);
    QFETCH(PluginError::Kind, kind);
    QFETCH(QString, message);
    const auto m = readPluginMetaData(raw, QStringLiteral("0.1.0"), 1);
    QVERIFY(!m.ok());
    QCOMPARE(m.error().message, message);
    QCOMPARE(m.error().kind, kind);
}

void tst_PluginMetaData::olderSdkMinorIsCompatible()
{
    const auto m
        = readPluginMetaData(loaderMetaData(with(good(), "sdkVersion", QStringLiteral("0.1.0"))),
            QStringLiteral("0.3.2"), 1);
    QVERIFY(m.ok());
}

void tst_PluginMetaData::versions()
{
    QCOMPARE(compareVersions(QStringLiteral("0.1.0"), QStringLiteral("0.1.0")), 0);
    QCOMPARE(compareVersions(QStringLiteral("0.1.0"), QStringLiteral("0.10.0")), -1);
    QCOMPARE(compareVersions(QStringLiteral("1.0.0"), QStringLiteral("0.99.99")), 1);
    QCOMPARE(compareVersions(QStringLiteral("0.1.10"), QStringLiteral("0.1.9")), 1);
    QVERIFY(isControllerName(QStringLiteral("ttl-after-finished")));
    QVERIFY(!isControllerName(QStringLiteral("-x")));
    QVERIFY(!isControllerName(QStringLiteral("x-")));
    QVERIFY(!isControllerName(QString(64, QLatin1Char('a'))));
    QVERIFY(isControllerName(QString(63, QLatin1Char('a'))));
}

QTEST_APPLESS_MAIN(tst_PluginMetaData)
#include "tst_pluginmetadata.moc"
