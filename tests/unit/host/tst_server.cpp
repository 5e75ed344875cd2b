// SPDX-License-Identifier: Apache-2.0
// The serving endpoints, in process: the Server listens on a free loopback port and the test
// GETs each path with QNetworkAccessManager. Health endpoints follow k8s.io/apiserver's healthz
// (ok, verbose, exclude, reasons withheld at the root, per-check paths); /metrics passes
// `promtool check metrics` with the process metrics and qcm_plugin_state in it; /configz
// never shows a secret; HTTPS serves with a certificate and key, and bad serving options are
// precise errors.
#include "httpget.h"
#include "tlstesting.h"

#include "plugins/pluginhost.h"
#include "plugins/pluginstatemetrics.h"
#include "serving/configz.h"
#include "serving/processmetrics.h"
#include "serving/server.h"
#include "serving/statusz.h"

#include <qcm/client/restconfig.h>
#include <qcm/metrics/builder.h>
#include <qcm/metrics/registry.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtNetwork/QSslCipher>
#include <QtNetwork/QSslSocket>
#include <QtNetwork/QTcpServer>
#include <QtTest/QtTest>

#include <cstdio>

using namespace qcm;
using namespace qcm::host;
using namespace qcm::host::testing;

class tst_Server : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void healthRoot();
    void healthVerboseAndExclude();
    void healthSingleCheck();
    void endpointsAreIndependent();
    void metricsPassPromtool();
    void configzRedactsSecrets();
    void statuszWithoutLeadership();
    void unknownPathsAndMethods();
    void badBindAddress();
    void portInUse();
    void https();
    void tlsErrors_data();
    void tlsErrors();
    void tlsMinVersion();
    void tlsCipherSuites();
    void certificateReloadedFromDisk();

private:
    std::unique_ptr<Server> makeServer();
    QUrl url(const QString &path) const;

    QNetworkAccessManager m_nam;
    QMap<QString, std::optional<QString>> m_health; // name -> failure; in order of the map
    QMap<QString, std::optional<QString>> m_ready;
    metrics::Registry m_registry;
    PluginHost m_plugins;
    QTemporaryDir m_pluginDir;
    ControllerManagerConfig m_config;
    QStringList m_secrets;
    std::unique_ptr<Server> m_server;
};

namespace {

// Server::Options on the loopback address `address`, with what a test sets.
Server::Options options(const QString &address, quint16 port, const QString &cert = {},
    const QString &key = {}, const QString &minVersion = {}, const QStringList &suites = {})
{
    Server::Options o;
    o.bindAddress = address;
    o.port = port;
    o.tlsCertFile = cert;
    o.tlsPrivateKeyFile = key;
    o.tlsMinVersion = minVersion;
    o.tlsCipherSuites = suites;
    return o;
}

QList<HealthCheck> checksOf(const QMap<QString, std::optional<QString>> *failures)
{
    QList<HealthCheck> checks {pingCheck()};
    for (auto it = failures->begin(); it != failures->end(); ++it) {
        const QString name = it.key();
        checks << HealthCheck {name, [failures, name] { return failures->value(name); }};
    }
    return checks;
}

const QString Token = QStringLiteral("s3cr3t-bearer-token-0123456789");
const QString Password = QStringLiteral("hunter2-password");
const QByteArray KeyPem = QByteArrayLiteral("-----BEGIN PRIVATE KEY-----\n"
                                            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n"
                                            "-----END PRIVATE KEY-----\n");

} // namespace

