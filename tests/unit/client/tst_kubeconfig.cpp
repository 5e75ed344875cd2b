// SPDX-License-Identifier: Apache-2.0
// KubeConfig and in-cluster config: clientcmd's loading, merging and error rules.
#include <qcm/client/incluster.h>
#include <qcm/client/kubeconfig.h>

#include <QtCore/QDir>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace qcm::client;

class tst_KubeConfig : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void certificateFilesRelativeToTheKubeconfig();
    void embeddedDataAndToken();
    void namespaceDefaultAndContextOverride();
    void mergeFirstFileWins();
    void missingFilesAreSkippedInAList();
    void nameTwiceInOneFileKeepsTheFirst();
    void execAndBasicAuth();
    void errors_data();
    void errors();
    void malformedYamlHasLineAndColumn();
    void unreadableCertificateNamesFileAndField();
    void inCluster();
    void inClusterErrors();

private:
    QString write(const QString &name, const QByteArray &content);
    QByteArray pem(const char *name) const;
    QTemporaryDir m_dir;
};

void tst_KubeConfig::init()
{
    QVERIFY(m_dir.isValid());
}

QString tst_KubeConfig::write(const QString &name, const QByteArray &content)
{
    const QString path = m_dir.filePath(name);
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    f.write(content);
    return path;
}

QByteArray tst_KubeConfig::pem(const char *name) const
{
    QFile f(QStringLiteral(QCM_TEST_DATA "/") + QLatin1String(name));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing test data %s", name);
    return f.readAll();
}

void tst_KubeConfig::certificateFilesRelativeToTheKubeconfig()
{
    write(QStringLiteral("conf/certs/ca.crt"), pem("ca.crt"));
    write(QStringLiteral("conf/certs/client.crt"), pem("client.crt"));
    write(QStringLiteral("conf/certs/client.key"), pem("client.key"));
    const QString path = write(QStringLiteral("conf/config"), R"(
apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority: certs/ca.crt
    tls-server-name: kubernetes
users:
- name: u
  user:
    client-certificate: certs/client.crt
    client-key: certs/client.key
contexts:
- name: dev
  context: {cluster: c, user: u}
)");
    auto config = KubeConfig::loadFile(path);
    QVERIFY2(config, qPrintable(config ? QString() : config.error().toString()));
    auto rest = config->restConfig();
    QVERIFY2(rest, qPrintable(rest ? QString() : rest.error().toString()));
    QCOMPARE(rest->server, QUrl(QStringLiteral("https://127.0.0.1:6443")));
    QCOMPARE(rest->caData, pem("ca.crt"));
    QCOMPARE(rest->clientCertData, pem("client.crt"));
    QCOMPARE(rest->clientKeyData, pem("client.key"));
    QCOMPARE(rest->tlsServerName, QStringLiteral("kubernetes"));
    QCOMPARE(rest->defaultNamespace, QStringLiteral("default"));
    QVERIFY(rest->source.contains(QStringLiteral("context dev")));
}

void tst_KubeConfig::embeddedDataAndToken()
{
    const QByteArray yaml = "current-context: x\n"
                            "clusters: [{name: c, cluster: {server: 'https://k:443', "
                            "certificate-authority-data: "
        + pem("ca.crt").toBase64()
        + "}}]\n"
          "users: [{name: u, user: {token: abc.def}}]\n"
          "contexts: [{name: x, context: {cluster: c, user: u, namespace: team}}]\n";
    auto config = KubeConfig::parse(yaml, QStringLiteral("inline"));
    QVERIFY(config);
    auto rest = config->restConfig();
    QVERIFY2(rest, qPrintable(rest ? QString() : rest.error().toString()));
    QCOMPARE(rest->caData, pem("ca.crt"));
    QCOMPARE(rest->bearerToken, QStringLiteral("abc.def"));
    QCOMPARE(rest->defaultNamespace, QStringLiteral("team"));
}

