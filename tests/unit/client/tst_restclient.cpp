// SPDX-License-Identifier: Apache-2.0
// RestClient against a scripted local HTTP server: retries, the client-side rate limit,
// headers and authentication, timeouts. (The real apiserver is in tests/e2e; the dedicated
// watch transport in tst_http1watch.cpp.)
#include <qcm/client/discovery.h>
#include <qcm/client/restclient.h>
#include <qcm/version.h>

#include "fakeserver.h"

#include <QtCore/QAbstractEventDispatcher>
#include <QtCore/QElapsedTimer>
#include <QtCore/QTemporaryDir>
#include <QtCore/QThread>
#include <QtNetwork/QTcpServer>
#include <QtNetwork/QTcpSocket>
#include <QtTest/QtTest>

#include <atomic>
#include <functional>
#include <mutex>

using namespace qcm::client;
using namespace std::chrono_literals;

using namespace qcm::unittest;

namespace {

RestConfig configFor(const FakeServer &server)
{
    RestConfig config;
    config.server = server.url();
    config.qps = 0; // no client-side limit unless a test sets one
    // Watches on the access manager's connections, as requests: tst_http1watch.cpp tests
    // the dedicated transport.
    config.watchTransport = RestConfig::WatchTransport::Shared;
    return config;
}

} // namespace

class tst_RestClientUnit : public QObject
{
    Q_OBJECT

private slots:
    void retriesOn429WithRetryAfter();
    void noRetryWithoutRetryAfter();
    void retriesStopAfterTen();
    void rateLimitSpacesRequests();
    void watchesAreNotRateLimited();
    void headersAndBasicAuth();
    void bearerToken();
    void timeout();
    void aConnectionWithoutAnswersIsLost();
    void anAnsweredProbeKeepsTheRequests();
    void aReplySilentSinceAConnectionBrokeIsStranded();
    void noProbesWithoutReadIdleTimeout();
    void responseOverTheLimit();
    void watchEventOverTheLimit();
    void watchEventSink();
    void execCredentialReRunAfter401();
    void blockingCallOnTheIoThreadIsRefused();
    void connectionRefused();
    void legacyDiscovery();
    void asyncForms();
};

void tst_RestClientUnit::retriesOn429WithRetryAfter()
{
    FakeServer server;
    int calls = 0;
    server.handler = [&](const SeenRequest &) {
        return ++calls <= 3 ? Reply {429, {{"Retry-After", "0"}}, R"({"kind":"Status","code":429})"}
                            : Reply {};
    };
    RestClient client(configFor(server));
    const Response r = client.request("GET", QStringLiteral("/api/v1/namespaces"));
    QCOMPARE(r.code, 200);
    QCOMPARE(r.attempts, 4);
    QCOMPARE(server.seen().size(), 4);
}

void tst_RestClientUnit::noRetryWithoutRetryAfter()
{
    FakeServer server;
    server.handler = [](const SeenRequest &) { return Reply {503, {}, "busy"}; };
    RestClient client(configFor(server));
    const Response r = client.request("GET", QStringLiteral("/x"));
    QCOMPARE(r.code, 503);
    QCOMPARE(server.seen().size(), 1);
    QCOMPARE(r.status().reason, QStringLiteral("ServiceUnavailable"));
}

void tst_RestClientUnit::retriesStopAfterTen()
{
    FakeServer server;
    server.handler = [](const SeenRequest &) { return Reply {500, {{"Retry-After", "0"}}, "{}"}; };
    RestClient client(configFor(server));
    const Response r = client.request("POST", QStringLiteral("/x"), {}, "{}", "application/json");
    QCOMPARE(r.code, 500);
    QCOMPARE(server.seen().size(), 11); // the first try and 10 retries, as client-go
    QCOMPARE(server.seen().last().body, QByteArray("{}")); // the body is sent again
}

