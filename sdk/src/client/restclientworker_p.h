// SPDX-License-Identifier: Apache-2.0
// RestClientWorker: the REST client's I/O thread side. It owns the QNetworkAccessManager, the
// TLS configuration, the token bucket (QPS and burst) and the credential sources, and sends,
// retries and finishes every request; it opens dedicated watches (http1watchreply_p.h) on
// connections of their own. Private to the SDK.
//
// Thread safety: constructed on the client's thread, then moved to the I/O thread; every
// member function runs there (RestClient posts to it with QMetaObject::invokeMethod).
#pragma once

#include <qcm/client/execcredentialprovider.h>
#include <qcm/client/filetokensource.h>
#include <qcm/client/response.h>
#include <qcm/client/restconfig.h>
#include <qcm/client/watch.h>
#include <qcm/tokenbucket.h>

#include <QtCore/QByteArray>
#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QPromise>
#include <QtCore/QUrlQuery>
#include <QtNetwork/QNetworkReply>
#include <QtNetwork/QSslConfiguration>

#include <memory>
#include <optional>

class QNetworkAccessManager;

namespace qcm::client {

class ConnectionHealth;

struct RequestSpec
{
    QByteArray verb;
    QString path;
    QUrlQuery query;
    QByteArray body;
    QByteArray contentType;
    QByteArray accept;
};

// One request on its way: what to send, how often it was tried, and whom to tell.
struct Pending
{
    RequestSpec spec;
    std::shared_ptr<QPromise<Response>> promise;
    int attempt = 1;
    bool resetRetried = false; // a GET whose connection was reset is retried once
    bool authRetried = false; // an exec credential is re-run once after a 401
};

// The reason of a transport error's Status ("TLSError", "ConnectionRefused", ...).
QString transportReason(QNetworkReply::NetworkError error);

// Lives on the I/O thread; everything below runs there unless it says otherwise.
class RestClientWorker : public QObject
{
public:
    explicit RestClientWorker(RestConfig config);
    void init();
    void shutdown();
    void dispatch(Pending p);
    void startWatch(RequestSpec spec, QPointer<Watch> watch);

private:
    // Gets the exec credential (off this thread: the plugin may take a while), then sends.
    void authorize(Pending p, QPointer<Watch> watch);
    static void setClientCertificate(
        QSslConfiguration &ssl, const QByteArray &cert, const QByteArray &key);
    void fail(Pending p, QPointer<Watch> watch, const Status &status);
    void send(Pending p, std::optional<ExecCredentialProvider::Credential> credential,
        QPointer<Watch> watch);
    static void finish(Pending p, Response r);
    // The request for `spec`, without credentials or TLS: URL and the common headers.
    QNetworkRequest requestFor(const RequestSpec &spec) const;
    QNetworkReply *sendProbe();

    RestConfig m_config;
    QNetworkAccessManager *m_nam = nullptr;
    ConnectionHealth *m_health = nullptr; // connectionhealth_p.h
    QSslConfiguration m_ssl;
    TokenBucket m_bucket;
    std::unique_ptr<FileTokenSource> m_tokenFile;
    std::shared_ptr<ExecCredentialProvider> m_exec;
    QByteArray m_userAgent;
};

} // namespace qcm::client