void tst_KubeConfig::namespaceDefaultAndContextOverride()
{
    auto config = KubeConfig::parse(R"(
current-context: a
clusters: [{name: c, cluster: {server: 'http://127.0.0.1:8080'}}]
contexts:
- {name: a, context: {cluster: c}}
- {name: b, context: {cluster: c, namespace: other}}
)",
        QStringLiteral("inline"));
    QVERIFY(config);
    QCOMPARE(config->restConfig()->defaultNamespace, QStringLiteral("default"));
    QCOMPARE(config->restConfig(QStringLiteral("b"))->defaultNamespace, QStringLiteral("other"));
}

void tst_KubeConfig::mergeFirstFileWins()
{
    const QString first = write(QStringLiteral("first"), R"(
current-context: one
clusters: [{name: shared, cluster: {server: 'https://first:1'}}]
contexts: [{name: one, context: {cluster: shared}}]
)");
    const QString second = write(QStringLiteral("second"), R"(
current-context: two
clusters:
- {name: shared, cluster: {server: 'https://second:2'}}
- {name: only-second, cluster: {server: 'https://second:3'}}
contexts:
- {name: one, context: {cluster: only-second}}
- {name: two, context: {cluster: only-second}}
)");
    auto merged = KubeConfig::load({first, second});
    QVERIFY(merged);
    QCOMPARE(merged->currentContext, QStringLiteral("one"));
    QCOMPARE(
        merged->clusters.value(QStringLiteral("shared")).server, QStringLiteral("https://first:1"));
    QVERIFY(merged->clusters.contains(QStringLiteral("only-second")));
    // The context "one" is the first file's: entries are never merged field by field.
    QCOMPARE(merged->restConfig()->server, QUrl(QStringLiteral("https://first:1")));
    QCOMPARE(merged->restConfig(QStringLiteral("two"))->server,
        QUrl(QStringLiteral("https://second:3")));
    QCOMPARE(merged->files.size(), 2);

    auto reversed = KubeConfig::load({second, first});
    QCOMPARE(reversed->currentContext, QStringLiteral("two"));
    QCOMPARE(reversed->restConfig(QStringLiteral("one"))->server,
        QUrl(QStringLiteral("https://second:3")));
}

void tst_KubeConfig::missingFilesAreSkippedInAList()
{
    const QString real = write(QStringLiteral("real"),
        "current-context: a\nclusters: [{name: c, cluster: {server: 'https://h:1'}}]\n"
        "contexts: [{name: a, context: {cluster: c}}]\n");
    qputenv(
        "KUBECONFIG", (m_dir.filePath(QStringLiteral("nope")) + QLatin1Char(':') + real).toUtf8());
    auto config = KubeConfig::loadFromEnvironment();
    qunsetenv("KUBECONFIG");
    QVERIFY(config);
    QCOMPARE(config->restConfig()->server, QUrl(QStringLiteral("https://h:1")));
    // A single explicit file that does not exist is an error.
    auto missing = KubeConfig::loadFile(m_dir.filePath(QStringLiteral("nope")));
    QVERIFY(!missing);
    QVERIFY(missing.error().toString().contains(QStringLiteral("cannot read the kubeconfig")));
}

void tst_KubeConfig::nameTwiceInOneFileKeepsTheFirst()
{
    auto config = KubeConfig::parse(R"(
clusters:
- {name: c, cluster: {server: 'https://first:1'}}
- {name: c, cluster: {server: 'https://second:2'}}
- {name: d, cluster: 7}
)",
        QStringLiteral("inline"));
    QVERIFY(!config); // a malformed entry is reported even if its name repeats...
    QVERIFY(config.error().toString().contains(
        QStringLiteral("clusters[name=d].cluster: must be a map")));
    config = KubeConfig::parse("clusters:\n- {name: c, cluster: {server: 'https://first:1'}}\n"
                               "- {name: c, cluster: {server: 'https://second:2'}}\n",
        QStringLiteral("inline"));
    QVERIFY(config); // ...and the first definition of a name wins
    QCOMPARE(config->clusters.value(QStringLiteral("c")).server, QStringLiteral("https://first:1"));
}