void tst_RestClientUnit::rateLimitSpacesRequests()
{
    FakeServer server;
    RestConfig config = configFor(server);
    config.qps = 20; // one every 50 ms
    config.burst = 1;
    RestClient client(config);
    for (int i = 0; i < 6; ++i)
        QCOMPARE(client.request("GET", QStringLiteral("/x")).code, 200);
    const QList<SeenRequest> seen = server.seen();
    QCOMPARE(seen.size(), 6);
    // Lower bounds only: a token bucket never lets requests through faster than its rate.
    // From the second on: the first arrives late by the connection's setup, which shortened
    // the span below the bound under load (243 ms once).
    QVERIFY2(seen.last().atMs - seen[1].atMs >= 4 * 50 - 5,
        qPrintable(QStringLiteral("the last 5 of 6 requests at 20 qps took %1 ms")
                       .arg(seen.last().atMs - seen[1].atMs)));
}

void tst_RestClientUnit::watchesAreNotRateLimited()
{
    FakeServer server;
    server.handler = [](const SeenRequest &r) {
        if (r.path.contains("watch=true"))
            return Reply {200, {},
                R"({"type":"ADDED","object":{"metadata":{"name":"a"}}})"
                "\n"};
        return Reply {};
    };
    RestConfig config = configFor(server);
    config.qps = 0.5; // one request every 2 s after the first
    config.burst = 1;
    RestClient client(config);
    QCOMPARE(client.request("GET", QStringLiteral("/x")).code, 200); // takes the only token
    QElapsedTimer timer;
    timer.start();
    auto watch = client.watch(
        {QString(), QStringLiteral("v1"), QStringLiteral("configmaps")}, QStringLiteral("n"));
    auto event = watch->next(10s);
    QVERIFY(event.has_value());
    QCOMPARE(event->object.name(), QStringLiteral("a"));
    QVERIFY2(timer.elapsed() < 1500, "the watch waited for the rate limiter");
}

void tst_RestClientUnit::headersAndBasicAuth()
{
    FakeServer server;
    RestConfig config = configFor(server);
    config.username = QStringLiteral("admin");
    config.password = QStringLiteral("s3cret");
    RestClient client(config);
    client.request("POST", QStringLiteral("/api/v1/namespaces/n/configmaps"), {}, R"({"a":1})",
        "application/json");
    const SeenRequest seen = server.seen().value(0);
    QCOMPARE(seen.method, QByteArray("POST"));
    QCOMPARE(seen.headers.value("user-agent"), QByteArray("qcm/" QCM_VERSION_STRING));
    QCOMPARE(seen.headers.value("accept"), QByteArray("application/json"));
    QCOMPARE(seen.headers.value("content-type"), QByteArray("application/json"));
    QCOMPARE(seen.headers.value("authorization"), "Basic " + QByteArray("admin:s3cret").toBase64());
    QCOMPARE(seen.body, QByteArray(R"({"a":1})"));
}

void tst_RestClientUnit::bearerToken()
{
    FakeServer server;
    RestConfig config = configFor(server);
    config.bearerToken = QStringLiteral("abc");
    RestClient client(config);
    ListOptions options;
    options.labelSelector = QStringLiteral("a in (x,y),b!=c");
    options.limit = 5;
    client.list({QStringLiteral("apps"), QStringLiteral("v1"), QStringLiteral("deployments")},
        QStringLiteral("ns"), options);
    const SeenRequest seen = server.seen().value(0);
    QCOMPARE(seen.headers.value("authorization"), QByteArray("Bearer abc"));
    QVERIFY2(
        seen.path.startsWith("/apis/apps/v1/namespaces/ns/deployments?"), seen.path.constData());
    QVERIFY2(seen.path.contains("limit=5"), seen.path.constData());
    QCOMPARE(QUrlQuery(QUrl(QString::fromUtf8(seen.path)).query())
                 .queryItemValue(QStringLiteral("labelSelector"), QUrl::FullyDecoded),
        QStringLiteral("a in (x,y),b!=c"));
}

