// SPDX-License-Identifier: Apache-2.0
#include "serving/asynchttpserver.h"

#include <QtCore/QPointer>
#include <QtHttpServer/QHttpServerRequest>
#include <QtHttpServer/QHttpServerResponder>
#include <QtNetwork/QSslSocket>

#include <deque>
#include <optional>

namespace qcm::host {

namespace {

QByteArray methodName(QHttpServerRequest::Method method)
{
    switch (method) {
    case QHttpServerRequest::Method::Get:
        return QByteArrayLiteral("GET");
    case QHttpServerRequest::Method::Head:
        return QByteArrayLiteral("HEAD");
    case QHttpServerRequest::Method::Post:
        return QByteArrayLiteral("POST");
    case QHttpServerRequest::Method::Put:
        return QByteArrayLiteral("PUT");
    case QHttpServerRequest::Method::Delete:
        return QByteArrayLiteral("DELETE");
    case QHttpServerRequest::Method::Patch:
        return QByteArrayLiteral("PATCH");
    case QHttpServerRequest::Method::Options:
        return QByteArrayLiteral("OPTIONS");
    case QHttpServerRequest::Method::Trace:
        return QByteArrayLiteral("TRACE");
    case QHttpServerRequest::Method::Connect:
        return QByteArrayLiteral("CONNECT");
    default:
        return QByteArrayLiteral("UNKNOWN");
    }
}

} // namespace

// One answer in a connection's queue: the responder is made when the request arrives (it
// writes nothing until asked); the response is set when the handler answers.
struct PendingAnswer
{
    PendingAnswer(QHttpServerResponder &&r, bool h) : responder(std::move(r)), head(h) { }
    QHttpServerResponder responder;
    bool head; // HEAD: the headers GET would get, no body (as Go's net/http)
    std::optional<AsyncHttpServer::Response> response;
};

struct AsyncHttpServer::Connection
{
    QPointer<QTcpSocket> socket;
    std::deque<std::shared_ptr<PendingAnswer>> answers; // in request order
};

AsyncHttpServer::AsyncHttpServer(Handler handler, QObject *parent)
    : QAbstractHttpServer(parent), m_handler(std::move(handler))
{ }

AsyncHttpServer::~AsyncHttpServer() = default;

bool AsyncHttpServer::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    Request r;
    r.method = methodName(request.method());
    r.path = request.url().path();
    r.query = request.query();
    r.authorization = request.value(QByteArrayLiteral("authorization"));
    if (const auto *tls = qobject_cast<QSslSocket *>(socket))
        r.peerCertificateChain = tls->peerCertificateChain();
    r.remoteAddress = request.remoteAddress();

    std::shared_ptr<Connection> &connection = m_connections[socket];
    if (!connection) {
        connection = std::make_shared<Connection>();
        connection->socket = socket;
        connect(
            socket, &QObject::destroyed, this, [this, socket] { m_connections.remove(socket); });
    }
    auto slot = std::make_shared<PendingAnswer>(
        makeResponder(request, socket), request.method() == QHttpServerRequest::Method::Head);
    connection->answers.push_back(slot);
    // The Respond holds the slot weakly: a connection gone takes its answers with it.
    std::weak_ptr<PendingAnswer> weak = slot;
    QPointer<AsyncHttpServer> self(this);
    m_handler(r, [self, weak, socket](Response response) {
        const std::shared_ptr<PendingAnswer> s = weak.lock();
        if (!self || !s || s->response)
            return;
        s->response = std::move(response);
        self->flush(socket);
    });
    return true;
}

void AsyncHttpServer::missingHandler(const QHttpServerRequest &, QTcpSocket *)
{
    // handleRequest() answers every request.
}

void AsyncHttpServer::flush(QTcpSocket *socket)
{
    const auto it = m_connections.find(socket);
    if (it == m_connections.end())
        return;
    Connection &c = **it;
    while (!c.answers.empty() && c.answers.front()->response) {
        const std::shared_ptr<PendingAnswer> slot = c.answers.front();
        c.answers.pop_front();
        if (!c.socket || c.socket->state() != QAbstractSocket::ConnectedState)
            continue;
        const Response &response = *slot->response;
        slot->responder.writeStatusLine(QHttpServerResponder::StatusCode(response.status));
        slot->responder.writeHeader(QByteArrayLiteral("Content-Type"), response.contentType);
        for (const auto &h : response.headers)
            slot->responder.writeHeader(h.first, h.second);
        slot->responder.writeHeader(
            QByteArrayLiteral("Content-Length"), QByteArray::number(response.body.size()));
        slot->responder.writeBody(slot->head ? QByteArray() : response.body);
    }
}

} // namespace qcm::host
