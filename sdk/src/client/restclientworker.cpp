// SPDX-License-Identifier: Apache-2.0
// RestClientWorker: sending, retrying and finishing requests on the client's I/O thread.
#include "restclientworker_p.h"

#include "connectionhealth_p.h"
#include "http1watchreply_p.h"

#include <qcm/version.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QThread>
#include <QtCore/QThreadPool>
#include <QtCore/QTimer>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QSslCertificate>
#include <QtNetwork/QSslKey>

namespace qcm::client {

namespace {

constexpr int MaxRetries = 10; // client-go's maxRetries for Retry-After responses

// QUrlQuery leaves '+' alone, but the API server decodes it as a space.
QString encodeQuery(const QUrlQuery &query)
{
    QString out = query.toString(QUrl::FullyEncoded);
    return out.replace(QLatin1Char('+'), QStringLiteral("%2B"));
}

} // namespace

QString transportReason(QNetworkReply::NetworkError error)
{
    switch (error) {
    case QNetworkReply::SslHandshakeFailedError:
        return QStringLiteral("TLSError");
    case QNetworkReply::ConnectionRefusedError:
        return QStringLiteral("ConnectionRefused");
    case QNetworkReply::RemoteHostClosedError:
        return QStringLiteral("ConnectionReset");
    case QNetworkReply::HostNotFoundError:
        return QStringLiteral("HostNotFound");
    case QNetworkReply::TimeoutError:
        return QStringLiteral("Timeout");
    default:
        return QStringLiteral("TransportError");
    }
}

RestClientWorker::RestClientWorker(RestConfig config)
    : m_config(std::move(config))
    , m_bucket(m_config.qps > 0 ? m_config.qps : std::numeric_limits<double>::max(),
          m_config.qps > 0 ? m_config.burst : 0)
{ }

void RestClientWorker::init()
{
    m_nam = new QNetworkAccessManager(this);
    m_nam->setAutoDeleteReplies(false);
    m_health = new ConnectionHealth(
        m_nam, m_config.server.toString(QUrl::RemoveUserInfo | QUrl::RemovePath),
        m_config.readIdleTimeout, m_config.pingTimeout, [this] { return sendProbe(); }, this);
    m_ssl = QSslConfiguration::defaultConfiguration();
    if (!m_config.caData.isEmpty())
        m_ssl.setCaCertificates(QSslCertificate::fromData(m_config.caData, QSsl::Pem));
    if (m_config.insecureSkipTlsVerify)
        m_ssl.setPeerVerifyMode(QSslSocket::VerifyNone);
    setClientCertificate(m_ssl, m_config.clientCertData, m_config.clientKeyData);
    m_ssl.setAllowedNextProtocols(
        {QSslConfiguration::ALPNProtocolHTTP2, QSslConfiguration::NextProtocolHttp1_1});
    if (!m_config.bearerTokenFile.isEmpty())
        m_tokenFile = std::make_unique<FileTokenSource>(m_config.bearerTokenFile);
    if (m_config.exec)
        m_exec = std::make_shared<ExecCredentialProvider>(
            *m_config.exec, m_config.server, m_config.caData);
    m_userAgent = (m_config.userAgent.isEmpty() ? QStringLiteral("qcm/" QCM_VERSION_STRING)
                                                : m_config.userAgent)
                      .toUtf8();
}

void RestClientWorker::shutdown()
{
    delete m_health;
    m_health = nullptr;
    const auto replies = m_nam->findChildren<QNetworkReply *>();
    for (QNetworkReply *reply : replies)
        reply->abort();
    delete m_nam;
    m_nam = nullptr;
}

void RestClientWorker::dispatch(Pending p)
{
    const Duration wait = m_bucket.reserve(Clock::system()->now());
    if (wait > Duration::zero()) {
        QTimer::singleShot(std::chrono::duration_cast<std::chrono::milliseconds>(wait)
                + std::chrono::milliseconds(1),
            this, [this, p = std::move(p)]() mutable { authorize(std::move(p), nullptr); });
        return;
    }
    authorize(std::move(p), nullptr);
}

void RestClientWorker::startWatch(RequestSpec spec, QPointer<Watch> watch)
{
    Pending p;
    p.spec = std::move(spec);
    authorize(std::move(p), watch);
}

void RestClientWorker::authorize(Pending p, QPointer<Watch> watch)
{
    if (!m_exec) {
        send(std::move(p), {}, watch);
        return;
    }
    auto exec = m_exec;
    QThreadPool::globalInstance()->start([this, exec, p = std::move(p), watch]() mutable {
        auto credential = exec->credential();
        QMetaObject::invokeMethod(
            this, [this, p = std::move(p), watch, credential = std::move(credential)]() mutable {
                if (!credential) {
                    fail(std::move(p), watch,
                        Status::transportError(
                            QStringLiteral("Unauthorized"), credential.error().toString()));
                    return;
                }
                send(std::move(p), *credential, watch);
            });
    });
}

void RestClientWorker::setClientCertificate(
    QSslConfiguration &ssl, const QByteArray &cert, const QByteArray &key)
{
    if (cert.isEmpty())
        return;
    const auto certs = QSslCertificate::fromData(cert, QSsl::Pem);
    if (!certs.isEmpty())
        ssl.setLocalCertificate(certs.first());
    QSslKey sslKey(key, QSsl::Rsa);
    if (sslKey.isNull())
        sslKey = QSslKey(key, QSsl::Ec);
    ssl.setPrivateKey(sslKey);
}

void RestClientWorker::fail(Pending p, QPointer<Watch> watch, const Status &status)
{
    if (watch) {
        WatchEvent event;
        event.status = status;
        watch->deliver(event);
        watch->onFinished();
        return;
    }
    Response r;
    r.transportError = status;
    finish(std::move(p), std::move(r));
}

void RestClientWorker::send(
    Pending p, std::optional<ExecCredentialProvider::Credential> credential, QPointer<Watch> watch)
{
    if (!m_nam) { // the client is being destroyed: fail rather than leave a caller waiting
        fail(std::move(p), watch,
            Status::transportError(QStringLiteral("ShutDown"),
                QStringLiteral("the RestClient was destroyed before the request was sent")));
        return;
    }
    QNetworkRequest request = requestFor(p.spec);

    QSslConfiguration ssl = m_ssl;
    QString token = m_config.bearerToken;
    if (m_tokenFile) {
        auto fileToken = m_tokenFile->token();
        if (!fileToken) {
            fail(std::move(p), watch,
                Status::transportError(
                    QStringLiteral("Unauthorized"), fileToken.error().toString()));
            return;
        }
        token = *fileToken;
    }
    if (credential) {
        if (!credential->token.isEmpty())
            token = credential->token;
        setClientCertificate(ssl, credential->clientCertificateData, credential->clientKeyData);
    }
    if (!token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + token.toUtf8());
    else if (!m_config.username.isEmpty())
        request.setRawHeader("Authorization",
            "Basic "
                + (m_config.username + QLatin1Char(':') + m_config.password).toUtf8().toBase64());
    request.setSslConfiguration(ssl);

    // A dedicated watch is a child of the access manager too, so that shutdown() aborts it.
    const bool dedicated
        = watch && m_config.watchTransport == RestConfig::WatchTransport::Dedicated;
    QNetworkReply *reply = dedicated ? new Http1WatchReply(request, m_config.maxResponseBytes,
                               m_config.readIdleTimeout, m_config.pingTimeout, m_nam)
                                     : m_nam->sendCustomRequest(request, p.spec.verb, p.spec.body);
    m_health->track(reply, dedicated);
    auto sslErrors = std::make_shared<QStringList>();
    connect(reply, &QNetworkReply::sslErrors, reply, [sslErrors](const QList<QSslError> &errors) {
        for (const QSslError &e : errors)
            *sslErrors << e.errorString();
    });
    if (watch) {
        watch->attach(reply);
        // The Watch reads the TLS errors from the reply when it fails.
        connect(reply, &QNetworkReply::errorOccurred, reply,
            [reply, sslErrors] { reply->setProperty("qcm_ssl_errors", *sslErrors); });
        return;
    }
    auto timedOut = std::make_shared<bool>(false);
    auto tooLarge = std::make_shared<bool>(false);
    if (m_config.maxResponseBytes > 0) {
        // Abandoned as soon as more arrives than the limit (or the server announces more).
        connect(reply, &QNetworkReply::downloadProgress, reply,
            [reply, tooLarge, max = m_config.maxResponseBytes](qint64 received, qint64 total) {
                if (!*tooLarge && (received > max || total > max)) {
                    *tooLarge = true;
                    reply->abort();
                }
            });
    }
    if (m_config.timeout > Duration::zero()) {
        auto *timer = new QTimer(reply);
        timer->setSingleShot(true);
        connect(timer, &QTimer::timeout, reply, [reply, timedOut] {
            *timedOut = true;
            reply->abort();
        });
        timer->start(std::chrono::duration_cast<std::chrono::milliseconds>(m_config.timeout));
    }
    connect(reply, &QNetworkReply::finished, this,
        [this, reply, p = std::move(p), sslErrors, timedOut, tooLarge, credential]() mutable {
            reply->deleteLater();
            Response r;
            r.attempts = p.attempt;
            r.code = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            r.http2 = reply->attribute(QNetworkRequest::Http2WasUsedAttribute).toBool();
            r.body = reply->isOpen() ? reply->readAll() : QByteArray(); // aborted: closed
            r.headers = reply->rawHeaderPairs();
            if (*tooLarge) {
                r.code = 0;
                r.body.clear();
                r.transportError = Status::transportError(QStringLiteral("ResponseTooLarge"),
                    QStringLiteral("%1 %2: the response exceeds %3 bytes, the limit "
                                   "(maxResponseBytes; clientConnection.maxResponseBytes in "
                                   "controller-manager.yaml)")
                        .arg(QString::fromLatin1(p.spec.verb), p.spec.path)
                        .arg(m_config.maxResponseBytes));
                finish(std::move(p), std::move(r));
                return;
            }
            if (r.code == 0) {
                const QString lost = ConnectionHealth::lostReason(reply);
                if (*timedOut) {
                    r.transportError = Status::transportError(QStringLiteral("Timeout"),
                        QStringLiteral("%1 %2: no response within %3 ms")
                            .arg(QString::fromLatin1(p.spec.verb), p.spec.path)
                            .arg(std::chrono::duration_cast<std::chrono::milliseconds>(
                                m_config.timeout)
                                     .count()));
                } else if ((reply->error() == QNetworkReply::RemoteHostClosedError
                               || !lost.isEmpty())
                    && p.spec.verb == "GET" && !p.resetRetried) {
                    p.resetRetried = true;
                    QTimer::singleShot(std::chrono::seconds(1), this,
                        [this, p = std::move(p)]() mutable { dispatch(std::move(p)); });
                    return;
                } else if (!lost.isEmpty()) {
                    r.transportError = Status::transportError(QStringLiteral("ConnectionLost"),
                        QStringLiteral("%1 %2: %3")
                            .arg(QString::fromLatin1(p.spec.verb), p.spec.path, lost));
                } else {
                    QString message
                        = QStringLiteral("%1 %2: %3")
                              .arg(QString::fromLatin1(p.spec.verb),
                                  reply->url().toString(QUrl::RemoveQuery), reply->errorString());
                    if (!sslErrors->isEmpty())
                        message += QStringLiteral(" (") + sslErrors->join(QStringLiteral("; "))
                            + QLatin1Char(')');
                    r.transportError
                        = Status::transportError(transportReason(reply->error()), message);
                }
                finish(std::move(p), std::move(r));
                return;
            }
            const QByteArray retryAfter = r.header("Retry-After");
            bool retryOk = false;
            const int seconds = retryAfter.trimmed().toInt(&retryOk);
            if ((r.code == 429 || r.code >= 500) && retryOk && p.attempt <= MaxRetries) {
                ++p.attempt;
                QTimer::singleShot(std::chrono::seconds(qMax(0, seconds)), this,
                    [this, p = std::move(p)]() mutable { dispatch(std::move(p)); });
                return;
            }
            if (r.code == 401 && credential && !p.authRetried) {
                p.authRetried = true;
                m_exec->invalidate();
                dispatch(std::move(p));
                return;
            }
            finish(std::move(p), std::move(r));
        });
}

QNetworkRequest RestClientWorker::requestFor(const RequestSpec &spec) const
{
    QUrl url = m_config.server;
    url.setPath(m_config.server.path() + spec.path, QUrl::DecodedMode);
    if (!spec.query.isEmpty())
        url.setQuery(encodeQuery(spec.query), QUrl::StrictMode);
    QNetworkRequest request(url);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, true);
    request.setAttribute(
        QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    // Qt follows redirects by default, headers and token included (redirect_p.h); a 3xx is
    // the answer instead. The dedicated watch transport never follows one either.
    request.setAttribute(
        QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setRawHeader("User-Agent", m_userAgent);
    request.setRawHeader(
        "Accept", spec.accept.isEmpty() ? QByteArrayLiteral("application/json") : spec.accept);
    if (!spec.contentType.isEmpty())
        request.setRawHeader("Content-Type", spec.contentType);
    if (!m_config.tlsServerName.isEmpty())
        request.setPeerVerifyName(m_config.tlsServerName);
    return request;
}

// Without credentials: any answer, 401 included, shows that the connection carries one.
QNetworkReply *RestClientWorker::sendProbe()
{
    if (!m_nam)
        return nullptr;
    QNetworkRequest request = requestFor({"GET", QStringLiteral("/livez"), {}, {}, {}, {}});
    request.setSslConfiguration(m_ssl);
    return m_nam->get(request);
}

void RestClientWorker::finish(Pending p, Response r)
{
    r.attempts = p.attempt;
    p.promise->addResult(std::move(r));
    p.promise->finish();
}

} // namespace qcm::client