void tst_RestClientUnit::timeout()
{
    FakeServer server;
    server.handler = [](const SeenRequest &) { return Reply {200, {}, {}, true}; };
    RestConfig config = configFor(server);
    config.timeout = 200ms;
    RestClient client(config);
    const Response r = client.request("GET", QStringLiteral("/slow"));
    QCOMPARE(r.code, 0);
    QVERIFY(r.transportError.has_value());
    QCOMPARE(r.transportError->reason, QStringLiteral("Timeout"));
    QVERIFY(r.transportError->isTimeout());
    QVERIFY2(r.transportError->message.contains(QStringLiteral("no response within 200 ms")),
        qPrintable(r.transportError->message));
}

// Nothing received while requests are in flight, and the probe (GET /livez) has no answer
// either: the connection counts as lost (connectionhealth_p.h). A POST fails with
// ConnectionLost, naming both timeouts; a GET is tried again and answered; a watch without
// headers yet ends with ConnectionLost.
void tst_RestClientUnit::aConnectionWithoutAnswersIsLost()
{
    FakeServer server;
    std::atomic<int> gets {0};
    server.handler = [&gets](const SeenRequest &r) {
        if (r.path == "/get" && ++gets > 1)
            return Reply {200, {}, R"({"kind":"ConfigMap"})"};
        return Reply {200, {}, {}, true}; // everything else hangs, the probe included
    };
    RestConfig config = configFor(server);
    config.readIdleTimeout = 300ms;
    config.pingTimeout = 200ms;
    RestClient client(config);
    QElapsedTimer elapsed;
    elapsed.start();
    QFuture<Response> post = client.requestAsync("POST", QStringLiteral("/post"), {}, "{}");
    QFuture<Response> get = client.requestAsync("GET", QStringLiteral("/get"));
    auto watch = client.watch(
        {QString(), QStringLiteral("v1"), QStringLiteral("configmaps")}, QStringLiteral("n"));

    QTRY_VERIFY_WITH_TIMEOUT(post.isFinished(), 10000);
    const Response failed = post.result();
    QCOMPARE(failed.code, 0);
    QVERIFY(failed.transportError);
    QCOMPARE(failed.transportError->reason, QStringLiteral("ConnectionLost"));
    QVERIFY2(
        failed.transportError->message.startsWith(QStringLiteral("POST /post: the connection to "
                                                                 "http://127.0.0.1:")),
        qPrintable(failed.transportError->message));
    QVERIFY2(failed.transportError->message.contains(
                 QStringLiteral("a health probe (GET /livez) had no answer within 0.2 s")),
        qPrintable(failed.transportError->message));
    QVERIFY2(elapsed.elapsed() >= 500, qPrintable(QString::number(elapsed.elapsed())));

    const auto ended = watch->next(10s);
    QVERIFY(ended);
    QCOMPARE(ended->type, WatchEvent::Type::Error);
    QCOMPARE(ended->status.reason, QStringLiteral("ConnectionLost"));
    QTRY_VERIFY_WITH_TIMEOUT(get.isFinished(), 10000);
    QCOMPARE(get.result().code, 200);
    QCOMPARE(gets.load(), 2);
    int probes = 0;
    for (const SeenRequest &r : server.seen())
        probes += r.path == "/livez" && r.method == "GET" && !r.headers.contains("authorization");
    QCOMPARE(probes, 1);
}

// A probe that is answered (any answer, 401 here) keeps the connection: a slow request stays
// in flight, probed again every readIdleTimeout.
void tst_RestClientUnit::anAnsweredProbeKeepsTheRequests()
{
    FakeServer server;
    server.handler = [](const SeenRequest &r) {
        if (r.path == "/livez")
            return Reply {401, {}, R"({"kind":"Status","code":401})"};
        return Reply {200, {}, {}, true};
    };
    RestConfig config = configFor(server);
    config.readIdleTimeout = 300ms;
    config.pingTimeout = 200ms;
    RestClient client(config);
    QFuture<Response> slow = client.requestAsync("POST", QStringLiteral("/slow"), {}, "{}");
    QTest::qWait(1500);
    QVERIFY(!slow.isFinished());
    int probes = 0;
    for (const SeenRequest &r : server.seen())
        probes += r.path == "/livez";
    QVERIFY2(probes >= 2 && probes <= 5, qPrintable(QString::number(probes)));
}