void tst_Server::initTestCase()
{
    for (const char *name : {"fixture-configmaps", "fixture-optional"}) {
        const QString file = QStringLiteral("lib%1.so").arg(QLatin1String(name));
        QVERIFY(QFile::copy(
            QStringLiteral(QCM_FIXTURE_PLUGIN_DIR "/") + file, m_pluginDir.filePath(file)));
    }
    m_plugins.discover({m_pluginDir.path()});
    QCOMPARE(m_plugins.plugins().size(), std::size_t(2));

    metrics::buildCounter()
        .name(QStringLiteral("qcm_test_requests_total"))
        .help(QStringLiteral("Requests in the test."))
        .registerIn(m_registry)
        .add({{QStringLiteral("code"), QStringLiteral("200")}})
        .increment(3);
    m_registry.registerCollectable(std::make_shared<ProcessMetrics>());
    m_registry.registerCollectable(std::make_shared<PluginStateMetrics>(m_plugins));

    client::RestConfig rest;
    rest.bearerToken = Token;
    rest.password = Password;
    rest.clientKeyData = KeyPem;
    m_secrets = secretsOf(rest);
    m_config.kubeconfig = QStringLiteral("/etc/kubernetes/controller-manager.conf");
    m_config.master = QStringLiteral("https://admin:%1@10.0.0.1:6443").arg(Password);
    m_config.leaderElection.mode = LeaderElectionMode::Rejoin;
    m_config.scaleOutGroup = QStringLiteral("controllers");
    ControllerConfig entry;
    entry.workers = 3;
    entry.shards = ShardMode::Auto;
    entry.settings = {
        {QStringLiteral("labelSelector"), QStringLiteral("app=web")},
        {QStringLiteral("password"), QStringLiteral("plain-password-in-settings")},
        {QStringLiteral("webhook"),
            QVariantMap {{QStringLiteral("url"), QStringLiteral("https://hooks.example")},
                {QStringLiteral("apiKey"), QStringLiteral("an-api-key-value")},
                {QStringLiteral("Authorization"), QStringLiteral("Basic abcdefgh")}}},
        {QStringLiteral("note"), QStringLiteral("the token is %1, do not tell").arg(Token)},
        {QStringLiteral("certs"),
            QVariantList {QString::fromLatin1(KeyPem), QString::fromLatin1(KeyPem.toBase64())}},
        {QStringLiteral("replicas"), qint64(2)},
    };
    m_config.controllerConfig.insert(QStringLiteral("fixture-configmaps"), entry);

    // The paths' contents over plain HTTP; TLS itself below and in tst_servingcert.
    m_server = makeServer();
    Server::Options plain;
    plain.bindAddress = QStringLiteral("127.0.0.1");
    plain.insecurePlainHttp = true;
    QTest::ignoreMessage(QtWarningMsg,
        QRegularExpression(QStringLiteral("--insecure-plain-http: serving plain HTTP")));
    const std::optional<Error> error = m_server->listen(plain);
    QVERIFY2(!error, error ? qPrintable(error->toString()) : "");
    QVERIFY(m_server->port() != 0);
    QVERIFY(!m_server->isTls());
}

std::unique_ptr<Server> tst_Server::makeServer()
{
    return std::make_unique<Server>(Server::Endpoints {
        {QStringLiteral("healthz"), [this] { return checksOf(&m_health); }},
        {QStringLiteral("livez"), [] { return QList<HealthCheck> {pingCheck()}; }},
        {QStringLiteral("readyz"), [this] { return checksOf(&m_ready); }},
        &m_registry,
        [this] { return configzJson(m_config, m_secrets); },
        [this] { return statuszJson(m_config, m_plugins, nullptr, nullptr); },
    });
}

QUrl tst_Server::url(const QString &path) const
{
    return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_server->port()).arg(path));
}

void tst_Server::healthRoot()
{
    m_health = {{QStringLiteral("alpha"), std::nullopt}, {QStringLiteral("beta"), std::nullopt}};
    HttpResult r = httpGet(m_nam, url(QStringLiteral("/healthz")));
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body, QByteArray("ok"));
    QCOMPARE(r.contentType, QByteArray("text/plain; charset=utf-8"));
    QCOMPARE(r.header("X-Content-Type-Options"), QByteArray("nosniff"));

    m_health[QStringLiteral("beta")] = QStringLiteral("the beta reason");
    r = httpGet(m_nam, url(QStringLiteral("/healthz")));
    QCOMPARE(r.status, 500);
    // As k8s.io/apiserver: every check listed, the reason withheld from the public root.
    QCOMPARE(r.body,
        QByteArray("[+]ping ok\n[+]alpha ok\n[-]beta failed: reason withheld\nhealthz check "
                   "failed\n"));
}

