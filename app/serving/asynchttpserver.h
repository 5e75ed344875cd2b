// SPDX-License-Identifier: Apache-2.0
// AsyncHttpServer: Qt's HTTP/1.1 server (QAbstractHttpServer) with one handler that may answer
// later: the delegated authentication and authorization of a request are calls to the API
// server, and the event loop must not wait for them. A handler gets the request as a value and
// a Respond to call once, now or later. Responses on one connection go out in the order of its
// requests, as HTTP/1.1 pipelining requires: an answer ready early waits for the ones before
// it. A connection that closes before its answer is ready drops it. A HEAD request gets the
// headers of its GET and no body, as Go's net/http.
//
// Thread safety: the thread the server lives on (the host's main thread); Respond must be
// called there too.
#pragma once

#include <QtCore/QHash>
#include <QtCore/QUrlQuery>
#include <QtHttpServer/QAbstractHttpServer>
#include <QtNetwork/QHostAddress>
#include <QtNetwork/QSslCertificate>

#include <functional>
#include <memory>

namespace qcm::host {

class AsyncHttpServer : public QAbstractHttpServer
{
    Q_OBJECT

public:
    struct Request
    {
        QByteArray method; // GET, HEAD, POST, ...
        QString path; // decoded
        QUrlQuery query;
        QByteArray authorization; // the Authorization header, if any
        QList<QSslCertificate> peerCertificateChain; // a client certificate, over TLS
        QHostAddress remoteAddress;
    };
    struct Response
    {
        int status = 200;
        QByteArray contentType;
        QByteArray body;
        QList<QPair<QByteArray, QByteArray>> headers;
    };
    using Respond = std::function<void(Response)>;
    using Handler = std::function<void(const Request &, Respond)>;

    explicit AsyncHttpServer(Handler handler, QObject *parent = nullptr);
    ~AsyncHttpServer() override;

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    struct Connection;
    void flush(QTcpSocket *socket);

    Handler m_handler;
    QHash<QTcpSocket *, std::shared_ptr<Connection>> m_connections;
};

} // namespace qcm::host
