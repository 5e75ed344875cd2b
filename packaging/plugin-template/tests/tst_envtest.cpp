// SPDX-License-Identifier: Apache-2.0
// configmap-checksum's controller against a real kube-apiserver and etcd that the SDK's
// TestEnvironment starts for this test alone (controller-runtime's envtest): informers and
// writes over the real REST client, as in qcm. Needs QCM_TESTENV_ASSETS, the directory
// `/usr/libexec/qcm/testenv-setup --assets` prints (README.md, "Testing").
#include "checksum.h"
#include "checksumcontroller.h"

#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/client/client.h>
#include <qcm/testing/testenvironment.h>

#include <QtTest/QtTest>

using qcm::client::Object;

class tst_EnvTest : public QObject
{
    Q_OBJECT

private slots:
    void annotatesOnARealApiServer()
    {
        qcm::testing::TestEnvironment env;
        if (const auto error = env.start())
            QFAIL(qPrintable(error->toString()));
        qcm::client::RestClient rest(env.restConfig());
        qcm::cache::SharedInformerFactory informers(&rest, qcm::Duration::zero());
        qcm::ControllerContext context(QStringLiteral("configmap-checksum"));
        context.setRestClient(&rest);
        context.setInformerFactory(&informers);
        checksum::ChecksumController controller(context); // writes through a DirectClient
        informers.start();
        controller.start();
        QTRY_VERIFY_WITH_TIMEOUT(controller.hasSynced(), 30000);

        const qcm::client::GroupVersionResource configMaps {
            QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};
        Object cm(QJsonObject {{QStringLiteral("apiVersion"), QStringLiteral("v1")},
            {QStringLiteral("kind"), QStringLiteral("ConfigMap")},
            {QStringLiteral("data"), QJsonObject {{QStringLiteral("k"), QStringLiteral("v")}}}});
        cm.setNamespaceName(QStringLiteral("default"));
        cm.setName(QStringLiteral("real"));
        cm.setLabels({{QStringLiteral("example.com/checksum"), QStringLiteral("enabled")}});
        qcm::client::DirectClient client(&rest);
        QVERIFY(client.create(configMaps, cm));
        auto annotation = [&] {
            const auto got
                = client.get(configMaps, QStringLiteral("default"), QStringLiteral("real"));
            return got ? got->annotations().value(QStringLiteral("example.com/data-checksum"))
                       : QString();
        };
        QTRY_COMPARE_WITH_TIMEOUT(annotation(), checksum::dataChecksum(cm), 30000);
        QVERIFY(controller.stop(std::chrono::seconds(10)));
        informers.shutdown();
    }
};

QTEST_MAIN(tst_EnvTest)
#include "tst_envtest.moc"