void tst_KubeConfig::execAndBasicAuth()
{
    const QString path = write(QStringLiteral("execconf/config"), R"(
current-context: e
clusters: [{name: c, cluster: {server: 'https://h:1', insecure-skip-tls-verify: true}}]
users:
- name: plugin
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/get-token
      args: [--cluster, prod]
      env: [{name: MODE, value: test}]
      installHint: install get-token
      provideClusterInfo: true
- name: basic
  user: {username: admin, password: secret}
contexts:
- {name: e, context: {cluster: c, user: plugin}}
- {name: b, context: {cluster: c, user: basic}}
)");
    auto config = KubeConfig::loadFile(path);
    QVERIFY(config);
    auto rest = config->restConfig();
    QVERIFY2(rest, qPrintable(rest ? QString() : rest.error().toString()));
    QVERIFY(rest->insecureSkipTlsVerify);
    QVERIFY(rest->exec.has_value());
    QCOMPARE(rest->exec->command, m_dir.filePath(QStringLiteral("execconf/bin/get-token")));
    QCOMPARE(rest->exec->args, (QStringList {QStringLiteral("--cluster"), QStringLiteral("prod")}));
    QCOMPARE(rest->exec->env.value(0).second, QStringLiteral("test"));
    QVERIFY(rest->exec->provideClusterInfo);
    auto basic = config->restConfig(QStringLiteral("b"));
    QCOMPARE(basic->username, QStringLiteral("admin"));
    QCOMPARE(basic->password, QStringLiteral("secret"));
}

void tst_KubeConfig::errors_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("context");
    QTest::addColumn<QString>("expected");
    const QByteArray base = "clusters: [{name: c, cluster: {server: 'https://h:1'}}]\n";
    QTest::newRow("no current context")
        << base << QString() << QStringLiteral("current-context: no context is selected");
    QTest::newRow("unknown context")
        << QByteArray(base + "contexts: [{name: a, context: {cluster: c}}]\n")
        << QStringLiteral("zz") << QStringLiteral("context \"zz\" does not exist (known: a)");
    QTest::newRow("unknown cluster")
        << QByteArray("current-context: a\ncontexts: [{name: a, context: {cluster: gone}}]\n")
        << QString()
        << QStringLiteral("contexts[name=a].context.cluster: cluster \"gone\" does not exist");
    QTest::newRow("unknown user")
        << QByteArray(base
               + "current-context: a\ncontexts: [{name: a, context: {cluster: c, user: who}}]\n")
        << QString()
        << QStringLiteral("contexts[name=a].context.user: user \"who\" does not exist");
    QTest::newRow("bad base64")
        << QByteArray("clusters: [{name: c, cluster: {server: 'https://h:1', "
                      "certificate-authority-data: '%%%'}}]\n")
        << QString()
        << QStringLiteral(
               "clusters[name=c].cluster.certificate-authority-data: is not valid base64");
    QTest::newRow("CA is not PEM")
        << QByteArray("current-context: a\nclusters: [{name: c, cluster: {server: 'https://h:1', "
                      "certificate-authority-data: "
               + QByteArray("hello").toBase64()
               + "}}]\ncontexts: [{name: a, context: {cluster: c}}]\n")
        << QString() << QStringLiteral("certificate-authority: holds no PEM certificate");
    QTest::newRow("server not a URL")
        << QByteArray("current-context: a\nclusters: [{name: c, cluster: {server: 'ftp://h'}}]\n"
                      "contexts: [{name: a, context: {cluster: c}}]\n")
        << QString()
        << QStringLiteral("clusters[name=c].cluster.server: \"ftp://h\" is not an http(s) URL");
    QTest::newRow("auth provider")
        << QByteArray(base
               + "current-context: a\nusers: [{name: u, user: {auth-provider: {name: gcp}}}]\n"
                 "contexts: [{name: a, context: {cluster: c, user: u}}]\n")
        << QString() << QStringLiteral("auth-provider \"gcp\" is not supported");
    QTest::newRow("bool") << QByteArray(
        "clusters: [{name: c, cluster: {server: 'https://h', insecure-skip-tls-verify: maybe}}]\n")
                          << QString()
                          << QStringLiteral(
                                 "insecure-skip-tls-verify: must be true or false, not \"maybe\"");
    QTest::newRow("list expected") << QByteArray("clusters: {name: c}\n") << QString()
                                   << QStringLiteral("clusters: must be a list");
    QTest::newRow("exec api version")
        << QByteArray(base
               + "current-context: a\nusers: [{name: u, user: {exec: {command: x, apiVersion: "
                 "client.authentication.k8s.io/v1alpha1}}}]\n"
                 "contexts: [{name: a, context: {cluster: c, user: u}}]\n")
        << QString()
        << QStringLiteral(
               "exec.apiVersion: \"client.authentication.k8s.io/v1alpha1\" is not supported");
}

