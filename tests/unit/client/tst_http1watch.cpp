// SPDX-License-Identifier: Apache-2.0
// The dedicated watch transport (RestConfig::WatchTransport::Dedicated, Http1WatchReply)
// against a scripted HTTP/1.1 server: the request it sends, events as the chunks arrive, the
// server's refusals, broken and malformed responses, stop(), a lost connection, and the
// client's destruction. (The real apiserver, over TLS: tests/e2e/client.)
#include <qcm/client/restclient.h>
#include <qcm/version.h>

#include "fakeserver.h"

#include <QtTest/QtTest>

using namespace qcm::client;
using namespace qcm::unittest;
using namespace std::chrono_literals;

namespace {

const GroupVersionResource ConfigMaps {
    QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};

QByteArray added(const char *name)
{
    return QByteArray(R"({"type":"ADDED","object":{"metadata":{"name":")") + name + R"("}}})"
        + "\n";
}

RestConfig dedicated(const FakeServer &server)
{
    RestConfig config;
    config.server = server.url();
    config.qps = 0;
    config.watchTransport = RestConfig::WatchTransport::Dedicated;
    return config;
}

// The watch's events until it finishes (or 10 s pass without one), as "name" or "ERROR
// reason: message".
QStringList drain(Watch &watch)
{
    QStringList out;
    while (auto event = watch.next(10s)) {
        if (event->type == WatchEvent::Type::Error)
            out << QStringLiteral("ERROR %1: %2").arg(event->status.reason, event->status.message);
        else
            out << event->object.name();
    }
    return out;
}

} // namespace

class tst_Http1Watch : public QObject
{
    Q_OBJECT

private slots:
    void theRequest();
    void eventsAsTheChunksArrive();
    void anEventSplitAcrossChunks();
    void refusedWithAStatus();
    void droppedMidStream();
    void malformedResponse();
    void connectionRefused();
    void headerWithALineBreakIsNotSent();
    void errorBodyOverTheLimit();
    void stopEndsItWithoutAnError();
    void aSilentConnectionIsLost();
    void watchTrafficDoesNotHideADeadRequestConnection();
    void aWatchConnectionsBreakMakesNoOtherSuspect();
    void destroyingTheClientEndsIt();
};

void tst_Http1Watch::theRequest()
{
    FakeServer server;
    server.handler = [](const SeenRequest &) { return Reply {200, {}, added("a")}; };
    RestConfig config = dedicated(server);
    config.bearerToken = QStringLiteral("secret");
    RestClient client(config);
    ListOptions options;
    options.resourceVersion = QStringLiteral("12");
    options.labelSelector = QStringLiteral("app=x+y");
    auto watch = client.watch(ConfigMaps, QStringLiteral("n"), options);
    QCOMPARE(drain(*watch), QStringList {QStringLiteral("a")});
    QVERIFY(!watch->usedHttp2());
    const QList<SeenRequest> seen = server.seen();
    QCOMPARE(seen.size(), 1);
    const SeenRequest &r = seen.first();
    QCOMPARE(r.method, QByteArray("GET"));
    QVERIFY2(r.path.startsWith("/api/v1/namespaces/n/configmaps?"), r.path.constData());
    QVERIFY2(r.path.contains("watch=true"), r.path.constData());
    QVERIFY2(r.path.contains("resourceVersion=12"), r.path.constData());
    QVERIFY2(r.path.contains("labelSelector=app%3Dx%2By"), r.path.constData());
    QCOMPARE(r.headers.value("host"), server.url().authority().toLatin1());
    QCOMPARE(r.headers.value("authorization"), QByteArray("Bearer secret"));
    QCOMPARE(r.headers.value("connection"), QByteArray("close"));
    QCOMPARE(r.headers.value("user-agent"), QByteArray("qcm/" QCM_VERSION_STRING));
    QCOMPARE(r.headers.value("accept"), QByteArray("application/json"));
    QVERIFY(!r.headers.contains("accept-encoding")); // the parser reads no content coding
}

void tst_Http1Watch::eventsAsTheChunksArrive()
{
    FakeServer server;
    server.handler = [](const SeenRequest &) {
        Reply reply;
        reply.chunks = {added("a"), added("b"), added("c")};
        reply.intervalMs = 400;
        return reply;
    };
    RestClient client(dedicated(server));
    auto watch = client.watch(ConfigMaps, QStringLiteral("n"));
    auto first = watch->next(10s);
    QVERIFY(first);
    QCOMPARE(first->object.name(), QStringLiteral("a"));
    QVERIFY2(!watch->isFinished(), "the first event waited for the end of the stream");
    QCOMPARE(drain(*watch), (QStringList {QStringLiteral("b"), QStringLiteral("c")}));
    QVERIFY(watch->isFinished()); // the last chunk ends it, without an error
}

void tst_Http1Watch::anEventSplitAcrossChunks()
{
    FakeServer server;
    server.handler = [](const SeenRequest &) {
        const QByteArray two = added("one") + added("two");
        Reply reply;
        reply.chunks = {two.first(5), two.sliced(5, 30), two.sliced(35)};
        reply.intervalMs = 20;
        return reply;
    };
    RestClient client(dedicated(server));
    auto watch = client.watch(ConfigMaps, QStringLiteral("n"));
    QCOMPARE(drain(*watch), (QStringList {QStringLiteral("one"), QStringLiteral("two")}));
}

void tst_Http1Watch::refusedWithAStatus()
{
    FakeServer server;
    server.handler = [](const SeenRequest &) {
        return Reply {410, {},
            R"json({"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 5 (9)","reason":"Expired","code":410})json"};
    };
    RestClient client(dedicated(server));
    auto watch = client.watch(ConfigMaps, QStringLiteral("n"));
    auto event = watch->next(10s);
    QVERIFY(event);
    QCOMPARE(event->type, WatchEvent::Type::Error);
    QCOMPARE(event->status.code, 410);
    QVERIFY(event->status.isResourceExpired());
    QCOMPARE(event->status.message, QStringLiteral("too old resource version: 5 (9)"));
    QVERIFY(!watch->next(10s));
    QVERIFY(watch->isFinished());
}

void tst_Http1Watch::droppedMidStream()
{
    FakeServer server;
    server.handler = [](const SeenRequest &) {
        Reply reply;
        reply.chunks = {added("a"), added("b")};
        reply.intervalMs = 50;
        reply.dropAfterChunks = true;
        return reply;
    };
    RestClient client(dedicated(server));
    auto watch = client.watch(ConfigMaps, QStringLiteral("n"));
    // As over the shared transport (and client-go's StreamWatcher): a stream that breaks after
    // its 200 ends the watch with the events it carried; the reflector starts a new one.
    QCOMPARE(drain(*watch), (QStringList {QStringLiteral("a"), QStringLiteral("b")}));
    QVERIFY(watch->isFinished());
}

void tst_Http1Watch::malformedResponse()
{
    FakeServer server;
    server.handler = [](const SeenRequest &) {
        Reply reply;
        reply.raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nxxxx";
        return reply;
    };
    RestClient client(dedicated(server));
    auto watch = client.watch(ConfigMaps, QStringLiteral("n"));
    const QStringList events = drain(*watch);
    QCOMPARE(events.size(), 1);
    const QString expected = QStringLiteral(
        "ERROR TransportError: malformed HTTP/1.1 response from %1: the response's "
        "Transfer-Encoding \"gzip\" is not chunked, the only coding read")
                                 .arg(server.url().authority());
    QCOMPARE(events.first(), expected);
}

void tst_Http1Watch::connectionRefused()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    RestConfig config;
    config.server = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(probe.serverPort()));
    config.watchTransport = RestConfig::WatchTransport::Dedicated;
    probe.close();
    RestClient client(config);
    auto watch = client.watch(ConfigMaps, QStringLiteral("n"));
    const QStringList events = drain(*watch);
    QCOMPARE(events.size(), 1);
    QVERIFY2(events.first().startsWith(QStringLiteral("ERROR ConnectionRefused: ")),
        qPrintable(events.first()));
}

