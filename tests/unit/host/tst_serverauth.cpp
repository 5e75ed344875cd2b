// SPDX-License-Identifier: Apache-2.0
// The Server with delegated auth, over real TLS, with a stand-in API server for the reviews:
// no credentials is 401 and the health roots stay open; a bearer token or a client certificate
// the client CA signed authenticates; the SubjectAccessReview's denial is 403, its failure 500
// (fail closed); system:masters needs no review; answers on one connection keep the order of
// its requests while a review is pending. The refusals are Status objects, as the API
// server's.
#include "awaitfuture.h"
#include "fakeapiserver.h"
#include "tlstesting.h"

#include "auth/delegatingauthenticator.h"
#include "auth/delegatingauthorizer.h"
#include "serving/server.h"

#include <qcm/client/restclient.h>
#include <qcm/metrics/registry.h>

#include <QtCore/QJsonArray>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::host;
using namespace qcm::host::testing;

class tst_ServerAuth : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void withoutCredentials();
    void bearerToken();
    void clientCertificates();
    void failsClosedWhenTheApiServerFails();
    void unknownPathsAfterAuthorization();
    void answersKeepTheirOrderOnAConnection();
    void requestsAreBounded();

private:
    struct Reply
    {
        int status = 0;
        QByteArray contentType;
        QByteArray body;
    };
    // Sends `requests` (raw HTTP/1.1) on one TLS connection, with `cert` as its client
    // certificate (if any), and reads `expected` answers.
    QList<Reply> exchange(const QByteArray &requests, int expected, const QString &cert = {});
    Reply get(const QString &path, const QByteArray &token = {}, const QString &cert = {});
    bool openssl(const QStringList &arguments);

    QTemporaryDir m_dir;
    bool m_apiServerFails = false;
    std::unique_ptr<FakeApiServer> m_apiServer;
    std::unique_ptr<client::RestClient> m_client;
    std::unique_ptr<DelegatingAuthenticator> m_authn;
    std::unique_ptr<DelegatingAuthorizer> m_authz;
    metrics::Registry m_registry;
    std::unique_ptr<Server> m_server;
};

