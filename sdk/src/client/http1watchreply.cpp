// SPDX-License-Identifier: Apache-2.0
// Http1WatchReply: one watch on its own HTTP/1.1 connection, read on the I/O thread
// (http1watchreply_p.h).
#include "http1watchreply_p.h"

#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QSslSocket>

#ifdef Q_OS_LINUX
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#endif

namespace qcm::client {

namespace {

QNetworkReply::NetworkError socketError(QAbstractSocket::SocketError error)
{
    switch (error) {
    case QAbstractSocket::ConnectionRefusedError:
        return QNetworkReply::ConnectionRefusedError;
    case QAbstractSocket::RemoteHostClosedError:
        return QNetworkReply::RemoteHostClosedError;
    case QAbstractSocket::HostNotFoundError:
        return QNetworkReply::HostNotFoundError;
    case QAbstractSocket::SocketTimeoutError:
        return QNetworkReply::TimeoutError;
    case QAbstractSocket::SslHandshakeFailedError:
        return QNetworkReply::SslHandshakeFailedError;
    case QAbstractSocket::SslInternalError:
    case QAbstractSocket::SslInvalidUserDataError:
        return QNetworkReply::SslHandshakeFailedError;
    default:
        return QNetworkReply::UnknownNetworkError;
    }
}

// The error QNetworkAccessManager gives an HTTP error status.
QNetworkReply::NetworkError statusError(int code)
{
    switch (code) {
    case 401:
        return QNetworkReply::AuthenticationRequiredError;
    case 403:
        return QNetworkReply::ContentAccessDenied;
    case 404:
        return QNetworkReply::ContentNotFoundError;
    case 405:
        return QNetworkReply::ContentOperationNotPermittedError;
    case 409:
        return QNetworkReply::ContentConflictError;
    case 410:
        return QNetworkReply::ContentGoneError;
    case 500:
        return QNetworkReply::InternalServerError;
    case 501:
        return QNetworkReply::OperationNotImplementedError;
    case 503:
        return QNetworkReply::ServiceUnavailableError;
    default:
        return code >= 500 ? QNetworkReply::UnknownServerError : QNetworkReply::UnknownContentError;
    }
}

bool holdsLineBreak(QByteArrayView v)
{
    return v.contains('\r') || v.contains('\n') || v.contains('\0');
}

} // namespace

Http1WatchReply::Http1WatchReply(const QNetworkRequest &request, qint64 maxErrorBodyBytes,
    Duration readIdleTimeout, Duration pingTimeout, QObject *parent)
    : QNetworkReply(parent)
    , m_maxErrorBodyBytes(maxErrorBodyBytes)
    , m_keepAliveIdle(int(std::chrono::ceil<std::chrono::seconds>(readIdleTimeout).count()))
    , m_keepAliveInterval(qMax(
          1, int(std::chrono::ceil<std::chrono::seconds>(pingTimeout / KeepAliveProbes).count())))
{
    setRequest(request);
    setUrl(request.url());
    setOperation(QNetworkAccessManager::GetOperation);
    open(QIODevice::ReadOnly | QIODevice::Unbuffered);
    m_connectTimer.setSingleShot(true);
    connect(&m_connectTimer, &QTimer::timeout, this, [this] {
        end(TimeoutError,
            QStringLiteral("no connection to %1 within %2 s")
                .arg(url().authority())
                .arg(ConnectTimeout.count()));
    });

    const QUrl target = request.url();
    QByteArray path = target.path(QUrl::FullyEncoded).toLatin1();
    if (path.isEmpty())
        path = "/";
    if (target.hasQuery())
        path += '?' + target.query(QUrl::FullyEncoded).toLatin1();
    m_request = "GET " + path + " HTTP/1.1\r\nHost: "
        + target.authority(QUrl::RemoveUserInfo | QUrl::FullyEncoded).toLatin1() + "\r\n";
    for (const QByteArray &name : request.rawHeaderList()) {
        const QByteArray value = request.rawHeader(name);
        if (holdsLineBreak(name) || holdsLineBreak(value)) {
            m_request.clear(); // refused below, when it would have been sent
            break;
        }
        m_request += name + ": " + value + "\r\n";
    }
    if (!m_request.isEmpty())
        m_request += "Connection: close\r\n\r\n";
    // As the access manager's replies do: the caller connects to the signals first.
    QMetaObject::invokeMethod(this, &Http1WatchReply::connectToServer, Qt::QueuedConnection);
}

Http1WatchReply::~Http1WatchReply()
{
    releaseSocket();
}

void Http1WatchReply::connectToServer()
{
    if (m_ended)
        return;
    if (m_request.isEmpty()) {
        end(ProtocolInvalidOperationError,
            QStringLiteral("a header of the request holds a line break or NUL; not sent"));
        return;
    }
    const QUrl target = url();
    const bool tls = target.scheme() == QLatin1String("https");
    m_socket = new QSslSocket(this);
    connect(m_socket, &QSslSocket::readyRead, this, &Http1WatchReply::onReadyRead);
    connect(m_socket, &QAbstractSocket::disconnected, this, &Http1WatchReply::onDisconnected);
    connect(m_socket, &QAbstractSocket::errorOccurred, this, &Http1WatchReply::onSocketError);
    connect(m_socket, &QSslSocket::sslErrors, this,
        [this](const QList<QSslError> &errors) { emit sslErrors(errors); });
    m_connectTimer.start(ConnectTimeout);
    if (tls) {
        QSslConfiguration ssl = request().sslConfiguration();
        ssl.setAllowedNextProtocols({QSslConfiguration::NextProtocolHttp1_1});
        m_socket->setSslConfiguration(ssl);
        connect(m_socket, &QSslSocket::encrypted, this, &Http1WatchReply::sendRequest);
        const QString peer = request().peerVerifyName();
        m_socket->connectToHostEncrypted(
            target.host(), quint16(target.port(443)), peer.isEmpty() ? target.host() : peer);
    } else {
        connect(m_socket, &QAbstractSocket::connected, this, &Http1WatchReply::sendRequest);
        m_socket->connectToHost(target.host(), quint16(target.port(80)));
    }
}

void Http1WatchReply::sendRequest()
{
    m_connectTimer.stop();
    m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    m_socket->setSocketOption(QAbstractSocket::KeepAliveOption, 1);
#ifdef Q_OS_LINUX
    // Qt turns keep-alive on with the system's timings (two hours of silence). This
    // connection's is the health check's instead: after readIdleTimeout of silence, three
    // probes pingTimeout / 3 apart; unanswered, the kernel resets the connection, and the
    // watch ends for its reflector to start the next.
    if (m_keepAliveIdle > 0) {
        const int fd = int(m_socket->socketDescriptor());
        const int idle = m_keepAliveIdle;
        const int interval = m_keepAliveInterval;
        const int count = KeepAliveProbes;
        ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
        ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
        ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
    }
#endif
    m_socket->write(m_request);
}

void Http1WatchReply::headReceived()
{
    m_headSeen = true;
    setAttribute(QNetworkRequest::HttpStatusCodeAttribute, m_parser.statusCode());
    setAttribute(
        QNetworkRequest::HttpReasonPhraseAttribute, QString::fromLatin1(m_parser.reasonPhrase()));
    setAttribute(QNetworkRequest::Http2WasUsedAttribute, false);
    for (const auto &[name, value] : m_parser.headers()) {
        if (hasRawHeader(name)) // repeated fields join, as the access manager's do
            setRawHeader(name, rawHeader(name) + ", " + value);
        else
            setRawHeader(name, value);
    }
    emit metaDataChanged();
}

void Http1WatchReply::onReadyRead()
{
    if (m_ended)
        return;
    if (m_bodyRead == m_body.size()) { // all read: start over, keeping a small capacity
        if (m_body.capacity() > KeptCapacity)
            m_body = QByteArray();
        else
            m_body.resize(0);
        m_bodyRead = 0;
    }
    const qsizetype before = m_body.size();
    auto state = m_parser.state();
    // Read into a buffer kept across reads (readAll() would allocate one per read).
    const auto reading = [&state] {
        return state == Http1ResponseParser::State::Head
            || state == Http1ResponseParser::State::Body;
    };
    for (qint64 available; reading() && (available = m_socket->bytesAvailable()) > 0;) {
        m_readBuffer.resize(qsizetype(qMin<qint64>(available, ReadPiece)));
        const qint64 n = m_socket->read(m_readBuffer.data(), m_readBuffer.size());
        if (n <= 0)
            break;
        state = m_parser.feed(QByteArrayView(m_readBuffer).first(qsizetype(n)), m_body);
    }
    if (!m_headSeen && m_parser.headComplete()) {
        headReceived();
        if (m_ended) // aborted by a metaDataChanged() handler
            return;
    }
    if (state == Http1ResponseParser::State::Failed) {
        // After a 200 head, the body read so far stays for the Watch: as a stream that
        // breaks, it ends with the events it carried.
        end(ProtocolFailure,
            QStringLiteral("malformed HTTP/1.1 response from %1: %2")
                .arg(url().authority(), m_parser.error()));
        return;
    }
    const int code = m_parser.statusCode();
    if (m_headSeen && (code < 200 || code >= 300) && m_maxErrorBodyBytes > 0
        && m_body.size() > m_maxErrorBodyBytes) {
        m_body.clear();
        m_bodyRead = 0;
        end(ProtocolFailure,
            QStringLiteral("the body of the %1 response from %2 exceeds %3 bytes, the limit")
                .arg(code)
                .arg(url().authority())
                .arg(m_maxErrorBodyBytes));
        return;
    }
    if (m_body.size() > before)
        emit readyRead();
    if (state == Http1ResponseParser::State::Complete && !m_ended)
        end(NoError, {});
}

void Http1WatchReply::onDisconnected()
{
    if (m_ended)
        return;
    if (m_socket->bytesAvailable() > 0)
        onReadyRead();
    if (m_ended)
        return;
    if (m_parser.finishOnClose() == Http1ResponseParser::State::Complete) {
        if (!m_headSeen)
            headReceived();
        end(NoError, {});
        return;
    }
    end(RemoteHostClosedError, QStringLiteral("%1: %2").arg(url().authority(), m_parser.error()));
}

void Http1WatchReply::onSocketError()
{
    if (m_ended)
        return;
    if (m_socket->error() == QAbstractSocket::RemoteHostClosedError) {
        onDisconnected();
        return;
    }
    end(socketError(m_socket->error()), m_socket->errorString());
}

void Http1WatchReply::abort()
{
    if (m_ended)
        return;
    close();
    m_body.clear();
    m_bodyRead = 0;
    end(OperationCanceledError, QStringLiteral("Operation canceled"));
}

void Http1WatchReply::end(NetworkError error, QString message)
{
    if (m_ended)
        return;
    m_ended = true;
    m_connectTimer.stop();
    releaseSocket();
    const int code = m_parser.statusCode();
    if (error == NoError && m_headSeen && code >= 400) {
        error = statusError(code);
        message = QStringLiteral("Error transferring %1 - server replied: %2")
                      .arg(url().toString(QUrl::RemoveQuery),
                          QString::fromLatin1(m_parser.reasonPhrase()));
    }
    if (error != NoError)
        setError(error, message);
    setFinished(true);
    if (error != NoError)
        emit errorOccurred(error);
    emit readChannelFinished();
    emit finished();
}

void Http1WatchReply::releaseSocket()
{
    if (!m_socket)
        return;
    m_socket->disconnect(this);
    m_socket->abort();
    m_socket->deleteLater();
    m_socket = nullptr;
}

qint64 Http1WatchReply::bytesAvailable() const
{
    return m_body.size() - m_bodyRead + QNetworkReply::bytesAvailable();
}

qint64 Http1WatchReply::readData(char *data, qint64 maxSize)
{
    const qint64 n = qMin<qint64>(maxSize, m_body.size() - m_bodyRead);
    if (n <= 0)
        return m_ended ? -1 : 0;
    memcpy(data, m_body.constData() + m_bodyRead, size_t(n));
    m_bodyRead += qsizetype(n);
    return n;
}

QByteArrayView Http1WatchReply::unreadBody() const
{
    return QByteArrayView(m_body).sliced(m_bodyRead);
}

void Http1WatchReply::consumeBody()
{
    m_bodyRead = m_body.size();
}

} // namespace qcm::client