// A connection of the client breaks while a request waits on another; new traffic keeps the
// client as a whole busy, so no probe is sent (connectionhealth_p.h). Stranded, failing with
// ConnectionLost once they have received nothing for readIdleTimeout + pingTimeout: the
// request sent before the break, and the one sent right after it, before anything sent after
// it was answered. Left alone: one sent once the client was answered again.
void tst_RestClientUnit::aReplySilentSinceAConnectionBrokeIsStranded()
{
    FakeServer server;
    server.handler = [](const SeenRequest &r) {
        Reply reply;
        reply.hang = r.path.startsWith("/hang");
        reply.drop = r.path == "/drop";
        return reply;
    };
    RestConfig config = configFor(server);
    config.readIdleTimeout = 300ms;
    config.pingTimeout = 200ms;
    RestClient client(config);
    QFuture<Response> before
        = client.requestAsync("POST", QStringLiteral("/hang-before"), {}, "{}");
    QFuture<Response> dropped = client.requestAsync("POST", QStringLiteral("/drop"), {}, "{}");
    QTRY_VERIFY_WITH_TIMEOUT(dropped.isFinished(), 5000);
    QElapsedTimer sinceBreak;
    sinceBreak.start();
    QVERIFY(dropped.result().transportError);
    QCOMPARE(dropped.result().transportError->reason, QStringLiteral("ConnectionReset"));
    QFuture<Response> unconfirmed
        = client.requestAsync("POST", QStringLiteral("/hang-unconfirmed"), {}, "{}");
    QFuture<Response> answered = client.requestAsync("GET", QStringLiteral("/ok"));
    QTRY_VERIFY_WITH_TIMEOUT(answered.isFinished(), 5000);
    QCOMPARE(answered.result().code, 200);
    QFuture<Response> after = client.requestAsync("POST", QStringLiteral("/hang-after"), {}, "{}");
    QList<QFuture<Response>> traffic;
    qint64 endedAfter = -1;
    while (sinceBreak.elapsed() < 1500) { // three times the bound
        traffic << client.requestAsync("GET", QStringLiteral("/ok"));
        QTest::qWait(50);
        if (before.isFinished() && endedAfter < 0)
            endedAfter = sinceBreak.elapsed();
    }
    QVERIFY2(endedAfter >= 450, qPrintable(QString::number(endedAfter)));
    for (const QFuture<Response> &stranded : {before, unconfirmed}) {
        QVERIFY(stranded.isFinished());
        const Response r = stranded.result();
        QVERIFY(r.transportError);
        QCOMPARE(r.transportError->reason, QStringLiteral("ConnectionLost"));
        QVERIFY2(r.transportError->message.startsWith(QStringLiteral("POST /hang-")),
            qPrintable(r.transportError->message));
        QVERIFY2(r.transportError->message.contains(
                     QStringLiteral(": the connection to http://127.0.0.1:")),
            qPrintable(r.transportError->message));
        QVERIFY2(
            r.transportError->message.contains(QStringLiteral("a connection of this client broke")),
            qPrintable(r.transportError->message));
    }
    QVERIFY(!after.isFinished());
    for (const auto &f : std::as_const(traffic))
        QVERIFY(!f.isFinished() || f.result().code == 200);
    int probes = 0;
    for (const SeenRequest &r : server.seen())
        probes += r.path == "/livez";
    QCOMPARE(probes, 0);
}

void tst_RestClientUnit::noProbesWithoutReadIdleTimeout()
{
    FakeServer server;
    server.handler = [](const SeenRequest &) { return Reply {200, {}, {}, true}; };
    RestConfig config = configFor(server);
    config.readIdleTimeout = qcm::Duration::zero();
    RestClient client(config);
    QFuture<Response> slow = client.requestAsync("POST", QStringLiteral("/slow"), {}, "{}");
    QTest::qWait(1000);
    QVERIFY(!slow.isFinished());
    QCOMPARE(server.seen().size(), 1);
}

