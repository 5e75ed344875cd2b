// SPDX-License-Identifier: Apache-2.0
// FakeServer: a scripted HTTP/1.1 server on its own thread, for the RestClient's unit tests
// (tst_restclient.cpp, tst_http1watch.cpp). `handler` decides every reply: a body with its
// Content-Length, a chunked stream written piece by piece, no answer, or a dropped connection.
//
// Thread safety: handler runs on the server's thread; seen() may be called from any.
#pragma once

#include <QtCore/QElapsedTimer>
#include <QtCore/QHash>
#include <QtCore/QThread>
#include <QtCore/QTimer>
#include <QtCore/QUrl>
#include <QtNetwork/QTcpServer>
#include <QtNetwork/QTcpSocket>

#include "takerequest.h"

#include <functional>
#include <mutex>

namespace qcm::unittest {

struct SeenRequest : RawRequest
{
    qint64 atMs = 0; // when it was read, from the server's start
};

struct Reply
{
    int code = 200;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body = "{}";
    bool hang = false; // never answer
    bool drop = false; // close the connection without an answer
    // A chunked stream instead of `body`: each piece a chunk, written `intervalMs` apart, then
    // the last chunk, or (dropAfterChunks) the connection dropped instead.
    QList<QByteArray> chunks {};
    int intervalMs = 0;
    bool dropAfterChunks = false;
    QByteArray raw {}; // written as it is, instead of a response
};

// A minimal HTTP/1.1 server on its own thread; `handler` decides every reply.
class FakeServer : public QObject
{
public:
    std::function<Reply(const SeenRequest &)> handler;

    FakeServer()
    {
        moveToThread(&m_thread);
        m_thread.start();
        QMetaObject::invokeMethod(
            this,
            [this] {
                m_server = new QTcpServer(this);
                m_server->listen(QHostAddress::LocalHost, 0);
                connect(m_server, &QTcpServer::newConnection, this, [this] {
                    while (QTcpSocket *socket = m_server->nextPendingConnection())
                        connect(socket, &QTcpSocket::readyRead, this,
                            [this, socket] { serve(socket); });
                });
            },
            Qt::BlockingQueuedConnection);
        m_clock.start();
    }

    ~FakeServer() override
    {
        QMetaObject::invokeMethod(
            this, [this] { delete m_server; }, Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    }

    QUrl url() const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server->serverPort()));
    }

    QList<SeenRequest> seen() const
    {
        std::lock_guard lock(m_mutex);
        return m_seen;
    }

private:
    void serve(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        while (std::optional<RawRequest> raw = takeRequest(buffer)) {
            const SeenRequest request {std::move(*raw), m_clock.elapsed()};
            {
                std::lock_guard lock(m_mutex);
                m_seen << request;
            }
            const Reply reply = handler ? handler(request) : Reply {};
            if (reply.hang)
                continue;
            if (reply.drop) {
                socket->abort();
                return;
            }
            if (!reply.raw.isEmpty()) {
                socket->write(reply.raw);
                continue;
            }
            if (!reply.chunks.isEmpty()) {
                socket->write("HTTP/1.1 " + QByteArray::number(reply.code)
                    + " X\r\nContent-Type: application/json\r\nTransfer-Encoding: "
                      "chunked\r\n\r\n");
                writeChunks(socket, reply, 0);
                continue;
            }
            QByteArray out = "HTTP/1.1 " + QByteArray::number(reply.code)
                + " X\r\nContent-Type: application/json\r\n";
            for (const auto &[name, value] : reply.headers)
                out += name + ": " + value + "\r\n";
            out += "Content-Length: " + QByteArray::number(reply.body.size()) + "\r\n\r\n"
                + reply.body;
            socket->write(out);
        }
    }

    void writeChunks(QTcpSocket *socket, const Reply &reply, qsizetype from)
    {
        if (from == reply.chunks.size()) {
            if (reply.dropAfterChunks)
                socket->abort();
            else
                socket->write("0\r\n\r\n");
            return;
        }
        const QByteArray &chunk = reply.chunks.at(from);
        socket->write(QByteArray::number(chunk.size(), 16) + "\r\n" + chunk + "\r\n");
        QTimer::singleShot(reply.intervalMs, socket,
            [this, socket, reply, from] { writeChunks(socket, reply, from + 1); });
    }

    QThread m_thread;
    QTcpServer *m_server = nullptr;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    QElapsedTimer m_clock;
    mutable std::mutex m_mutex;
    QList<SeenRequest> m_seen;
};

} // namespace qcm::unittest