bool tst_ServerAuth::openssl(const QStringList &arguments)
{
    QProcess p;
    p.setWorkingDirectory(m_dir.path());
    p.start(QStringLiteral("openssl"), arguments);
    return p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

void tst_ServerAuth::initTestCase()
{
    // A client CA, and client certificates: alice (O=team) and root (O=system:masters) from
    // it, mallory from a CA of her own.
    QFile ext(m_dir.filePath(QStringLiteral("client.ext")));
    QVERIFY(ext.open(QIODevice::WriteOnly));
    ext.write("extendedKeyUsage = clientAuth\n");
    ext.close();
    for (const char *ca : {"ca", "other-ca"})
        QVERIFY(openssl({QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"),
            QStringLiteral("rsa:2048"), QStringLiteral("-nodes"), QStringLiteral("-days"),
            QStringLiteral("1"), QStringLiteral("-subj"),
            QStringLiteral("/CN=%1").arg(QLatin1String(ca)), QStringLiteral("-keyout"),
            QStringLiteral("%1.key").arg(QLatin1String(ca)), QStringLiteral("-out"),
            QStringLiteral("%1.crt").arg(QLatin1String(ca))}));
    const struct
    {
        const char *name;
        const char *subject;
        const char *ca;
    } clients[] = {{"alice", "/O=team/CN=alice", "ca"}, {"root", "/O=system:masters/CN=root", "ca"},
        {"mallory", "/O=system:masters/CN=mallory", "other-ca"}};
    for (const auto &c : clients) {
        const QString name = QLatin1String(c.name);
        QVERIFY(openssl({QStringLiteral("req"), QStringLiteral("-newkey"),
            QStringLiteral("rsa:2048"), QStringLiteral("-nodes"), QStringLiteral("-subj"),
            QLatin1String(c.subject), QStringLiteral("-keyout"), name + QStringLiteral(".key"),
            QStringLiteral("-out"), name + QStringLiteral(".csr")}));
        QVERIFY(openssl({QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"),
            name + QStringLiteral(".csr"), QStringLiteral("-CA"),
            QStringLiteral("%1.crt").arg(QLatin1String(c.ca)), QStringLiteral("-CAkey"),
            QStringLiteral("%1.key").arg(QLatin1String(c.ca)), QStringLiteral("-CAcreateserial"),
            QStringLiteral("-days"), QStringLiteral("1"), QStringLiteral("-extfile"),
            QStringLiteral("client.ext"), QStringLiteral("-out"), name + QStringLiteral(".crt")}));
    }
}

void tst_ServerAuth::init()
{
    m_apiServerFails = false;
    m_apiServer = std::make_unique<FakeApiServer>([this](const FakeApiServer::Request &r) {
        if (m_apiServerFails)
            return std::pair<int, QJsonObject>(
                503, {{QStringLiteral("message"), QStringLiteral("down")}});
        const QJsonObject spec = r.body.value(QLatin1String("spec")).toObject();
        QJsonObject status;
        if (r.path.endsWith(QLatin1String("/tokenreviews"))) {
            const bool good = spec.value(QLatin1String("token")) == QLatin1String("scraper-token");
            status = {{QStringLiteral("authenticated"), good}};
            if (good)
                status.insert(QStringLiteral("user"),
                    QJsonObject {{QStringLiteral("username"), QStringLiteral("scraper")},
                        {QStringLiteral("groups"),
                            QJsonArray {QStringLiteral("system:authenticated")}}});
        } else {
            const bool allowed = spec.value(QLatin1String("user")) == QLatin1String("scraper");
            status = {{QStringLiteral("allowed"), allowed}};
            if (!allowed)
                status.insert(QStringLiteral("reason"), QStringLiteral("no RBAC policy matched"));
        }
        return std::pair<int, QJsonObject>(201, {{QStringLiteral("status"), status}});
    });
    client::RestConfig config;
    config.server = m_apiServer->url();
    config.qps = -1;
    m_client = std::make_unique<client::RestClient>(config);
    m_authn = std::make_unique<DelegatingAuthenticator>(
        m_client.get(), DelegatingAuthenticator::Options {});
    QFile ca(m_dir.filePath(QStringLiteral("ca.crt")));
    QVERIFY(ca.open(QIODevice::ReadOnly));
    QVERIFY(!m_authn->x509().setClientCa(ca.readAll(), ca.fileName()));
    m_authz
        = std::make_unique<DelegatingAuthorizer>(m_client.get(), DelegatingAuthorizer::Options {});
    m_server = std::make_unique<Server>(Server::Endpoints {
        {QStringLiteral("healthz"), [] { return QList<HealthCheck> {pingCheck()}; }},
        {QStringLiteral("livez"), [] { return QList<HealthCheck> {pingCheck()}; }},
        {QStringLiteral("readyz"), [] { return QList<HealthCheck> {pingCheck()}; }},
        &m_registry,
        [] {
            return QJsonObject {{QStringLiteral("configz"), true}};
        },
        {},
    });
    m_server->setDelegatedAuth(m_authn.get(), m_authz.get());
    Server::Options options;
    options.bindAddress = QStringLiteral("127.0.0.1");
    QVERIFY(!m_server->listen(options));
}

QList<tst_ServerAuth::Reply> tst_ServerAuth::exchange(
    const QByteArray &requests, int expected, const QString &cert)
{
    QSslSocket socket;
    QSslConfiguration tls = socket.sslConfiguration();
    tls.setPeerVerifyMode(QSslSocket::VerifyNone);
    if (!cert.isEmpty()) {
        tls.setLocalCertificate(
            QSslCertificate::fromPath(m_dir.filePath(cert + QStringLiteral(".crt"))).value(0));
        QFile key(m_dir.filePath(cert + QStringLiteral(".key")));
        if (key.open(QIODevice::ReadOnly))
            tls.setPrivateKey(QSslKey(key.readAll(), QSsl::Rsa));
    }
    socket.setSslConfiguration(tls);
    QByteArray received;
    QList<Reply> replies;
    QEventLoop loop;
    // Cuts complete answers off the front of what was received.
    auto parse = [&] {
        for (;;) {
            const qsizetype end = received.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            Reply r;
            qsizetype length = 0;
            const QList<QByteArray> lines = received.left(end).split('\n');
            r.status = lines.constFirst().split(' ').value(1).toInt();
            for (const QByteArray &line : lines) {
                const QByteArray lower = line.toLower();
                if (lower.startsWith("content-length:"))
                    length = line.mid(15).trimmed().toLongLong();
                if (lower.startsWith("content-type:"))
                    r.contentType = line.mid(13).trimmed();
            }
            if (received.size() < end + 4 + length)
                return;
            r.body = received.mid(end + 4, length);
            received.remove(0, end + 4 + length);
            replies << r;
        }
    };
    connect(&socket, &QSslSocket::encrypted, &loop, [&] { socket.write(requests); });
    connect(&socket, &QSslSocket::readyRead, &loop, [&] {
        received += socket.readAll();
        parse();
        if (replies.size() >= expected)
            loop.quit();
    });
    connect(&socket, &QSslSocket::disconnected, &loop, &QEventLoop::quit);
    QTimer::singleShot(10000, &loop, &QEventLoop::quit);
    socket.connectToHostEncrypted(QStringLiteral("127.0.0.1"), m_server->port());
    loop.exec();
    return replies;
}

tst_ServerAuth::Reply tst_ServerAuth::get(
    const QString &path, const QByteArray &token, const QString &cert)
{
    QByteArray request = "GET " + path.toUtf8() + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    if (!token.isEmpty())
        request += "Authorization: Bearer " + token + "\r\n";
    return exchange(request + "\r\n", 1, cert).value(0);
}

namespace {

QJsonObject json(const QByteArray &body)
{
    return QJsonDocument::fromJson(body).object();
}

} // namespace

void tst_ServerAuth::withoutCredentials()
{
    const Reply r = get(QStringLiteral("/metrics"));
    QCOMPARE(r.status, 401);
    QCOMPARE(r.contentType, QByteArray("application/json"));
    const QJsonObject status = json(r.body);
    QCOMPARE(status.value(QLatin1String("kind")).toString(), QStringLiteral("Status"));
    QCOMPARE(status.value(QLatin1String("reason")).toString(), QStringLiteral("Unauthorized"));
    QCOMPARE(status.value(QLatin1String("code")).toInt(), 401);
    for (const char *path : {"/configz", "/healthz/ping", "/nonexistent"})
        QCOMPARE(get(QLatin1String(path)).status, 401);
    for (const char *path : {"/healthz", "/livez", "/readyz"}) {
        const Reply open = get(QLatin1String(path));
        QCOMPARE(open.status, 200);
        QCOMPARE(open.body, QByteArray("ok"));
    }
    QCOMPARE(m_apiServer->requests().size(), 0); // nothing to review
}

void tst_ServerAuth::bearerToken()
{
    const Reply r = get(QStringLiteral("/configz"), "scraper-token");
    QCOMPARE(r.status, 200);
    QCOMPARE(json(r.body), QJsonObject({{QStringLiteral("configz"), true}}));
    QCOMPARE(get(QStringLiteral("/metrics"), "scraper-token").status, 200);
    QCOMPARE(get(QStringLiteral("/healthz/ping"), "scraper-token").status, 200);
    QCOMPARE(get(QStringLiteral("/configz"), "stolen-token").status, 401);
}

void tst_ServerAuth::clientCertificates()
{
    // alice is authenticated by her certificate and denied by the review.
    const Reply alice = get(QStringLiteral("/metrics"), {}, QStringLiteral("alice"));
    QCOMPARE(alice.status, 403);
    const QJsonObject status = json(alice.body);
    QCOMPARE(status.value(QLatin1String("reason")).toString(), QStringLiteral("Forbidden"));
    QCOMPARE(status.value(QLatin1String("message")).toString(),
        QStringLiteral(
            "forbidden: User \"alice\" cannot get path \"/metrics\": no RBAC policy matched"));
    const FakeApiServer::Request review = m_apiServer->requests().constLast();
    QCOMPARE(review.body.value(QLatin1String("spec")).toObject().value(QLatin1String("groups")),
        QJsonArray {QStringLiteral("team")});
    // root is in system:masters: allowed without a review.
    m_apiServer->clearRequests();
    QCOMPARE(get(QStringLiteral("/metrics"), {}, QStringLiteral("root")).status, 200);
    QCOMPARE(m_apiServer->requests().size(), 0);
    // mallory's certificate claims system:masters, from a CA qcm does not trust.
    QCOMPARE(get(QStringLiteral("/metrics"), {}, QStringLiteral("mallory")).status, 401);
    // A certificate that fails does not hide a good token.
    QCOMPARE(
        get(QStringLiteral("/metrics"), "scraper-token", QStringLiteral("mallory")).status, 200);
}

void tst_ServerAuth::failsClosedWhenTheApiServerFails()
{
    m_apiServerFails = true;
    QTest::ignoreMessage(QtWarningMsg,
        QRegularExpression(QStringLiteral("cannot authenticate a request for /metrics: the "
                                          "TokenReview failed")));
    QCOMPARE(get(QStringLiteral("/metrics"), "scraper-token").status, 401);
    QTest::ignoreMessage(QtWarningMsg,
        QRegularExpression(QStringLiteral("cannot authorize alice for /configz: the "
                                          "SubjectAccessReview failed")));
    const Reply alice = get(QStringLiteral("/configz"), {}, QStringLiteral("alice"));
    QCOMPARE(alice.status, 500);
    QCOMPARE(json(alice.body).value(QLatin1String("reason")).toString(),
        QStringLiteral("InternalError"));
    QCOMPARE(get(QStringLiteral("/readyz")).status, 200);
    QCOMPARE(get(QStringLiteral("/livez")).status, 200);
}

void tst_ServerAuth::unknownPathsAfterAuthorization()
{
    QCOMPARE(get(QStringLiteral("/debug/pprof"), "scraper-token").status, 404);
    const QList<Reply> post = exchange("POST /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                                       "scraper-token\r\nContent-Length: 0\r\n\r\n",
        1);
    QCOMPARE(post.value(0).status, 404);
    // The review was for the verb used.
    QCOMPARE(m_apiServer->requests()
                 .constLast()
                 .body.value(QLatin1String("spec"))
                 .toObject()
                 .value(QLatin1String("nonResourceAttributes"))
                 .toObject()
                 .value(QLatin1String("verb"))
                 .toString(),
        QStringLiteral("post"));
}

void tst_ServerAuth::answersKeepTheirOrderOnAConnection()
{
    // The first request waits for its TokenReview; the second, a health root, is answered at
    // once but written after the first.
    // The TokenReview is released 200 ms after it is first seen held (polled: a TLS handshake
    // under a sanitizer on a loaded machine can outlast any fixed delay), or after 8 s, which
    // fails.
    m_apiServer->hold();
    bool held = false;
    QTimer poll;
    QElapsedTimer waited;
    QElapsedTimer heldFor;
    waited.start();
    connect(&poll, &QTimer::timeout, this, [&] {
        if (!held && m_apiServer->heldAnswers() == 1) {
            held = true;
            heldFor.start();
        }
        if ((held && heldFor.elapsed() >= 200) || waited.elapsed() > 8000) {
            poll.stop();
            m_apiServer->release();
        }
    });
    poll.start(20);
    const QList<Reply> replies
        = exchange("GET /configz HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer scraper-token\r\n\r\n"
                   "GET /livez HTTP/1.1\r\nHost: x\r\n\r\n",
            2);
    QVERIFY2(held, "the /configz request's TokenReview was never held");
    QCOMPARE(replies.size(), 2);
    QCOMPARE(replies.at(0).status, 200);
    QCOMPARE(json(replies.at(0).body), QJsonObject({{QStringLiteral("configz"), true}}));
    QCOMPARE(replies.at(1).status, 200);
    QCOMPARE(replies.at(1).body, QByteArray("ok"));
}

// A request larger than Server::MaxRequestBytes is never read whole (so never held), nor
// answered; the server goes on answering the others.
void tst_ServerAuth::requestsAreBounded()
{
    const QByteArray body(3 * Server::MaxRequestBytes, 'x');
    QElapsedTimer timer;
    timer.start();
    const QList<Reply> big = exchange("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: "
            + QByteArray::number(body.size()) + "\r\n\r\n" + body,
        1);
    QVERIFY(big.isEmpty());
    QVERIFY(timer.elapsed() >= 9000); // the exchange waited out its 10 s
    QCOMPARE(get(QStringLiteral("/livez")).status, 200);
    // Within the bound, a request with a body is read and answered (404 after authentication).
    QCOMPARE(exchange("POST /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer scraper-token\r\n"
                      "Content-Length: 1000\r\n\r\n"
                     + QByteArray(1000, 'x'),
                 1)
                 .value(0)
                 .status,
        404);
}

QTEST_GUILESS_MAIN(tst_ServerAuth)
#include "tst_serverauth.moc"