// A body over maxResponseBytes is abandoned, with an error naming the limit; one at the limit
// is read (docs/security.md).
void tst_RestClientUnit::responseOverTheLimit()
{
    FakeServer server;
    server.handler = [](const SeenRequest &r) {
        return Reply {200, {}, QByteArray(r.path.endsWith("big") ? 4096 : 1024, 'x')};
    };
    RestConfig config = configFor(server);
    config.maxResponseBytes = 1024;
    RestClient client(config);
    const Response big = client.request("GET", QStringLiteral("/big"));
    QCOMPARE(big.code, 0);
    QVERIFY(big.body.isEmpty());
    QVERIFY(big.transportError.has_value());
    QCOMPARE(big.transportError->reason, QStringLiteral("ResponseTooLarge"));
    QVERIFY2(big.transportError->message.startsWith(
                 QStringLiteral("GET /big: the response exceeds 1024 bytes, the limit")),
        qPrintable(big.transportError->message));
    const Response atLimit = client.request("GET", QStringLiteral("/small"));
    QCOMPARE(atLimit.code, 200);
    QCOMPARE(atLimit.body.size(), 1024);
}

// A watch event over maxWatchEventBytes is an ERROR event naming the limit; the next event
// of the same stream arrives.
void tst_RestClientUnit::watchEventOverTheLimit()
{
    FakeServer server;
    server.handler = [](const SeenRequest &) {
        const QByteArray big
            = R"({"type":"ADDED","object":{"metadata":{"name":"big","annotations":{"a":")"
            + QByteArray(2000, 'x') + R"("}}}})";
        return Reply {200, {},
            big + "\n" + R"({"type":"ADDED","object":{"metadata":{"name":"small"}}})" + "\n"};
    };
    RestConfig config = configFor(server);
    config.maxWatchEventBytes = 1024;
    RestClient client(config);
    auto watch = client.watch(
        {QString(), QStringLiteral("v1"), QStringLiteral("configmaps")}, QStringLiteral("n"));
    auto first = watch->next(10s);
    QVERIFY(first.has_value());
    QCOMPARE(first->type, WatchEvent::Type::Error);
    QVERIFY2(first->status.message.contains(QStringLiteral("a frame exceeds 1024 bytes")),
        qPrintable(first->status.message));
    auto second = watch->next(10s);
    QVERIFY(second.has_value());
    QCOMPARE(second->object.name(), QStringLiteral("small"));
}

// WatchStream::setEventSink: the events already waiting go to the sink first, in order, on
// the caller's thread, until one is declined or an Error; those stay for next(); events
// arriving later go to the sink on the I/O thread.
void tst_RestClientUnit::watchEventSink()
{
    FakeServer server;
    std::atomic<int> watches {0};
    std::atomic<bool> sinkSet {false};
    server.handler = [&watches, &sinkSet](const SeenRequest &) {
        auto event = [](const char *name) {
            return QByteArray(R"({"type":"ADDED","object":{"metadata":{"name":")") + name
                + R"("}}})" + "\n";
        };
        if (watches++ == 0)
            return Reply {200, {},
                event("a") + event("b") + R"({"type":"ERROR","object":{"kind":"Status",)"
                    + R"("code":410,"reason":"Expired"}})" + "\n" + event("c")};
        // The second watch is answered only once its sink is set.
        for (int i = 0; i < 1000 && !sinkSet; ++i)
            QThread::msleep(10);
        return Reply {200, {}, event("d")};
    };
    RestClient client(configFor(server));
    const GroupVersionResource configMaps {
        QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};
    auto watch = client.watch(configMaps, QStringLiteral("n"));
    QTRY_VERIFY(watch->isFinished()); // every event is waiting
    QStringList offered; // the sink takes "a" and declines "b"
    QVERIFY(watch->setEventSink([&offered](const WatchEvent &e) {
        offered << e.object.name();
        return e.object.name() == QLatin1String("a");
    }));
    QCOMPARE(offered, (QStringList {QStringLiteral("a"), QStringLiteral("b")}));
    auto declined = watch->next(10s);
    QVERIFY(declined && declined->object.name() == QLatin1String("b"));
    auto error = watch->next(10s);
    QVERIFY(error && error->type == WatchEvent::Type::Error);
    QCOMPARE(error->status.code, 410);
    auto after = watch->next(10s);
    QVERIFY(after && after->object.name() == QLatin1String("c"));
    QVERIFY(!watch->next(10s)); // finished

    // Set before anything arrives: the event goes to the sink, on the I/O thread.
    auto second = client.watch(configMaps, QStringLiteral("n"));
    std::mutex mutex;
    QStringList live;
    bool onCallerThread = true;
    QVERIFY(second->setEventSink([&](const WatchEvent &e) {
        std::lock_guard lock(mutex);
        live << e.object.name();
        onCallerThread = QThread::currentThread() == QCoreApplication::instance()->thread();
        return true;
    }));
    sinkSet = true;
    QTRY_VERIFY(second->isFinished());
    QVERIFY(!second->next(10s)); // nothing was left for next()
    QVERIFY(second->setEventSink({}));
    std::lock_guard lock(mutex);
    QCOMPARE(live, QStringList {QStringLiteral("d")});
    QVERIFY(!onCallerThread);
}

