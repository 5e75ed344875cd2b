// SPDX-License-Identifier: Apache-2.0
// e2e: a connection to the real kube-apiserver that a partition leaves dead (no FIN, no RST)
// is found by the REST client's health check and closed (connectionhealth_p.h, client-go's
// HTTP/2 ReadIdleTimeout and PingTimeout), with watches on the requests' HTTP/2 connection
// (the shared transport) or on connections of their own (the dedicated one, the default). The
// client reaches the apiserver through a TCP proxy in this process that can swallow every byte of
// the connections open at a moment, both ways, while later connections are forwarded: so only the
// probe that rides the same HTTP/2 connection can tell that it is dead, as client-go's PING does.
#include "../e2esupport.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonDocument>
#include <QtCore/QThread>
#include <QtNetwork/QTcpServer>
#include <QtNetwork/QTcpSocket>
#include <QtTest/QtTest>

#include <algorithm>
#include <atomic>

using namespace qcm;
using namespace qcm::client;
using namespace qcm::e2e;
using namespace std::chrono_literals;

namespace {

// Forwards loopback TCP connections to `target`, on a thread of its own; blackhole() makes
// the connections open now swallow every byte, both ways, and keep their sockets open.
// cut() is a partition as tests/e2e/leaderelection/tcpproxy.py makes one: every connection,
// open or new, swallows (a new one is accepted and never answered); heal() closes all of
// them and forwards the connections that come after.
class BlackholeProxy : public QObject
{
public:
    BlackholeProxy(const QString &host, quint16 port)
    {
        moveToThread(&m_thread);
        m_thread.start();
        QMetaObject::invokeMethod(
            this,
            [this, host, port] {
                m_server = new QTcpServer(this);
                m_server->listen(QHostAddress::LocalHost, 0);
                connect(m_server, &QTcpServer::newConnection, this,
                    [this, host, port] { accept(host, port); });
            },
            Qt::BlockingQueuedConnection);
    }

