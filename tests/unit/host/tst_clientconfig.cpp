// SPDX-License-Identifier: Apache-2.0
// The REST client's configuration from --kubeconfig, --master and the client flags, as
// clientcmd.BuildConfigFromFlags builds it.
#include "config/clientconfig.h"

#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::host;

class tst_ClientConfig : public QObject
{
    Q_OBJECT

private slots:
    void masterOnly_data();
    void masterOnly();
    void kubeconfigWithAndWithoutMaster();
    void rateLimits_data();
    void rateLimits();
    void watchTransport();
    void responseLimits();
    void errors();
    void serviceAccountDirFromTheEnvironment();
};

namespace {

const QByteArray Kubeconfig = R"(apiVersion: v1
kind: Config
current-context: test
clusters:
- name: c
  cluster:
    server: https://10.1.2.3:6443
    insecure-skip-tls-verify: true
users:
- name: u
  user:
    token: secret
contexts:
- name: test
  context: {cluster: c, user: u, namespace: apps}
)";

} // namespace

void tst_ClientConfig::masterOnly_data()
{
    QTest::addColumn<QString>("master");
    QTest::addColumn<QString>("server");
    QTest::newRow("with scheme") << "https://api.example.com:6443"
                                 << "https://api.example.com:6443";
    // No TLS material: client-go's DefaultServerURL picks http.
    QTest::newRow("host and port") << "127.0.0.1:8080"
                                   << "http://127.0.0.1:8080";
}

void tst_ClientConfig::masterOnly()
{
    QFETCH(QString, master);
    QFETCH(QString, server);
    ControllerManagerConfig config;
    config.master = master;
    const auto rest = buildClientConfig(config);
    QVERIFY2(rest.ok(), qPrintable(rest.ok() ? QString() : rest.error().toString()));
    QCOMPARE(rest->server.toString(), server);
    QCOMPARE(rest->source, QStringLiteral("--master"));
    QVERIFY(rest->bearerToken.isEmpty());
}