void tst_Server::healthVerboseAndExclude()
{
    m_health = {{QStringLiteral("alpha"), std::nullopt},
        {QStringLiteral("beta"), QStringLiteral("broken")}};
    HttpResult r = httpGet(m_nam, url(QStringLiteral("/healthz?exclude=beta&verbose")));
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body,
        QByteArray("[+]ping ok\n[+]alpha ok\n[+]beta excluded: ok\nhealthz check passed\n"));

    r = httpGet(m_nam, url(QStringLiteral("/healthz?exclude=beta&exclude=gamma")));
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body, QByteArray("ok"));

    m_health[QStringLiteral("beta")] = std::nullopt;
    r = httpGet(m_nam, url(QStringLiteral("/healthz?verbose=1&exclude=gamma")));
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body,
        QByteArray("[+]ping ok\n[+]alpha ok\n[+]beta ok\nwarn: some health checks cannot be "
                   "excluded: no matches for \"gamma\"\nhealthz check passed\n"));
}

void tst_Server::healthSingleCheck()
{
    m_health = {{QStringLiteral("alpha"), std::nullopt},
        {QStringLiteral("beta"), QStringLiteral("the beta reason")}};
    HttpResult r = httpGet(m_nam, url(QStringLiteral("/healthz/alpha")));
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body, QByteArray("ok"));
    r = httpGet(m_nam, url(QStringLiteral("/healthz/beta")));
    QCOMPARE(r.status, 500);
    QCOMPARE(r.body, QByteArray("internal server error: the beta reason\n"));
    r = httpGet(m_nam, url(QStringLiteral("/healthz/ping")));
    QCOMPARE(r.status, 200);
    r = httpGet(m_nam, url(QStringLiteral("/healthz/gamma")));
    QCOMPARE(r.status, 404);
}

void tst_Server::endpointsAreIndependent()
{
    m_health = {{QStringLiteral("alpha"), QStringLiteral("down")}};
    m_ready = {{QStringLiteral("informer-sync"), QStringLiteral("not synced")}};
    QCOMPARE(httpGet(m_nam, url(QStringLiteral("/healthz"))).status, 500);
    QCOMPARE(httpGet(m_nam, url(QStringLiteral("/livez"))).status, 200);
    HttpResult r = httpGet(m_nam, url(QStringLiteral("/readyz")));
    QCOMPARE(r.status, 500);
    QVERIFY2(r.body.endsWith("readyz check failed\n"), r.body.constData());
    QCOMPARE(httpGet(m_nam, url(QStringLiteral("/readyz/informer-sync"))).body,
        QByteArray("internal server error: not synced\n"));
    m_ready[QStringLiteral("informer-sync")] = std::nullopt;
    QCOMPARE(httpGet(m_nam, url(QStringLiteral("/readyz"))).status, 200);
    QCOMPARE(httpGet(m_nam, url(QStringLiteral("/livez/ping"))).status, 200);
}

