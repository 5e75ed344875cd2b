// SPDX-License-Identifier: Apache-2.0
// The REST client follows no redirect (sdk/src/client/redirect_p.h, docs/client.md
// "Redirects"): a request or a watch answered with a 3xx ends with that answer, the server it
// points to receives nothing (no bearer token, no body), and the Status names the Location.
// Both watch transports; a second local server on another port plays the other origin.
#include <qcm/client/restclient.h>

#include "fakeserver.h"

#include <QtTest/QtTest>

using namespace qcm::client;
using namespace qcm::unittest;
using namespace std::chrono_literals;

namespace {

const GroupVersionResource ConfigMaps {
    QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};

// A server that answers everything with `code` and Location `to`.
void redirectEverything(FakeServer &server, int code, const QByteArray &to)
{
    server.handler = [code, to](const SeenRequest &) {
        Reply reply;
        reply.code = code;
        reply.headers << qMakePair(QByteArray("Location"), to);
        reply.body = "";
        return reply;
    };
}

RestConfig configFor(const FakeServer &server, RestConfig::WatchTransport transport)
{
    RestConfig config;
    config.server = server.url();
    config.qps = 0;
    config.bearerToken = QStringLiteral("s3cret-token");
    config.watchTransport = transport;
    return config;
}

bool namesTheRedirect(const Status &status, const QString &location)
{
    return status.message.contains(location)
        && status.message.contains(QStringLiteral("follows no redirect"));
}

} // namespace

class tst_Redirects : public QObject
{
    Q_OBJECT

private slots:
    void requestsDoNotFollow_data();
    void requestsDoNotFollow();
    void watchesDoNotFollow_data();
    void watchesDoNotFollow();
    void theLocationIsBoundedAndPrintable();
};

void tst_Redirects::requestsDoNotFollow_data()
{
    QTest::addColumn<QByteArray>("verb");
    QTest::addColumn<int>("code");
    QTest::addColumn<bool>("sameOrigin");
    QTest::newRow("GET 302, another origin") << QByteArray("GET") << 302 << false;
    QTest::newRow("GET 301, the same origin") << QByteArray("GET") << 301 << true;
    QTest::newRow("POST 307, another origin") << QByteArray("POST") << 307 << false;
    QTest::newRow("PUT 308, the same origin") << QByteArray("PUT") << 308 << true;
}

void tst_Redirects::requestsDoNotFollow()
{
    QFETCH(QByteArray, verb);
    QFETCH(int, code);
    QFETCH(bool, sameOrigin);
    FakeServer other;
    FakeServer server;
    const QUrl target = (sameOrigin ? server.url() : other.url())
                            .resolved(QUrl(QStringLiteral("/elsewhere/configmaps")));
    redirectEverything(server, code, target.toString().toUtf8());
    RestClient client(configFor(server, RestConfig::WatchTransport::Dedicated));
    const Response r = client.request(verb, QStringLiteral("/api/v1/namespaces/n/configmaps"), {},
        verb == "GET" ? QByteArray() : QByteArray(R"({"data":1})"), "application/json");
    QCOMPARE(r.code, code);
    QVERIFY(!r.isSuccess());
    QVERIFY2(namesTheRedirect(r.status(), target.toString()), qPrintable(r.status().message));
    QCOMPARE(server.seen().size(), 1); // asked once, and never again at the Location
    QCOMPARE(server.seen().value(0).headers.value("authorization"), "Bearer s3cret-token");
    QTest::qWait(200); // a follow-up, were there one, would have been sent by now
    QCOMPARE(other.seen().size(), 0);
    QCOMPARE(server.seen().size(), 1);
}

void tst_Redirects::watchesDoNotFollow_data()
{
    QTest::addColumn<RestConfig::WatchTransport>("transport");
    QTest::newRow("dedicated") << RestConfig::WatchTransport::Dedicated;
    QTest::newRow("shared") << RestConfig::WatchTransport::Shared;
}

void tst_Redirects::watchesDoNotFollow()
{
    QFETCH(RestConfig::WatchTransport, transport);
    FakeServer other;
    FakeServer server;
    const QString target = other.url().toString() + QStringLiteral("/api/v1/configmaps?watch=1");
    redirectEverything(server, 302, target.toUtf8());
    RestClient client(configFor(server, transport));
    auto watch = client.watch(ConfigMaps, QStringLiteral("n"));
    auto event = watch->next(10s);
    QVERIFY(event);
    QCOMPARE(event->type, WatchEvent::Type::Error);
    QCOMPARE(event->status.code, 302);
    QVERIFY2(namesTheRedirect(event->status, target), qPrintable(event->status.message));
    QVERIFY(!watch->next(10s));
    QVERIFY(watch->isFinished());
    QCOMPARE(other.seen().size(), 0);
    QCOMPARE(server.seen().size(), 1);
}

// The Location is the server's text: at most 512 bytes of it are shown, control characters
// replaced, so that a hostile answer cannot flood or forge the log line.
void tst_Redirects::theLocationIsBoundedAndPrintable()
{
    FakeServer server;
    const QByteArray location = "https://x.example/\x1b[31m" + QByteArray(2000, 'a');
    redirectEverything(server, 303, location);
    RestClient client(configFor(server, RestConfig::WatchTransport::Dedicated));
    const Status status = client.request("GET", QStringLiteral("/api")).status();
    QCOMPARE(status.code, 303);
    QVERIFY2(status.message.contains(QStringLiteral("https://x.example/?[31maaaa")),
        qPrintable(status.message));
    QVERIFY(!status.message.contains(QChar(0x1b)));
    QVERIFY(status.message.contains(QStringLiteral("a...")));
    QVERIFY2(status.message.size() < 800, qPrintable(QString::number(status.message.size())));
}

QTEST_GUILESS_MAIN(tst_Redirects)
#include "tst_redirects.moc"