void tst_RestClientUnit::execCredentialReRunAfter401()
{
    QTemporaryDir dir;
    const QString counter = dir.filePath(QStringLiteral("n"));
    const QString plugin = dir.filePath(QStringLiteral("plugin"));
    QFile f(plugin);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("#!/bin/sh\necho x >> " + counter.toUtf8() + "\nn=$(wc -l < " + counter.toUtf8()
        + " | tr -d ' ')\nprintf "
          "'{\"apiVersion\":\"client.authentication.k8s.io/"
          "v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"t%s\"}}' \"$n\"\n");
    f.close();
    QFile::setPermissions(plugin, QFile::ReadOwner | QFile::ExeOwner | QFile::WriteOwner);
    FakeServer server;
    server.handler = [](const SeenRequest &r) {
        return r.headers.value("authorization") == "Bearer t2"
            ? Reply {}
            : Reply {401, {}, R"({"kind":"Status","reason":"Unauthorized","code":401})"};
    };
    RestConfig config = configFor(server);
    ExecConfig exec;
    exec.command = plugin;
    exec.apiVersion = QStringLiteral("client.authentication.k8s.io/v1");
    config.exec = exec;
    RestClient client(config);
    const Response r = client.request("GET", QStringLiteral("/x"));
    QCOMPARE(r.code, 200);
    QCOMPARE(server.seen().size(), 2);
    QCOMPARE(server.seen()[0].headers.value("authorization"), QByteArray("Bearer t1"));
    QCOMPARE(server.seen()[1].headers.value("authorization"), QByteArray("Bearer t2"));
}

void tst_RestClientUnit::blockingCallOnTheIoThreadIsRefused()
{
    FakeServer server;
    RestClient client(configFor(server));
    Response r;
    QMetaObject::invokeMethod(
        QAbstractEventDispatcher::instance(client.ioThread()),
        [&] { r = client.request("GET", QStringLiteral("/x")); }, Qt::BlockingQueuedConnection);
    QVERIFY(r.transportError.has_value());
    QCOMPARE(r.transportError->reason, QStringLiteral("WrongThread"));
    QVERIFY(server.seen().isEmpty());
}

void tst_RestClientUnit::connectionRefused()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    const quint16 port = probe.serverPort();
    probe.close();
    RestConfig config;
    config.server = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    RestClient client(config);
    auto result = client.get({QString(), QStringLiteral("v1"), QStringLiteral("pods")},
        QStringLiteral("n"), QStringLiteral("p"));
    QVERIFY(!result);
    QCOMPARE(result.error().reason, QStringLiteral("ConnectionRefused"));
    QVERIFY2(result.error().message.contains(QStringLiteral("/api/v1/namespaces/n/pods/p")),
        qPrintable(result.error().message));
}