void tst_Server::metricsPassPromtool()
{
    const HttpResult r = httpGet(m_nam, url(QStringLiteral("/metrics")));
    QCOMPARE(r.status, 200);
    QCOMPARE(r.contentType, QByteArray("text/plain; version=0.0.4; charset=utf-8"));
    const QString text = QString::fromUtf8(r.body);
    for (const char *line :
        {"# TYPE process_cpu_seconds_total counter", "# TYPE process_resident_memory_bytes gauge",
            "# TYPE process_open_fds gauge", "# TYPE process_max_fds gauge",
            "# TYPE process_start_time_seconds gauge", "# TYPE process_virtual_memory_bytes gauge",
            "# TYPE process_virtual_memory_max_bytes gauge", "# TYPE qcm_plugin_state gauge",
            "qcm_plugin_state{plugin=\"fixture-configmaps\",state=\"discovered\"} 1",
            "qcm_plugin_state{plugin=\"fixture-configmaps\",state=\"running\"} 0",
            "qcm_plugin_state{plugin=\"fixture-optional\",state=\"failed\"} 0",
            "qcm_plugin_state{plugin=\"fixture-optional\",state=\"quarantined\"} 0",
            "qcm_test_requests_total{code=\"200\"} 3"}) {
        QVERIFY2(text.contains(QLatin1String(line)), line);
    }
    // 8 states for each of the 2 plugins.
    QCOMPARE(text.count(QRegularExpression(
                 QStringLiteral("^qcm_plugin_state\\{"), QRegularExpression::MultilineOption)),
        16);

    const QString promtool = QStringLiteral(QCM_PROMTOOL);
    QVERIFY2(!promtool.isEmpty(), "promtool is not installed (scripts/setup.sh installs it)");
    QProcess check;
    check.start(promtool, {QStringLiteral("check"), QStringLiteral("metrics")});
    QVERIFY(check.waitForStarted());
    check.write(r.body);
    check.closeWriteChannel();
    QVERIFY(check.waitForFinished(30000));
    const QByteArray out = check.readAllStandardOutput() + check.readAllStandardError();
    QVERIFY2(check.exitCode() == 0 && out.trimmed().isEmpty(), (out + "\n" + r.body).constData());
}

void tst_Server::configzRedactsSecrets()
{
    const HttpResult r = httpGet(m_nam, url(QStringLiteral("/configz")));
    QCOMPARE(r.status, 200);
    QCOMPARE(r.contentType, QByteArray("application/json"));
    for (const QString &secret : {Token, Password, QStringLiteral("plain-password-in-settings"),
             QStringLiteral("an-api-key-value"), QStringLiteral("Basic abcdefgh"),
             QStringLiteral("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"),
             QString::fromLatin1(KeyPem.toBase64())}) {
        QVERIFY2(!r.body.contains(secret.toUtf8()), qPrintable(secret));
    }
    const QJsonObject config = QJsonDocument::fromJson(r.body)
                                   .object()
                                   .value(QStringLiteral("controllermanager.qcm.io"))
                                   .toObject();
    QCOMPARE(config.value(QStringLiteral("kind")).toString(),
        QStringLiteral("ControllerManagerConfiguration"));
    QCOMPARE(config.value(QStringLiteral("kubeconfig")).toString(),
        QStringLiteral("/etc/kubernetes/controller-manager.conf"));
    QCOMPARE(config.value(QStringLiteral("master")).toString(),
        QStringLiteral("https://[redacted]@10.0.0.1:6443"));
    const QJsonObject le = config.value(QStringLiteral("leaderElection")).toObject();
    QCOMPARE(le.value(QStringLiteral("mode")).toString(), QStringLiteral("rejoin"));
    QCOMPARE(le.value(QStringLiteral("leaseDuration")).toString(), QStringLiteral("15s"));
    QCOMPARE(le.value(QStringLiteral("releaseOnCancel")).toBool(), true);
    QCOMPARE(config.value(QStringLiteral("serving"))
                 .toObject()
                 .value(QStringLiteral("securePort"))
                 .toInt(),
        10257);
    QCOMPARE(config.value(QStringLiteral("minResyncPeriod")).toString(), QStringLiteral("12h0m0s"));
    const QJsonObject entry = config.value(QStringLiteral("controllerConfig"))
                                  .toObject()
                                  .value(QStringLiteral("fixture-configmaps"))
                                  .toObject();
    QCOMPARE(entry.value(QStringLiteral("workers")).toInt(), 3);
    QCOMPARE(entry.value(QStringLiteral("shards")).toString(), QStringLiteral("auto"));
    QCOMPARE(config.value(QStringLiteral("scaleOut")).toObject().value(u"group").toString(),
        QStringLiteral("controllers"));
    const QJsonObject settings = entry.value(QStringLiteral("settings")).toObject();
    QCOMPARE(settings.value(QStringLiteral("labelSelector")).toString(), QStringLiteral("app=web"));
    QCOMPARE(settings.value(QStringLiteral("replicas")).toInt(), 2);
    QCOMPARE(settings.value(QStringLiteral("password")).toString(), QStringLiteral("[redacted]"));
    const QJsonObject webhook = settings.value(QStringLiteral("webhook")).toObject();
    QCOMPARE(
        webhook.value(QStringLiteral("url")).toString(), QStringLiteral("https://hooks.example"));
    QCOMPARE(webhook.value(QStringLiteral("apiKey")).toString(), QStringLiteral("[redacted]"));
    QCOMPARE(
        webhook.value(QStringLiteral("Authorization")).toString(), QStringLiteral("[redacted]"));
    QCOMPARE(settings.value(QStringLiteral("note")).toString(),
        QStringLiteral("the token is [redacted], do not tell"));
    const QJsonArray certs = settings.value(QStringLiteral("certs")).toArray();
    QCOMPARE(certs.at(0).toString().trimmed(), QStringLiteral("[redacted]"));
    QCOMPARE(certs.at(1).toString(), QStringLiteral("[redacted]"));
}

