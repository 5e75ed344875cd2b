// SPDX-License-Identifier: Apache-2.0
// configmap-checksum's controller on the SDK's fake client: its informers run on the fake
// (FakeClient::informerFactory()), so the controller sees the test's writes as watch events,
// and what it writes lands in the fake, where the test reads it back. No API server.
#include "checksum.h"
#include "checksumcontroller.h"

#include <qcm/testing/fakeclient.h>

#include <QtTest/QtTest>

using qcm::client::Object;

namespace {

const qcm::client::GroupVersionResource ConfigMaps {
    QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};

Object configMap(const QString &name, const QMap<QString, QString> &labels)
{
    Object o(QJsonObject {{QStringLiteral("apiVersion"), QStringLiteral("v1")},
        {QStringLiteral("kind"), QStringLiteral("ConfigMap")},
        {QStringLiteral("data"), QJsonObject {{QStringLiteral("a"), QStringLiteral("1")}}}});
    o.setNamespaceName(QStringLiteral("default"));
    o.setName(name);
    o.setLabels(labels);
    return o;
}

} // namespace

class tst_Controller : public QObject
{
    Q_OBJECT

private slots:
    void annotatesLabelledConfigMaps()
    {
        qcm::testing::FakeClient fake;
        QObject owner;
        qcm::ControllerContext context(QStringLiteral("configmap-checksum"));
        context.setInformerFactory(fake.informerFactory(&owner));
        checksum::ChecksumController controller(context, fake);
        context.informerFactory()->start();
        controller.start();
        QTRY_VERIFY_WITH_TIMEOUT(controller.hasSynced(), 10000);

        QVERIFY(fake.create(ConfigMaps,
            configMap(QStringLiteral("labelled"),
                {{QStringLiteral("example.com/checksum"), QStringLiteral("enabled")}})));
        QVERIFY(fake.create(ConfigMaps, configMap(QStringLiteral("plain"), {})));
        const QString annotation = QStringLiteral("example.com/data-checksum");
        auto annotated = [&](const QString &name) {
            const auto cm = fake.get(ConfigMaps, QStringLiteral("default"), name);
            return cm ? cm->annotations().value(annotation) : QString();
        };
        QTRY_COMPARE_WITH_TIMEOUT(annotated(QStringLiteral("labelled")),
            checksum::dataChecksum(configMap(QStringLiteral("labelled"), {})), 10000);
        // A change of the data changes the checksum.
        Object changed
            = *fake.get(ConfigMaps, QStringLiteral("default"), QStringLiteral("labelled"));
        changed.json().insert(
            QStringLiteral("data"), QJsonObject {{QStringLiteral("a"), QStringLiteral("2")}});
        QVERIFY(fake.update(ConfigMaps, changed));
        QTRY_COMPARE_WITH_TIMEOUT(
            annotated(QStringLiteral("labelled")), checksum::dataChecksum(changed), 10000);
        // The unlabelled one is not the controller's.
        QCOMPARE(annotated(QStringLiteral("plain")), QString());
        QVERIFY(controller.stop(std::chrono::seconds(10)));
    }
};

QTEST_MAIN(tst_Controller)
#include "tst_controller.moc"