void tst_ClientConfig::kubeconfigWithAndWithoutMaster()
{
    QTemporaryDir dir;
    QFile f(dir.filePath(QStringLiteral("kubeconfig")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(Kubeconfig);
    f.close();
    ControllerManagerConfig config;
    config.kubeconfig = f.fileName();
    auto rest = buildClientConfig(config);
    QVERIFY2(rest.ok(), qPrintable(rest.ok() ? QString() : rest.error().toString()));
    QCOMPARE(rest->server.toString(), QStringLiteral("https://10.1.2.3:6443"));
    QCOMPARE(rest->bearerToken, QStringLiteral("secret"));
    QCOMPARE(rest->defaultNamespace, QStringLiteral("apps"));

    // --master replaces the server and keeps the credentials; with TLS in play, https.
    config.master = QStringLiteral("10.9.9.9:443");
    rest = buildClientConfig(config);
    QVERIFY(rest.ok());
    QCOMPARE(rest->server.toString(), QStringLiteral("https://10.9.9.9:443"));
    QCOMPARE(rest->bearerToken, QStringLiteral("secret"));
    QVERIFY(rest->source.endsWith(QLatin1String(", server from --master")));
}

void tst_ClientConfig::rateLimits_data()
{
    QTest::addColumn<double>("qps");
    QTest::addColumn<int>("burst");
    QTest::addColumn<double>("wantQps");
    QTest::addColumn<int>("wantBurst");
    QTest::newRow("kube-controller-manager's defaults") << 20.0 << 30 << 20.0 << 30;
    QTest::newRow("zero: client-go's defaults") << 0.0 << 0 << 5.0 << 10;
    QTest::newRow("negative qps: no limit") << -1.0 << 7 << -1.0 << 7;
}

void tst_ClientConfig::rateLimits()
{
    QFETCH(double, qps);
    QFETCH(int, burst);
    QFETCH(double, wantQps);
    QFETCH(int, wantBurst);
    ControllerManagerConfig config;
    config.master = QStringLiteral("https://a:1");
    config.kubeApiQps = qps;
    config.kubeApiBurst = burst;
    const auto rest = buildClientConfig(config);
    QVERIFY(rest.ok());
    QCOMPARE(rest->qps, wantQps);
    QCOMPARE(rest->burst, wantBurst);
}

// clientConnection.watchTransport reaches the client: dedicated by default, shared on request;
// any other value is refused with the two it may be.
void tst_ClientConfig::watchTransport()
{
    ControllerManagerConfig config;
    config.master = QStringLiteral("https://a:1");
    auto rest = buildClientConfig(config);
    QVERIFY(rest.ok());
    QCOMPARE(rest->watchTransport, client::RestConfig::WatchTransport::Dedicated);
    const auto parsed
        = parseConfig("clientConnection: {watchTransport: shared}\nmaster: https://a:1\n",
            QStringLiteral("c.yaml"));
    QVERIFY(parsed);
    rest = buildClientConfig(*parsed);
    QVERIFY(rest.ok());
    QCOMPARE(rest->watchTransport, client::RestConfig::WatchTransport::Shared);
    const auto bad
        = parseConfig("clientConnection: {watchTransport: http2}\n", QStringLiteral("c.yaml"));
    QVERIFY(!bad);
    QCOMPARE(bad.error().toString(),
        QStringLiteral("c.yaml: clientConnection.watchTransport: must be dedicated or shared, "
                       "not \"http2\" (line 1, column 36)"));
}

// clientConnection.maxResponseBytes and maxWatchEventBytes reach the client; the defaults
// are the client's own.
void tst_ClientConfig::responseLimits()
{
    ControllerManagerConfig config;
    config.master = QStringLiteral("https://a:1");
    auto rest = buildClientConfig(config);
    QVERIFY(rest.ok());
    QCOMPARE(rest->maxResponseBytes, qint64(1) << 30);
    QCOMPARE(rest->maxWatchEventBytes, qint64(64) << 20);
    const auto parsed = parseConfig("clientConnection: {maxResponseBytes: 2048, "
                                    "maxWatchEventBytes: 4096}\nmaster: https://a:1\n",
        QStringLiteral("c.yaml"));
    QVERIFY(parsed);
    rest = buildClientConfig(*parsed);
    QVERIFY(rest.ok());
    QCOMPARE(rest->maxResponseBytes, qint64(2048));
    QCOMPARE(rest->maxWatchEventBytes, qint64(4096));
    const auto tooSmall
        = parseConfig("clientConnection: {maxResponseBytes: 10}\n", QStringLiteral("c.yaml"));
    QVERIFY(!tooSmall);
    QVERIFY2(tooSmall.error().toString().startsWith(QStringLiteral(
                 "c.yaml: clientConnection.maxResponseBytes: must be between 1024 and ")),
        qPrintable(tooSmall.error().toString()));
}

void tst_ClientConfig::errors()
{
    ControllerManagerConfig config;
    config.master = QStringLiteral("http://");
    auto rest = buildClientConfig(config);
    QVERIFY(!rest.ok());
    QCOMPARE(rest.error().toString(), QStringLiteral("--master: \"http://\" is not a server URL"));

    config.master.clear();
    config.kubeconfig = QStringLiteral("/nonexistent/kubeconfig");
    rest = buildClientConfig(config);
    QVERIFY(!rest.ok());
    QVERIFY2(rest.error().toString().startsWith(QLatin1String("/nonexistent/kubeconfig")),
        qPrintable(rest.error().toString()));

    // Neither: the in-cluster configuration, which a test machine does not have.
    qunsetenv("KUBERNETES_SERVICE_HOST");
    config.kubeconfig.clear();
    rest = buildClientConfig(config);
    QVERIFY(!rest.ok());
    QVERIFY2(rest.error().toString().startsWith(
                 QLatin1String("--kubeconfig: neither --kubeconfig nor --master was given, and the "
                               "in-cluster configuration is not available: ")),
        qPrintable(rest.error().toString()));
}

// QCM_SERVICE_ACCOUNT_DIR moves where the in-cluster configuration reads the token, CA and
// namespace (tests/e2e/kubernetes runs the binary on a real token this way).
void tst_ClientConfig::serviceAccountDirFromTheEnvironment()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    qputenv("KUBERNETES_SERVICE_HOST", "10.0.0.1");
    qputenv("KUBERNETES_SERVICE_PORT", "443");
    qputenv("QCM_SERVICE_ACCOUNT_DIR", dir.path().toUtf8());
    const ControllerManagerConfig config;
    auto noToken = buildClientConfig(config);

    QFile token(dir.filePath(QStringLiteral("token")));
    QVERIFY(token.open(QIODevice::WriteOnly));
    token.write("t0ken\n");
    token.close();
    auto noCa = buildClientConfig(config);

    qunsetenv("QCM_SERVICE_ACCOUNT_DIR");
    auto defaultDir = buildClientConfig(config);
    qunsetenv("KUBERNETES_SERVICE_HOST");
    qunsetenv("KUBERNETES_SERVICE_PORT");

    QVERIFY(!noToken.ok());
    QVERIFY2(noToken.error().toString().contains(
                 dir.filePath(QStringLiteral("token")) + QStringLiteral(": cannot read")),
        qPrintable(noToken.error().toString()));
    QVERIFY(!noCa.ok());
    QVERIFY2(noCa.error().toString().contains(
                 dir.filePath(QStringLiteral("ca.crt")) + QStringLiteral(": cannot read")),
        qPrintable(noCa.error().toString()));
    // Unset, the kubelet's directory, which a test machine outside a Pod does not have.
    if (!QFile::exists(QStringLiteral("/var/run/secrets/kubernetes.io/serviceaccount/token"))) {
        QVERIFY(!defaultDir.ok());
        QVERIFY2(defaultDir.error().toString().contains(
                     QLatin1String("/var/run/secrets/kubernetes.io/serviceaccount/token")),
            qPrintable(defaultDir.error().toString()));
    }
}

QTEST_APPLESS_MAIN(tst_ClientConfig)
#include "tst_clientconfig.moc"