// Leader election and scale-out off: both null, no identity; each plugin's controller by name
// and state, with no keysOwned since none runs sharded.
void tst_Server::statuszWithoutLeadership()
{
    const HttpResult r = httpGet(m_nam, url(QStringLiteral("/statusz")));
    QCOMPARE(r.status, 200);
    QCOMPARE(r.contentType, QByteArray("application/json"));
    const QJsonObject status = QJsonDocument::fromJson(r.body).object();
    QVERIFY(status.value(QStringLiteral("leaderElection")).isNull());
    QVERIFY(status.value(QStringLiteral("scaleOut")).isNull());
    QVERIFY(!status.contains(QStringLiteral("identity")));
    const QJsonArray expected {
        QJsonObject {{QStringLiteral("name"), QStringLiteral("fixture-configmaps")},
            {QStringLiteral("state"), QStringLiteral("discovered")}},
        QJsonObject {{QStringLiteral("name"), QStringLiteral("fixture-optional")},
            {QStringLiteral("state"), QStringLiteral("discovered")}},
    };
    QCOMPARE(status.value(QStringLiteral("controllers")).toArray(), expected);
}

void tst_Server::unknownPathsAndMethods()
{
    HttpResult r = httpGet(m_nam, url(QStringLiteral("/debug/pprof")));
    QCOMPARE(r.status, 404);
    QCOMPARE(r.body, QByteArray("404 page not found\n"));
    QNetworkRequest post(url(QStringLiteral("/metrics")));
    post.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("text/plain"));
    QNetworkReply *reply = m_nam.post(post, QByteArrayLiteral("x"));
    QTRY_VERIFY(reply->isFinished());
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 404);
    reply->deleteLater();
}

void tst_Server::badBindAddress()
{
    auto server = makeServer();
    const std::optional<Error> error = server->listen(options(QStringLiteral("localhost:80"), 0));
    QVERIFY(error);
    QCOMPARE(
        error->toString(), QStringLiteral("--bind-address: \"localhost:80\" is not an IP address"));
}

void tst_Server::portInUse()
{
    QTcpServer taken;
    QVERIFY(taken.listen(QHostAddress::LocalHost));
    auto server = makeServer();
    const std::optional<Error> error
        = server->listen(options(QStringLiteral("127.0.0.1"), taken.serverPort()));
    QVERIFY(error);
    QCOMPARE(error->field, QStringLiteral("--secure-port"));
    QVERIFY2(error->reason.startsWith(
                 QStringLiteral("cannot listen on 127.0.0.1:%1: ").arg(taken.serverPort())),
        qPrintable(error->reason));
}