    ~BlackholeProxy() override
    {
        QMetaObject::invokeMethod(
            this, [this] { qDeleteAll(children()); }, Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    }

    quint16 port() const { return m_server->serverPort(); }
    int connections() const { return m_connections; }

    void blackhole()
    {
        onProxyThread([this] { m_deadBefore = m_connections.load(); });
    }

    void cut()
    {
        onProxyThread([this] {
            m_cut = true;
            m_deadBefore = m_connections.load();
        });
    }

    void heal()
    {
        onProxyThread([this] {
            m_cut = false;
            m_deadBefore = m_connections.load();
            const auto sockets = findChildren<QTcpSocket *>();
            for (QTcpSocket *socket : sockets)
                socket->close();
        });
    }

private:
    template<typename F>
    void onProxyThread(F f)
    {
        QMetaObject::invokeMethod(this, f, Qt::BlockingQueuedConnection);
    }

    void accept(const QString &host, quint16 port)
    {
        while (QTcpSocket *client = m_server->nextPendingConnection()) {
            const int index = m_connections++;
            if (m_cut)
                continue; // accepted, never answered
            auto *upstream = new QTcpSocket(this);
            // Bytes wait in `from` until `to` is connected (the ClientHello comes first).
            const auto forward = [this, index](QTcpSocket *from, QTcpSocket *to) {
                if (to->state() != QAbstractSocket::ConnectedState)
                    return;
                const QByteArray bytes = from->readAll();
                if (index >= m_deadBefore)
                    to->write(bytes);
            };
            connect(client, &QTcpSocket::readyRead, this,
                [client, upstream, forward] { forward(client, upstream); });
            connect(upstream, &QTcpSocket::readyRead, this,
                [client, upstream, forward] { forward(upstream, client); });
            connect(upstream, &QTcpSocket::connected, this,
                [client, upstream, forward] { forward(client, upstream); });
            connect(client, &QTcpSocket::disconnected, upstream, &QTcpSocket::disconnectFromHost);
            connect(upstream, &QTcpSocket::disconnected, client, &QTcpSocket::disconnectFromHost);
            upstream->connectToHost(host, port);
        }
    }

    QThread m_thread;
    QTcpServer *m_server = nullptr;
    std::atomic<int> m_connections {0};
    int m_deadBefore = 0; // the proxy's thread: connections below this index swallow
    bool m_cut = false; // the proxy's thread
};

// `direct`'s client configuration, through `proxy`, with these health check timings.
RestConfig throughProxy(RestConfig direct, const BlackholeProxy &proxy,
    std::chrono::seconds readIdleTimeout, std::chrono::seconds pingTimeout)
{
    direct.server.setPort(proxy.port());
    direct.readIdleTimeout = readIdleTimeout;
    direct.pingTimeout = pingTimeout;
    return direct;
}

} // namespace

class tst_DeadConnection : public QObject
{
    Q_OBJECT

private slots:
    void aDeadConnectionIsLostAndReplaced_data();
    void aDeadConnectionIsLostAndReplaced();
    void everyRequestEndsAfterACutHeals_data();
    void everyRequestEndsAfterACutHeals();
};

// Over the shared transport one HTTP/2 connection carries the request and the watch, and only
// the probe on it can tell that it is dead. Over the dedicated one the watch has a connection
// of its own, as dead; the probe that finds the requests' connection lost ends it too.
void tst_DeadConnection::aDeadConnectionIsLostAndReplaced_data()
{
    QTest::addColumn<bool>("shared");
    QTest::addColumn<QList<int>>("connections"); // after the watch, the loss, the new watch
    QTest::newRow("shared (HTTP/2)") << true << QList<int> {1, 2, 2};
    QTest::newRow("dedicated watch (HTTP/1.1)") << false << QList<int> {2, 3, 4};
}

void tst_DeadConnection::aDeadConnectionIsLostAndReplaced()
{
    QFETCH(bool, shared);
    QFETCH(QList<int>, connections);
    RestConfig direct = clusterConfig(QStringLiteral("admin"));
    RestClient admin(direct);
    const QString ns = createNamespace(admin, QStringLiteral("deadconn"));
    BlackholeProxy proxy(direct.server.host(), quint16(direct.server.port()));
    RestConfig config = throughProxy(direct, proxy, 1s, 1s);
    if (shared)
        config.watchTransport = RestConfig::WatchTransport::Shared;
    RestClient client(config);

    QFuture<Response> first = client.requestAsync("GET", ConfigMaps.collectionPath(ns));
    QTRY_VERIFY_WITH_TIMEOUT(first.isFinished(), 30000);
    QCOMPARE(first.result().code, 200);
    QVERIFY(first.result().http2);
    ListOptions options;
    options.timeoutSeconds = 600;
    auto watch = client.watch(ConfigMaps, ns, options);
    QVERIFY(admin.create(ConfigMaps, ns, configMap(ns, QStringLiteral("a"))));
    const auto added = watch->next(30s);
    QVERIFY(added && added->type == WatchEvent::Type::Added);
    QCOMPARE(watch->usedHttp2(), shared);
    QCOMPARE(proxy.connections(), connections.at(0));

    // The partition: the connection's bytes go nowhere, and nothing closes it.
    proxy.blackhole();
    QElapsedTimer lost;
    lost.start();
    QFuture<Response> post = client.requestAsync("POST", ConfigMaps.collectionPath(ns), {},
        QJsonDocument(configMap(ns, QStringLiteral("b")).json()).toJson(QJsonDocument::Compact),
        "application/json");
    QFuture<Response> get
        = client.requestAsync("GET", ConfigMaps.collectionPath(ns) + QStringLiteral("/a"));

    // Found within readIdleTimeout + pingTimeout of the last byte received (and a check's
    // period): the POST fails, naming the lost connection, and was never sent on; the GET is
    // tried again on a new connection; the watch ends, for its reflector to start again.
    QTRY_VERIFY_WITH_TIMEOUT(post.isFinished(), 15000);
    const qint64 took = lost.elapsed();
    const Response failed = post.result();
    QVERIFY(failed.transportError);
    QCOMPARE(failed.transportError->reason, QStringLiteral("ConnectionLost"));
    QVERIFY2(
        failed.transportError->message.contains(QStringLiteral("is lost: nothing was received")),
        qPrintable(failed.transportError->message));
    QVERIFY2(took >= 1000 && took < 5000, qPrintable(QString::number(took)));
    QTRY_VERIFY_WITH_TIMEOUT(get.isFinished(), 15000);
    QCOMPARE(get.result().code, 200);
    QVERIFY(get.result().http2);
    QTRY_VERIFY_WITH_TIMEOUT(watch->isFinished(), 5000);
    QCOMPARE(proxy.connections(), connections.at(1));
    auto b = admin.get(ConfigMaps, ns, QStringLiteral("b"));
    QVERIFY2(!b && b.error().isNotFound(), "the swallowed POST reached the apiserver");

    // The new connection serves, and a new watch (on it, or on one of its own) sees what
    // happens.
    auto again = client.watch(ConfigMaps, ns, options);
    QVERIFY(admin.create(ConfigMaps, ns, configMap(ns, QStringLiteral("c"))));
    for (auto event = again->next(30s);; event = again->next(30s)) {
        QVERIFY(event && event->type == WatchEvent::Type::Added);
        if (event->object.name() == QStringLiteral("c"))
            break;
    }
    QCOMPARE(proxy.connections(), connections.at(2));
}

// A partition as the scale-out chaos tests make one: requests sent during it wait on a
// connection that swallows them, or on new ones (once the health check closed the first)
// that are never answered; the heal closes all of those. Every request must end then
// (answered, or failed for its caller to try again), even while new traffic keeps the client
// busy, and the client must serve again: a request and a watch sent after the heal work.
void tst_DeadConnection::everyRequestEndsAfterACutHeals_data()
{
    QTest::addColumn<int>("readIdleSeconds");
    QTest::addColumn<int>("pingSeconds");
    QTest::addColumn<int>("cutMs");
    QTest::addColumn<bool>("shared"); // the watches on the requests' HTTP/2 connection
    // The chaos tests' case: client-go's 30 s / 15 s, a cut the health check never sees.
    QTest::newRow("shorter than the health check") << 30 << 15 << 2000 << false;
    QTest::newRow("found by the health check") << 2 << 1 << 4000 << false;
    QTest::newRow("found by the health check, shared") << 2 << 1 << 4000 << true;
}

void tst_DeadConnection::everyRequestEndsAfterACutHeals()
{
    QFETCH(int, readIdleSeconds);
    QFETCH(int, pingSeconds);
    QFETCH(int, cutMs);
    QFETCH(bool, shared);
    RestConfig direct = clusterConfig(QStringLiteral("admin"));
    RestClient admin(direct);
    const QString ns = createNamespace(admin, QStringLiteral("cutheal"));
    BlackholeProxy proxy(direct.server.host(), quint16(direct.server.port()));
    RestConfig config = throughProxy(
        direct, proxy, std::chrono::seconds(readIdleSeconds), std::chrono::seconds(pingSeconds));
    if (shared)
        config.watchTransport = RestConfig::WatchTransport::Shared;
    RestClient client(config);
    QVERIFY(client.get(ConfigMaps, ns, QStringLiteral("none")).error().isNotFound());
    ListOptions options;
    options.timeoutSeconds = 600;
    auto before = client.watch(ConfigMaps, ns, options);

    proxy.cut();
    QList<QFuture<Response>> sent;
    for (int i = 0; i < cutMs / 100; ++i) {
        sent << client.requestAsync("POST", ConfigMaps.collectionPath(ns), {},
            QJsonDocument(configMap(ns, QStringLiteral("cut-%1").arg(i)).json())
                .toJson(QJsonDocument::Compact),
            "application/json");
        QTest::qWait(100);
    }
    proxy.heal();
    QElapsedTimer healed;
    healed.start();
    // As a reflector does: the watch that the heal ends is started again at once.
    while (!before->isFinished() && healed.elapsed() < 5000)
        QThread::msleep(1);
    QVERIFY(before->isFinished());
    auto rewatch = client.watch(ConfigMaps, ns, options);
    // Traffic on the new connection, as an informer's and a leader elector's would be.
    int busy = 0;
    const auto allEnded = [&sent] {
        return std::all_of(sent.begin(), sent.end(), [](const auto &f) { return f.isFinished(); });
    };
    const qint64 bound = (readIdleSeconds + pingSeconds + 5) * 1000;
    while (!allEnded() && healed.elapsed() < bound) {
        QVERIFY(admin.create(ConfigMaps, ns, configMap(ns, QStringLiteral("busy-%1").arg(busy++))));
        QTest::qWait(200);
    }
    qInfo("after %lld ms: %lld of %lld requests ended; %d connections", healed.elapsed(),
        qlonglong(
            std::count_if(sent.begin(), sent.end(), [](const auto &f) { return f.isFinished(); })),
        qlonglong(sent.size()), proxy.connections());
    QVERIFY(allEnded());

    // The client serves again: a request, and the watch started at the heal sees what
    // happens (or, if it was lost in the close, ends within the same bound, and a new watch
    // started then does, as its reflector would start one).
    auto answered = client.requestAsync("GET", ConfigMaps.collectionPath(ns) + "/none");
    QTRY_VERIFY_WITH_TIMEOUT(answered.isFinished(), 10000);
    QCOMPARE(answered.result().code, 404);
    QVERIFY(admin.create(ConfigMaps, ns, configMap(ns, QStringLiteral("after"))));
    int watches = 1;
    for (;;) {
        const auto event = rewatch->next(1s);
        if (!event && rewatch->isFinished()) {
            rewatch = client.watch(ConfigMaps, ns, options);
            ++watches;
            continue;
        }
        QVERIFY2(event || healed.elapsed() < bound,
            "no watch started after the heal saw the new object");
        if (event && event->type == WatchEvent::Type::Added
            && event->object.name() == QStringLiteral("after"))
            break;
    }
    qInfo("seen by watch %d after the heal", watches);
}

QTEST_MAIN(tst_DeadConnection)
#include "tst_deadconnection.moc"