void tst_Http1Watch::headerWithALineBreakIsNotSent()
{
    FakeServer server;
    RestConfig config = dedicated(server);
    config.bearerToken = QStringLiteral("t\r\nX-Injected: 1");
    RestClient client(config);
    auto watch = client.watch(ConfigMaps, QStringLiteral("n"));
    const QStringList events = drain(*watch);
    QCOMPARE(events.size(), 1);
    QVERIFY2(events.first().contains(QStringLiteral("holds a line break or NUL; not sent")),
        qPrintable(events.first()));
    QVERIFY(server.seen().isEmpty());
}

void tst_Http1Watch::errorBodyOverTheLimit()
{
    FakeServer server;
    server.handler = [](const SeenRequest &) {
        Reply reply;
        reply.code = 403;
        reply.chunks = {QByteArray(600, 'x'), QByteArray(600, 'y')};
        reply.intervalMs = 200;
        return reply;
    };
    RestConfig config = dedicated(server);
    config.maxResponseBytes = 1000;
    RestClient client(config);
    auto watch = client.watch(ConfigMaps, QStringLiteral("n"));
    auto event = watch->next(10s);
    QVERIFY(event);
    QCOMPARE(event->type, WatchEvent::Type::Error);
    QCOMPARE(event->status.code, 403);
    QVERIFY2(!event->status.message.contains(QLatin1Char('y')), qPrintable(event->status.message));
    QVERIFY(!watch->next(10s));
}