void tst_Server::https()
{
    QTemporaryDir dir;
    QVERIFY(makeCertificate(dir.path()));
    auto server = makeServer();
    const std::optional<Error> error = server->listen(options(QStringLiteral("127.0.0.1"), 0,
        dir.filePath(QStringLiteral("tls.crt")), dir.filePath(QStringLiteral("tls.key"))));
    QVERIFY2(!error, error ? qPrintable(error->toString()) : "");
    QVERIFY(server->isTls());
    const QString base = QStringLiteral("127.0.0.1:%1/livez").arg(server->port());
    const HttpResult r = httpGet(m_nam, QUrl(QStringLiteral("https://") + base), true);
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body, QByteArray("ok"));
    // Plain HTTP to the HTTPS port gets no HTTP answer.
    const HttpResult plain = httpGet(m_nam, QUrl(QStringLiteral("http://") + base));
    QCOMPARE(plain.status, 0);
}

void tst_Server::tlsErrors_data()
{
    QTest::addColumn<QString>("cert"); // "good", "missing", "garbage", or empty
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("message"); // %1: the directory
    QTest::newRow("cert without key") << "good"
                                      << ""
                                      << "--tls-private-key-file: is needed with --tls-cert-file";
    QTest::newRow("key without cert") << ""
                                      << "good"
                                      << "--tls-cert-file: is needed with --tls-private-key-file";
    QTest::newRow("unreadable cert")
        << "missing"
        << "good"
        << "%1/missing: --tls-cert-file: cannot read the certificate: No such file or directory";
    QTest::newRow("not a certificate") << "garbage"
                                       << "good"
                                       << "%1/garbage: --tls-cert-file: holds no PEM certificate";
    QTest::newRow("not a key") << "good"
                               << "garbage"
                               << "%1/garbage: --tls-private-key-file: holds no unencrypted PEM "
                                  "private key (RSA, EC or DSA)";
}

void tst_Server::tlsErrors()
{
    QFETCH(QString, cert);
    QFETCH(QString, key);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(makeCertificate(dir.path()));
    QFile garbage(dir.filePath(QStringLiteral("garbage")));
    QVERIFY(garbage.open(QIODevice::WriteOnly));
    garbage.write("not PEM at all\n");
    garbage.close();
    auto path = [&](const QString &which, const char *good) {
        if (which.isEmpty())
            return QString();
        return dir.filePath(which == QLatin1String("good") ? QLatin1String(good) : which);
    };
    auto server = makeServer();
    const std::optional<Error> error = server->listen(
        options(QStringLiteral("127.0.0.1"), 0, path(cert, "tls.crt"), path(key, "tls.key")));
    QVERIFY(error);
    QCOMPARE(error->toString(), message.arg(dir.path()));
    QCOMPARE(server->port(), quint16(0));
}

// --tls-min-version: VersionTLS13 refuses a client that offers TLS 1.2 only; VersionTLS12
// serves both.
void tst_Server::tlsMinVersion()
{
    QTemporaryDir dir;
    QVERIFY(makeCertificate(dir.path()));
    const QString cert = dir.filePath(QStringLiteral("tls.crt"));
    const QString key = dir.filePath(QStringLiteral("tls.key"));
    auto tls13 = makeServer();
    QVERIFY(!tls13->listen(
        options(QStringLiteral("127.0.0.1"), 0, cert, key, QStringLiteral("VersionTLS13"))));
    QVERIFY(!handshake(tls13->port(), QSsl::TlsV1_2).ok);
    const Handshake h13 = handshake(tls13->port(), QSsl::TlsV1_3);
    QVERIFY(h13.ok);
    QCOMPARE(h13.cipher.protocol(), QSsl::TlsV1_3);
    auto tls12 = makeServer();
    QVERIFY(!tls12->listen(
        options(QStringLiteral("127.0.0.1"), 0, cert, key, QStringLiteral("VersionTLS12"))));
    QVERIFY(handshake(tls12->port(), QSsl::TlsV1_2).ok);
    QVERIFY(handshake(tls12->port(), QSsl::TlsV1_3).ok);
}