// A server without aggregated discovery answers /api and /apis with the legacy kinds; the
// client then walks /api/v1 and every group version.
void tst_RestClientUnit::legacyDiscovery()
{
    FakeServer server;
    server.handler = [](const SeenRequest &r) {
        if (r.path == "/api")
            return Reply {200, {}, R"({"kind":"APIVersions","versions":["v1"]})"};
        if (r.path == "/api/v1")
            return Reply {200, {}, R"({"kind":"APIResourceList","groupVersion":"v1","resources":[
                {"name":"configmaps","namespaced":true,"kind":"ConfigMap","verbs":["get","list"],"shortNames":["cm"]},
                {"name":"namespaces","namespaced":false,"kind":"Namespace","verbs":["get"]}]})"};
        if (r.path == "/apis")
            return Reply {200, {}, R"({"kind":"APIGroupList","groups":[{"name":"apps",
                "versions":[{"groupVersion":"apps/v1","version":"v1"},{"groupVersion":"apps/v1beta2","version":"v1beta2"}],
                "preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]})"};
        if (r.path == "/apis/apps/v1" || r.path == "/apis/apps/v1beta2")
            return Reply {200, {}, R"({"kind":"APIResourceList","resources":[
                {"name":"deployments","namespaced":true,"kind":"Deployment","verbs":["get","patch"]},
                {"name":"deployments/scale","namespaced":true,"kind":"Scale","group":"autoscaling","version":"v1","verbs":["get"]}]})"};
        return Reply {404, {}, "{}"};
    };
    RestClient client(configFor(server));
    Discovery discovery(&client);
    auto cm = discovery.resourceFor({QString(), QString(), QStringLiteral("ConfigMap")});
    QVERIFY2(cm, qPrintable(cm ? QString() : cm.error().toString()));
    QCOMPARE(cm->gvr.resource, QStringLiteral("configmaps"));
    QCOMPARE(cm->shortNames, QStringList {QStringLiteral("cm")});
    auto deployment
        = discovery.resourceFor({QStringLiteral("apps"), QString(), QStringLiteral("Deployment")});
    QVERIFY(deployment);
    QCOMPARE(deployment->gvr.version, QStringLiteral("v1")); // the preferred version
    QCOMPARE(deployment->subresources, QStringList {QStringLiteral("scale")});
    QVERIFY(!discovery.kindFor({QString(), QStringLiteral("v1"), QStringLiteral("namespaces")})
                 ->namespaced);
    // The Accept header asked for aggregated discovery first.
    QVERIFY(server.seen().value(0).headers.value("accept").startsWith(
        "application/json;g=apidiscovery.k8s.io;v=v2"));
}

// The async forms resolve on the I/O thread; continuations can move to another thread.
void tst_RestClientUnit::asyncForms()
{
    FakeServer server;
    server.handler = [](const SeenRequest &r) {
        if (r.path.endsWith("/configmaps"))
            return Reply {200, {},
                R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"a"}}]})"};
        return Reply {200, {}, R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x"}})"};
    };
    RestClient client(configFor(server));
    const GroupVersionResource cm {QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};
    QFuture<ObjectResult> one = client.getAsync(cm, QStringLiteral("n"), QStringLiteral("x"));
    QFuture<ListResult> many = client.listAsync(cm, QStringLiteral("n"));
    QThread *resolvedOn = nullptr;
    QFuture<QString> chained
        = client.requestAsync("GET", QStringLiteral("/api/v1/namespaces/n/configmaps/x"))
              .then([&](const Response &r) {
                  resolvedOn = QThread::currentThread();
                  return QString::fromUtf8(r.body);
              });
    one.waitForFinished();
    many.waitForFinished();
    chained.waitForFinished();
    QCOMPARE(one.result()->name(), QStringLiteral("x"));
    QCOMPARE(many.result()->resourceVersion, QStringLiteral("7"));
    QCOMPARE(
        many.result()->items.value(0).kind(), QStringLiteral("ConfigMap")); // from the list kind
    QVERIFY(chained.result().contains(QStringLiteral("ConfigMap")));
    QCOMPARE(resolvedOn, client.ioThread());
}

QTEST_GUILESS_MAIN(tst_RestClientUnit)
#include "tst_restclient.moc"
