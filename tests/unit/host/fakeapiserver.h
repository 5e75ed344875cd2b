// SPDX-License-Identifier: Apache-2.0
// FakeApiServer: a plain-HTTP/1.1 stand-in for the API server's review endpoints, for the
// delegated-auth tests: each request (method, path, JSON body) goes to a handler that returns
// the status and body, at once or, with `hold`, only when release() is called. It records the
// requests it got. The RestClient talks to it as to any server (http://127.0.0.1:port).
#pragma once

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QPointer>
#include <QtNetwork/QTcpServer>
#include <QtNetwork/QTcpSocket>

#include "../client/takerequest.h"

#include <functional>

namespace qcm::host::testing {

class FakeApiServer : public QObject
{
public:
    struct Request
    {
        QByteArray method;
        QString path;
        QJsonObject body;
    };
    using Handler = std::function<std::pair<int, QJsonObject>(const Request &)>;

    explicit FakeApiServer(Handler handler) : m_handler(std::move(handler))
    {
        m_server.listen(QHostAddress::LocalHost);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] { read(socket); });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }

    QUrl url() const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()));
    }
    const QList<Request> &requests() const { return m_requests; }
    void clearRequests() { m_requests.clear(); }
    // While held, answers wait for release().
    void hold() { m_hold = true; }
    void release()
    {
        m_hold = false;
        const auto held = std::exchange(m_held, {});
        for (const auto &f : held)
            f();
    }
    int heldAnswers() const { return int(m_held.size()); }

private:
    void read(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        while (std::optional<unittest::RawRequest> raw = unittest::takeRequest(buffer)) {
            Request request {raw->method, QString::fromUtf8(raw->path),
                QJsonDocument::fromJson(raw->body).object()};
            m_requests << request;
            const auto [status, body] = m_handler(request);
            QPointer<QTcpSocket> to(socket);
            auto answer = [to, status = status, body = body] {
                if (!to)
                    return;
                const QByteArray json = QJsonDocument(body).toJson(QJsonDocument::Compact);
                to->write("HTTP/1.1 " + QByteArray::number(status)
                    + " X\r\nContent-Type: application/json\r\nContent-Length: "
                    + QByteArray::number(json.size()) + "\r\n\r\n" + json);
            };
            if (m_hold)
                m_held.push_back(answer);
            else
                answer();
        }
    }

    Handler m_handler;
    QTcpServer m_server;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    QList<Request> m_requests;
    bool m_hold = false;
    std::vector<std::function<void()>> m_held;
};

} // namespace qcm::host::testing