// --tls-cipher-suites: a TLS 1.2 client gets the one suite allowed, by its IANA name, and one
// that offers only another suite is refused.
void tst_Server::tlsCipherSuites()
{
    QTemporaryDir dir;
    QVERIFY(makeCertificate(dir.path()));
    auto server = makeServer();
    QVERIFY(!server->listen(options(QStringLiteral("127.0.0.1"), 0,
        dir.filePath(QStringLiteral("tls.crt")), dir.filePath(QStringLiteral("tls.key")), QString(),
        {QStringLiteral("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384")})));
    const Handshake h = handshake(server->port(), QSsl::TlsV1_2);
    QVERIFY(h.ok);
    QCOMPARE(h.cipher.name(), QStringLiteral("ECDHE-RSA-AES256-GCM-SHA384"));
    QVERIFY(!handshake(
        server->port(), QSsl::TlsV1_2, {QSslCipher(QStringLiteral("ECDHE-RSA-AES128-GCM-SHA256"))})
                 .ok);
}

// A renewed certificate written over the files is served to the next connections without a
// restart; a broken pair written next is refused and the last good one kept.
void tst_Server::certificateReloadedFromDisk()
{
    QTemporaryDir dir;
    QTemporaryDir next;
    QVERIFY(makeCertificate(dir.path()));
    QVERIFY(makeCertificate(next.path()));
    const QString cert = dir.filePath(QStringLiteral("tls.crt"));
    const QString key = dir.filePath(QStringLiteral("tls.key"));
    auto server = makeServer();
    QVERIFY(!server->listen(options(QStringLiteral("127.0.0.1"), 0, cert, key)));
    QSignalSpy reloaded(server.get(), &Server::certificateReloaded);
    const QSslCertificate first = handshake(server->port(), QSsl::TlsV1_2).certificate;
    QVERIFY(!first.isNull());

    // Renewed as cert-manager or a Secret volume does it: new files renamed into place.
    for (const char *name : {"tls.key", "tls.crt"}) {
        const QString target = dir.filePath(QLatin1String(name));
        QVERIFY(QFile::copy(next.filePath(QLatin1String(name)), target + QStringLiteral(".new")));
        QVERIFY(std::rename(QFile::encodeName(target + QStringLiteral(".new")).constData(),
                    QFile::encodeName(target).constData())
            == 0);
    }
    QTRY_VERIFY_WITH_TIMEOUT(!reloaded.isEmpty(), 10000);
    QCOMPARE(reloaded.last().at(0).toBool(), true);
    const QSslCertificate second = handshake(server->port(), QSsl::TlsV1_2).certificate;
    QVERIFY(!second.isNull());
    QVERIFY(second != first);
    QCOMPARE(second.serialNumber(), QSslCertificate::fromPath(cert).constFirst().serialNumber());

    // A key that is not one: logged, and the renewed pair stays.
    reloaded.clear();
    QFile garbage(key);
    QVERIFY(garbage.open(QIODevice::WriteOnly | QIODevice::Truncate));
    garbage.write("not a key\n");
    garbage.close();
    QTest::ignoreMessage(QtWarningMsg,
        QRegularExpression(QStringLiteral("the serving certificate changed on disk but cannot be "
                                          "used; serving the previous one: .*holds no unencrypted "
                                          "PEM private key")));
    QTRY_VERIFY_WITH_TIMEOUT(!reloaded.isEmpty(), 10000);
    QCOMPARE(reloaded.last().at(0).toBool(), false);
    QCOMPARE(handshake(server->port(), QSsl::TlsV1_2).certificate, second);
}

QTEST_GUILESS_MAIN(tst_Server)
#include "tst_server.moc"