void tst_KubeConfig::errors()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, context);
    QFETCH(QString, expected);
    const QString path = write(QStringLiteral("bad"), yaml);
    auto config = KubeConfig::loadFile(path);
    QString message;
    if (!config)
        message = config.error().toString();
    else if (auto rest = config->restConfig(context); !rest)
        message = rest.error().toString();
    QVERIFY2(message.contains(expected), qPrintable(message));
    QVERIFY2(message.startsWith(path) || message.startsWith(QFileInfo(path).absoluteFilePath()),
        qPrintable(message));
}

void tst_KubeConfig::malformedYamlHasLineAndColumn()
{
    const QString path
        = write(QStringLiteral("broken"), "clusters:\n  - name: c\n    cluster: {server: [\n");
    auto config = KubeConfig::loadFile(path);
    QVERIFY(!config);
    QVERIFY2(config.error().reason.contains(QStringLiteral("malformed YAML at line")),
        qPrintable(config.error().toString()));
    QCOMPARE(config.error().file, QFileInfo(path).absoluteFilePath());
}

void tst_KubeConfig::unreadableCertificateNamesFileAndField()
{
    const QString path = write(QStringLiteral("certconf"), R"(
current-context: a
clusters: [{name: c, cluster: {server: 'https://h:1'}}]
users: [{name: u, user: {client-certificate: /nonexistent/client.crt, client-key: /nonexistent/client.key}}]
contexts: [{name: a, context: {cluster: c, user: u}}]
)");
    auto rest = KubeConfig::loadFile(path)->restConfig();
    QVERIFY(!rest);
    QCOMPARE(rest.error().file, QFileInfo(path).absoluteFilePath());
    QCOMPARE(rest.error().field, QStringLiteral("users[name=u].user.client-certificate"));
    QVERIFY(rest.error().reason.contains(QStringLiteral("cannot read /nonexistent/client.crt")));
}

void tst_KubeConfig::inCluster()
{
    write(QStringLiteral("sa/token"), "token-1\n");
    write(QStringLiteral("sa/ca.crt"), pem("ca.crt"));
    write(QStringLiteral("sa/namespace"), "kube-system");
    qputenv("KUBERNETES_SERVICE_HOST", "fd00::1");
    qputenv("KUBERNETES_SERVICE_PORT", "443");
    auto config = inClusterConfig({m_dir.filePath(QStringLiteral("sa"))});
    qunsetenv("KUBERNETES_SERVICE_HOST");
    qunsetenv("KUBERNETES_SERVICE_PORT");
    QVERIFY2(config, qPrintable(config ? QString() : config.error().toString()));
    QCOMPARE(config->server, QUrl(QStringLiteral("https://[fd00::1]:443")));
    QCOMPARE(config->bearerTokenFile, m_dir.filePath(QStringLiteral("sa/token")));
    QCOMPARE(config->defaultNamespace, QStringLiteral("kube-system"));
    QCOMPARE(config->caData, pem("ca.crt"));
}

void tst_KubeConfig::inClusterErrors()
{
    qunsetenv("KUBERNETES_SERVICE_HOST");
    auto noEnv = inClusterConfig({m_dir.path()});
    QVERIFY(!noEnv);
    QVERIFY(noEnv.error().reason.contains(QStringLiteral("not running in a pod")));
    qputenv("KUBERNETES_SERVICE_HOST", "10.0.0.1");
    qputenv("KUBERNETES_SERVICE_PORT", "443");
    auto noToken = inClusterConfig({m_dir.filePath(QStringLiteral("empty"))});
    qunsetenv("KUBERNETES_SERVICE_HOST");
    qunsetenv("KUBERNETES_SERVICE_PORT");
    QVERIFY(!noToken);
    QCOMPARE(noToken.error().file, m_dir.filePath(QStringLiteral("empty/token")));
}

QTEST_GUILESS_MAIN(tst_KubeConfig)
#include "tst_kubeconfig.moc"
