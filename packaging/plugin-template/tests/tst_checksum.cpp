// SPDX-License-Identifier: Apache-2.0
// configmap-checksum's unit test: the checksum, the patch and the settings, without an API
// server (the packaging e2e test runs the plugin in a real qcm against a real one).
#include "checksum.h"
#include "checksumcontroller.h"

#include <QtCore/QJsonDocument>
#include <QtTest/QtTest>

#include <stdexcept>

using qcm::client::Object;

namespace {

Object configMap(const char *json)
{
    return Object(QJsonDocument::fromJson(json).object());
}

QString settingsError(const QVariantMap &settings)
{
    try {
        checksum::Settings::fromMap(settings);
    } catch (const std::invalid_argument &e) {
        return QString::fromStdString(e.what());
    }
    return QString();
}

} // namespace

class tst_Checksum : public QObject
{
    Q_OBJECT

private slots:
    void checksumIsSha256OfTheCompactJson()
    {
        // The same digests as
        //   printf '{"binaryData":{},"data":{"a":"1"}}' | sha256sum
        QCOMPARE(checksum::dataChecksum(configMap(R"({"data": {"a": "1"}})")),
            QStringLiteral(
                "sha256:133c746ba00bae0996597a78e6683aec29358e612b64e67d75d98dfdd667966a"));
        QCOMPARE(checksum::dataChecksum(
                     configMap(R"({"data": {"z": "x", "a": "1"}, "binaryData": {"b": "AAE="}})")),
            QStringLiteral(
                "sha256:118ed332590963a7e50d4ede9af5bd93361ff2ecabc43a42f847a8483fecd9ca"));
    }

    void checksumIgnoresMetadataAndKeyOrder()
    {
        const QString a = checksum::dataChecksum(configMap(
            R"({"metadata": {"name": "a", "resourceVersion": "1"}, "data": {"x": "1", "y": "2"}})"));
        const QString b = checksum::dataChecksum(configMap(
            R"({"data": {"y": "2", "x": "1"}, "metadata": {"name": "b", "resourceVersion": "9"}})"));
        QCOMPARE(a, b);
        QCOMPARE(checksum::dataChecksum(configMap(R"({"data": {}})")),
            checksum::dataChecksum(configMap("{}")));
    }

    void checksumChangesWithTheData()
    {
        const QString base = checksum::dataChecksum(configMap(R"({"data": {"x": "1"}})"));
        QVERIFY(checksum::dataChecksum(configMap(R"({"data": {"x": "2"}})")) != base);
        QVERIFY(checksum::dataChecksum(configMap(R"({"data": {"y": "1"}})")) != base);
        QVERIFY(checksum::dataChecksum(configMap(R"({"data": {"x": "1", "y": ""}})")) != base);
        QVERIFY(checksum::dataChecksum(configMap(R"({"binaryData": {"x": "1"}})")) != base);
    }

    void patchSetsTheAnnotationAtTheReadVersion()
    {
        const Object cm = configMap(R"({"metadata": {"name": "a", "namespace": "n",
            "resourceVersion": "42", "annotations": {"other": "kept"}}, "data": {"x": "1"}})");
        const auto patch = checksum::checksumPatch(cm, QStringLiteral("example.com/sum"));
        QVERIFY(patch);
        const QJsonObject expected {{QStringLiteral("metadata"),
            QJsonObject {{QStringLiteral("resourceVersion"), QStringLiteral("42")},
                {QStringLiteral("annotations"),
                    QJsonObject {
                        {QStringLiteral("example.com/sum"), checksum::dataChecksum(cm)}}}}}};
        QCOMPARE(QJsonDocument::fromJson(*patch).object(), expected);
    }

    void noPatchWhenUpToDate()
    {
        Object cm = configMap(R"({"metadata": {"name": "a"}, "data": {"x": "1"}})");
        cm.setAnnotations({{QStringLiteral("example.com/sum"), checksum::dataChecksum(cm)}});
        QVERIFY(!checksum::checksumPatch(cm, QStringLiteral("example.com/sum")));
        // A stale value is replaced.
        cm.setAnnotations({{QStringLiteral("example.com/sum"), QStringLiteral("sha256:00")}});
        QVERIFY(checksum::checksumPatch(cm, QStringLiteral("example.com/sum")));
    }

    void settingsDefaultsAndOverrides()
    {
        const checksum::Settings defaults = checksum::Settings::fromMap({});
        QCOMPARE(defaults.labelSelector, QStringLiteral("example.com/checksum=enabled"));
        QCOMPARE(defaults.annotation, QStringLiteral("example.com/data-checksum"));
        const checksum::Settings set = checksum::Settings::fromMap(
            {{QStringLiteral("labelSelector"), QStringLiteral("app in (a, b)")},
                {QStringLiteral("annotation"), QStringLiteral("example.org/sum")}});
        QCOMPARE(set.labelSelector, QStringLiteral("app in (a, b)"));
        QCOMPARE(set.annotation, QStringLiteral("example.org/sum"));
    }

    void badSettingsAreNamed()
    {
        QCOMPARE(settingsError({{QStringLiteral("selector"), QStringLiteral("a=b")}}),
            QStringLiteral("settings.selector: unknown setting; the settings here are "
                           "annotation, labelSelector"));
        QCOMPARE(settingsError({{QStringLiteral("annotation"), qint64(7)}}),
            QStringLiteral("settings.annotation: must be a string"));
        QCOMPARE(settingsError({{QStringLiteral("annotation"), QString()}}),
            QStringLiteral("settings.annotation: must not be empty"));
        const QString selector
            = settingsError({{QStringLiteral("labelSelector"), QStringLiteral("a in (")}});
        QVERIFY2(
            selector.startsWith(QStringLiteral("settings.labelSelector: ")), qPrintable(selector));
    }
};

QTEST_APPLESS_MAIN(tst_Checksum)
#include "tst_checksum.moc"
