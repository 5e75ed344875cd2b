// SPDX-License-Identifier: Apache-2.0
// e2e: a connection to the real kube-apiserver that a partition leaves dead (no FIN, no RST)
// is found by the REST client's health check and closed (connectionhealth_p.h, client-go's
// HTTP/2 ReadIdleTimeout and PingTimeout). The client reaches the apiserver through a TCP
// proxy in this process that can swallow every byte of the connections open at a moment,
// both ways, while later connections are forwarded: so only the probe that rides the same
// HTTP/2 connection can tell that it is dead, as client-go's PING does.
#include "../e2esupport.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonDocument>
#include <QtCore/QThread>
#include <QtNetwork/QTcpServer>
#include <QtNetwork/QTcpSocket>
#include <QtTest/QtTest>

#include <atomic>

using namespace qcm;
using namespace qcm::client;
using namespace qcm::e2e;
using namespace std::chrono_literals;

namespace {

// Forwards loopback TCP connections to `target`, on a thread of its own; blackhole() makes
// the connections open now swallow every byte, both ways, and keep their sockets open.
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
        QMetaObject::invokeMethod(
            this, [this] { m_deadBefore = m_connections.load(); }, Qt::BlockingQueuedConnection);
    }

private:
    void accept(const QString &host, quint16 port)
    {
        while (QTcpSocket *client = m_server->nextPendingConnection()) {
            const int index = m_connections++;
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
};

} // namespace

class tst_DeadConnection : public QObject
{
    Q_OBJECT

private slots:
    void aDeadHttp2ConnectionIsLostAndReplaced();
};

void tst_DeadConnection::aDeadHttp2ConnectionIsLostAndReplaced()
{
    RestConfig direct = clusterConfig(QStringLiteral("admin"));
    RestClient admin(direct);
    const QString ns = createNamespace(admin, QStringLiteral("deadconn"));
    BlackholeProxy proxy(direct.server.host(), quint16(direct.server.port()));
    RestConfig config = direct;
    config.server.setPort(proxy.port());
    config.readIdleTimeout = 1s;
    config.pingTimeout = 1s;
    RestClient client(config);

    // One HTTP/2 connection carries a request and a watch.
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
    QCOMPARE(proxy.connections(), 1);

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
    QCOMPARE(proxy.connections(), 2);
    auto b = admin.get(ConfigMaps, ns, QStringLiteral("b"));
    QVERIFY2(!b && b.error().isNotFound(), "the swallowed POST reached the apiserver");

    // The new connection serves, and a new watch on it sees what happens.
    auto again = client.watch(ConfigMaps, ns, options);
    QVERIFY(admin.create(ConfigMaps, ns, configMap(ns, QStringLiteral("c"))));
    for (auto event = again->next(30s);; event = again->next(30s)) {
        QVERIFY(event && event->type == WatchEvent::Type::Added);
        if (event->object.name() == QStringLiteral("c"))
            break;
    }
    QCOMPARE(proxy.connections(), 2);
}

QTEST_MAIN(tst_DeadConnection)
#include "tst_deadconnection.moc"
