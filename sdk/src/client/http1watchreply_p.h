// SPDX-License-Identifier: Apache-2.0
// Http1WatchReply: a watch request on a connection of its own, read on the REST client's I/O
// thread (RestConfig::WatchTransport::Dedicated). Private to the SDK.
//
// QNetworkAccessManager reads every socket on a thread of its own and hands the bytes over with
// a queued signal, so a watch event wakes that thread, then the I/O thread that decodes and
// stores it, then the receiver. This reply opens one TCP (and TLS) connection, speaks HTTP/1.1
// on it (one GET, "Connection: close"), and reads it where it lives: the socket's bytes are
// parsed (http1response_p.h) and handed to the Watch in the same call, one wake less.
//
// It is a QNetworkReply, so the Watch, the worker and ConnectionHealth treat it as the access
// manager's own: the status in HttpStatusCodeAttribute, the fields as raw headers, the body
// through read(), errorOccurred() and then finished() once, sslErrors() passed on, and abort()
// ending it at once. The connection is opened within ConnectTimeout, with TCP keep-alive on the
// health check's timings, and an error body over `maxErrorBodyBytes` ends it with
// ProtocolFailure. A malformed response is a ProtocolFailure with the parser's reason.
// ConnectionHealth tracks it as a reply on a connection of its own (track(reply, true)).
//
// Thread safety: a QObject of the I/O thread; use it there only.
#pragma once

#include "http1response_p.h"

#include <qcm/clock.h>

#include <QtCore/QTimer>
#include <QtNetwork/QNetworkReply>
#include <QtNetwork/QSslConfiguration>

QT_BEGIN_NAMESPACE
class QSslSocket;
QT_END_NAMESPACE

namespace qcm::client {

class Http1WatchReply : public QNetworkReply
{
public:
    static constexpr std::chrono::seconds ConnectTimeout {30}; // client-go's dialer's
    static constexpr int KeepAliveProbes = 3;
    // The socket is read in pieces of at most this many bytes, into a buffer kept across reads.
    static constexpr qsizetype ReadPiece = 64 * 1024;
    // What the body's buffer keeps of its capacity once all of it was read.
    static constexpr qsizetype KeptCapacity = 64 * 1024;

    // Sends `request` (its URL, raw headers, TLS configuration and peer verify name) as a GET.
    // An error body over `maxErrorBodyBytes` (> 0) ends it; the connection's TCP keep-alive
    // takes the health check's timings (RestConfig::readIdleTimeout, pingTimeout; zero: the
    // system's).
    Http1WatchReply(const QNetworkRequest &request, qint64 maxErrorBodyBytes,
        Duration readIdleTimeout, Duration pingTimeout, QObject *parent = nullptr);
    ~Http1WatchReply() override;

    void abort() override;
    // The body received and not yet read (what read() would give), without a copy; valid
    // until the reply next runs. consumeBody() marks all of it read. The body's buffer keeps
    // its capacity (up to KeptCapacity) for the next bytes.
    QByteArrayView unreadBody() const;
    void consumeBody();
    qint64 bytesAvailable() const override;
    bool isSequential() const override { return true; }

protected:
    qint64 readData(char *data, qint64 maxSize) override;

private:
    void connectToServer();
    void sendRequest();
    void onReadyRead();
    void onDisconnected();
    void onSocketError();
    // Ends the reply: `error` (NoError for a complete response), then finished().
    void end(NetworkError error, QString message);
    void headReceived();
    void releaseSocket();

    QSslSocket *m_socket = nullptr;
    QTimer m_connectTimer;
    Http1ResponseParser m_parser;
    QByteArray m_request;
    QByteArray m_readBuffer; // one piece read from the socket; its capacity kept
    QByteArray m_body; // received, not yet read
    qsizetype m_bodyRead = 0; // of m_body
    qint64 m_maxErrorBodyBytes;
    int m_keepAliveIdle; // seconds; 0: the system's keep-alive timings
    int m_keepAliveInterval; // seconds
    bool m_headSeen = false;
    bool m_ended = false;
};

} // namespace qcm::client