void tst_Http1Watch::stopEndsItWithoutAnError()
{
    FakeServer server;
    server.handler = [](const SeenRequest &) {
        Reply reply;
        reply.chunks = {added("a"), added("late")};
        reply.intervalMs = 5000;
        return reply;
    };
    RestClient client(dedicated(server));
    auto watch = client.watch(ConfigMaps, QStringLiteral("n"));
    auto first = watch->next(10s);
    QVERIFY(first && first->object.name() == QLatin1String("a"));
    watch->stop();
    QTRY_VERIFY_WITH_TIMEOUT(watch->isFinished(), 3000);
    QVERIFY(!watch->next(100ms));
}

void tst_Http1Watch::aSilentConnectionIsLost()
{
    FakeServer server;
    server.handler = [](const SeenRequest &) { return Reply {200, {}, {}, true}; }; // hangs
    RestConfig config = dedicated(server);
    config.readIdleTimeout = 300ms;
    config.pingTimeout = 200ms;
    RestClient client(config);
    auto watch = client.watch(ConfigMaps, QStringLiteral("n"));
    const QStringList events = drain(*watch);
    QCOMPARE(events.size(), 1);
    QVERIFY2(events.first().startsWith(QStringLiteral("ERROR ConnectionLost: the connection to ")),
        qPrintable(events.first()));
}

// A dedicated watch's bytes arrive on its own connection: they prove nothing about the
// requests' one. Here the watch streams while a request hangs on a connection that answers
// nothing, the probe included: the probe still goes out after readIdleTimeout, and the request
// fails as lost long before the stream would end.
void tst_Http1Watch::watchTrafficDoesNotHideADeadRequestConnection()
{
    FakeServer server;
    server.handler = [](const SeenRequest &r) {
        if (!r.path.contains("watch=true"))
            return Reply {200, {}, {}, true}; // the request and the probe hang
        Reply reply;
        for (int i = 0; i < 50; ++i)
            reply.chunks << added("e");
        reply.intervalMs = 100; // 5 s of events
        return reply;
    };
    RestConfig config = dedicated(server);
    config.readIdleTimeout = 300ms;
    config.pingTimeout = 200ms;
    RestClient client(config);
    auto watch = client.watch(ConfigMaps, QStringLiteral("n"));
    QVERIFY(watch->next(10s));
    QElapsedTimer elapsed;
    elapsed.start();
    QFuture<Response> post = client.requestAsync("POST", QStringLiteral("/post"), {}, "{}");
    QTRY_VERIFY_WITH_TIMEOUT(post.isFinished(), 10000);
    QVERIFY(post.result().transportError);
    QCOMPARE(post.result().transportError->reason, QStringLiteral("ConnectionLost"));
    QVERIFY2(elapsed.elapsed() < 3000, qPrintable(QString::number(elapsed.elapsed())));
}

// One dedicated watch's connection breaks (a server of an HA pair restarting); another, quiet
// on its own connection while the probes are answered, is not made suspect by it and stays.
void tst_Http1Watch::aWatchConnectionsBreakMakesNoOtherSuspect()
{
    FakeServer server;
    server.handler = [](const SeenRequest &r) {
        if (r.path.contains("labelSelector=a")) {
            Reply reply;
            reply.chunks = {added("a")};
            reply.intervalMs = 50; // written before the drop
            reply.dropAfterChunks = true;
            return reply;
        }
        if (r.path.contains("labelSelector=b"))
            return Reply {200, {}, {}, true}; // quiet
        return Reply {}; // the probe: 200
    };
    RestConfig config = dedicated(server);
    config.readIdleTimeout = 300ms;
    config.pingTimeout = 200ms;
    RestClient client(config);
    ListOptions a;
    a.labelSelector = QStringLiteral("a");
    ListOptions b;
    b.labelSelector = QStringLiteral("b");
    auto quiet = client.watch(ConfigMaps, QStringLiteral("n"), b);
    auto breaking = client.watch(ConfigMaps, QStringLiteral("n"), a);
    QCOMPARE(drain(*breaking), QStringList {QStringLiteral("a")});
    // Well past readIdleTimeout + pingTimeout from the break, with probes answered.
    QTest::qWait(1500);
    QVERIFY2(!quiet->isFinished(), "a quiet watch on its own connection was taken as lost");
    int probes = 0;
    for (const SeenRequest &r : server.seen())
        probes += r.path == "/livez";
    QVERIFY2(probes >= 2, qPrintable(QString::number(probes))); // its checks go on
    quiet->stop();
    QTRY_VERIFY(quiet->isFinished());
}

void tst_Http1Watch::destroyingTheClientEndsIt()
{
    FakeServer server;
    server.handler = [](const SeenRequest &) { return Reply {200, {}, {}, true}; };
    std::shared_ptr<Watch> watch;
    {
        RestClient client(dedicated(server));
        watch = client.watch(ConfigMaps, QStringLiteral("n"));
        QTRY_COMPARE(server.seen().size(), 1);
    }
    QVERIFY(watch->isFinished());
}

QTEST_GUILESS_MAIN(tst_Http1Watch)
#include "tst_http1watch.moc"
