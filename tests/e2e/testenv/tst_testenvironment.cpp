// SPDX-License-Identifier: Apache-2.0
// e2e: testing::TestEnvironment starts a real etcd and kube-apiserver of its own, installs a
// CRD, hands out a working RestConfig and a kubeconfig kubectl accepts, and stops cleanly; and
// it says what is wrong when it cannot start. Binaries: $QCM_TESTENV_ASSETS, set by CMake to
// the directory build-binaries.sh --assets (scripts/setup.sh) fills.
#include <qcm/client/client.h>
#include <qcm/testing/testenvironment.h>

#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtNetwork/QTcpSocket>
#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::client;

class tst_TestEnvironment : public QObject
{
    Q_OBJECT

private slots:
    void startsInstallsAndStops();
    void missingAssetsSayWhatIsMissing();
    void aBadCrdFileIsAnError();
};

void tst_TestEnvironment::startsInstallsAndStops()
{
    testing::TestEnvironment env({QStringLiteral(
        QCM_SOURCE_DIR "/plugins/sample-controller/artifacts/crd-status-subresource.yaml")});
    const std::optional<Error> error = env.start();
    QVERIFY2(!error, error ? qPrintable(error->toString()) : "");
    QVERIFY(env.isRunning());
    const RestConfig config = env.restConfig();
    QCOMPARE(config.server.host(), QStringLiteral("127.0.0.1"));
    QVERIFY(!config.caData.isEmpty()); // verified TLS, not insecure
    QVERIFY(!config.insecureSkipTlsVerify);

    // The CRD is served: a Foo goes in and comes back.
    RestClient rest(config);
    DirectClient client(&rest);
    const GroupVersionResource foos {QStringLiteral("samplecontroller.k8s.io"),
        QStringLiteral("v1alpha1"), QStringLiteral("foos")};
    Object foo(QJsonObject {
        {QStringLiteral("apiVersion"), QStringLiteral("samplecontroller.k8s.io/v1alpha1")},
        {QStringLiteral("kind"), QStringLiteral("Foo")},
        {QStringLiteral("spec"),
            QJsonObject {{QStringLiteral("deploymentName"), QStringLiteral("d")},
                {QStringLiteral("replicas"), 1}}}});
    foo.setNamespaceName(QStringLiteral("default"));
    foo.setName(QStringLiteral("example"));
    const auto created = client.create(foos, foo);
    QVERIFY2(created, qPrintable(created.ok() ? QString() : created.error().toString()));

    // kubectl, with the environment's kubeconfig, sees it.
    QProcess kubectl;
    kubectl.setProcessChannelMode(QProcess::MergedChannels);
    kubectl.start(qEnvironmentVariable("QCM_TESTENV_ASSETS") + QStringLiteral("/kubectl"),
        {QStringLiteral("--kubeconfig"), env.kubeconfigPath(), QStringLiteral("get"),
            QStringLiteral("foos"), QStringLiteral("-n"), QStringLiteral("default"),
            QStringLiteral("-o"), QStringLiteral("name")});
    QVERIFY(kubectl.waitForFinished(60000));
    const QString out = QString::fromUtf8(kubectl.readAll());
    QVERIFY2(kubectl.exitCode() == 0
            && out.trimmed() == QStringLiteral("foo.samplecontroller.k8s.io/example"),
        qPrintable(out));

    // Installing more later works too, and is idempotent.
    QVERIFY(!env.installCrds({QStringLiteral(
        QCM_SOURCE_DIR "/plugins/sample-controller/artifacts/crd-status-subresource.yaml")}));

    // stop(): the processes are gone and the port is closed.
    const QString kubeconfig = env.kubeconfigPath();
    env.stop();
    QVERIFY(!env.isRunning());
    QVERIFY(!QFile::exists(kubeconfig));
    QTcpSocket socket;
    socket.connectToHost(QStringLiteral("127.0.0.1"), quint16(config.server.port()));
    QVERIFY(!socket.waitForConnected(2000));
}

void tst_TestEnvironment::missingAssetsSayWhatIsMissing()
{
    QTemporaryDir empty;
    testing::TestEnvironment::Options options;
    options.assetsDirectory = empty.path();
    testing::TestEnvironment env(options);
    const auto error = env.start();
    QVERIFY(error);
    QCOMPARE(error->toString(),
        QStringLiteral("TestEnvironment: assets: %1 has no executable etcd").arg(empty.path()));
    QVERIFY(!env.isRunning());
}

void tst_TestEnvironment::aBadCrdFileIsAnError()
{
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("bad.yaml"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
    f.close();
    testing::TestEnvironment env({bad});
    const auto error = env.start();
    QVERIFY(error);
    QCOMPARE(error->toString(),
        bad + QStringLiteral(": x: not a CustomResourceDefinition but a ConfigMap"));
}

QTEST_MAIN(tst_TestEnvironment)
#include "tst_testenvironment.moc"
