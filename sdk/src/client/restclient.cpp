#include <qcm/client/execcredentialprovider.h>
#include <qcm/client/filetokensource.h>
#include <qcm/client/restclient.h>
#include <qcm/tokenbucket.h>
#include <qcm/version.h>

#include "../core/deleteinownthread_p.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QPromise>
#include <QtCore/QThread>
#include <QtCore/QThreadPool>
#include <QtCore/QTimer>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkReply>
#include <QtNetwork/QSslCertificate>
#include <QtNetwork/QSslConfiguration>
#include <QtNetwork/QSslKey>

namespace qcm::client {

namespace {

constexpr int MaxRetries = 10; // client-go's maxRetries for Retry-After responses

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

QByteArray patchContentType(PatchType type)
{
    switch (type) {
    case PatchType::Json:
        return QByteArrayLiteral("application/json-patch+json");
    case PatchType::Merge:
        return QByteArrayLiteral("application/merge-patch+json");
    case PatchType::StrategicMerge:
        return QByteArrayLiteral("application/strategic-merge-patch+json");
    case PatchType::Apply:
        return QByteArrayLiteral("application/apply-patch+yaml");
    }
    return {};
}

QUrlQuery listQuery(const ListOptions &o)
{
    QUrlQuery q;
    if (!o.labelSelector.isEmpty())
        q.addQueryItem(QStringLiteral("labelSelector"), o.labelSelector);
    if (!o.fieldSelector.isEmpty())
        q.addQueryItem(QStringLiteral("fieldSelector"), o.fieldSelector);
    if (o.limit > 0)
        q.addQueryItem(QStringLiteral("limit"), QString::number(o.limit));
    if (!o.continueToken.isEmpty())
        q.addQueryItem(QStringLiteral("continue"), o.continueToken);
    if (!o.resourceVersion.isEmpty())
        q.addQueryItem(QStringLiteral("resourceVersion"), o.resourceVersion);
    if (!o.resourceVersionMatch.isEmpty())
        q.addQueryItem(QStringLiteral("resourceVersionMatch"), o.resourceVersionMatch);
    if (o.timeoutSeconds)
        q.addQueryItem(QStringLiteral("timeoutSeconds"), QString::number(*o.timeoutSeconds));
    if (o.allowWatchBookmarks)
        q.addQueryItem(QStringLiteral("allowWatchBookmarks"), QStringLiteral("true"));
    if (o.sendInitialEvents)
        q.addQueryItem(QStringLiteral("sendInitialEvents"), QStringLiteral("true"));
    return q;
}

// QUrlQuery leaves '+' alone, but the API server decodes it as a space.
QString encodeQuery(const QUrlQuery &query)
{
    QString out = query.toString(QUrl::FullyEncoded);
    return out.replace(QLatin1Char('+'), QStringLiteral("%2B"));
}

QString objectPath(const GroupVersionResource &gvr, const QString &ns, const QString &name,
    const QString &subresource)
{
    QString path = gvr.collectionPath(ns) + QLatin1Char('/')
        + QString::fromUtf8(QUrl::toPercentEncoding(name));
    if (!subresource.isEmpty())
        path += QLatin1Char('/') + subresource;
    return path;
}

Response wrongThread()
{
    Response r;
    r.transportError = Status::transportError(QStringLiteral("WrongThread"),
        QStringLiteral("a blocking RestClient call on the client's own I/O thread would "
                       "deadlock; use the async form there"));
    return r;
}

} // namespace

Status Response::status() const
{
    if (transportError)
        return *transportError;
    return Status::fromResponse(code, body);
}

QByteArray Response::header(const QByteArray &name) const
{
    for (const auto &[key, value] : headers)
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    return {};
}

// Lives on the I/O thread; everything below runs there unless it says otherwise.
class RestClientWorker : public QObject
{
public:
    explicit RestClientWorker(RestConfig config)
        : m_config(std::move(config))
        , m_bucket(m_config.qps > 0 ? m_config.qps : std::numeric_limits<double>::max(),
              m_config.qps > 0 ? m_config.burst : 0)
    { }

    void init()
    {
        m_nam = new QNetworkAccessManager(this);
        m_nam->setAutoDeleteReplies(false);
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

    void shutdown()
    {
        const auto replies = m_nam->findChildren<QNetworkReply *>();
        for (QNetworkReply *reply : replies)
            reply->abort();
        delete m_nam;
        m_nam = nullptr;
    }

    void dispatch(Pending p)
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

    void startWatch(RequestSpec spec, QPointer<Watch> watch)
    {
        Pending p;
        p.spec = std::move(spec);
        authorize(std::move(p), watch);
    }

private:
    // Gets the exec credential (off this thread: the plugin may take a while), then sends.
    void authorize(Pending p, QPointer<Watch> watch)
    {
        if (!m_exec) {
            send(std::move(p), {}, watch);
            return;
        }
        auto exec = m_exec;
        QThreadPool::globalInstance()->start([this, exec, p = std::move(p), watch]() mutable {
            auto credential = exec->credential();
            QMetaObject::invokeMethod(this,
                [this, p = std::move(p), watch, credential = std::move(credential)]() mutable {
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

    static void setClientCertificate(
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

    void fail(Pending p, QPointer<Watch> watch, const Status &status)
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

    void send(Pending p, std::optional<ExecCredentialProvider::Credential> credential,
        QPointer<Watch> watch)
    {
        if (!m_nam) { // the client is being destroyed: fail rather than leave a caller waiting
            fail(std::move(p), watch,
                Status::transportError(QStringLiteral("ShutDown"),
                    QStringLiteral("the RestClient was destroyed before the request was sent")));
            return;
        }
        QUrl url = m_config.server;
        url.setPath(m_config.server.path() + p.spec.path, QUrl::DecodedMode);
        if (!p.spec.query.isEmpty())
            url.setQuery(encodeQuery(p.spec.query), QUrl::StrictMode);
        QNetworkRequest request(url);
        request.setAttribute(QNetworkRequest::Http2AllowedAttribute, true);
        request.setAttribute(
            QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
        request.setRawHeader("User-Agent", m_userAgent);
        request.setRawHeader("Accept",
            p.spec.accept.isEmpty() ? QByteArrayLiteral("application/json") : p.spec.accept);
        if (!p.spec.contentType.isEmpty())
            request.setRawHeader("Content-Type", p.spec.contentType);
        if (!m_config.tlsServerName.isEmpty())
            request.setPeerVerifyName(m_config.tlsServerName);

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
                    + (m_config.username + QLatin1Char(':') + m_config.password)
                          .toUtf8()
                          .toBase64());
        request.setSslConfiguration(ssl);

        QNetworkReply *reply = m_nam->sendCustomRequest(request, p.spec.verb, p.spec.body);
        auto sslErrors = std::make_shared<QStringList>();
        connect(
            reply, &QNetworkReply::sslErrors, reply, [sslErrors](const QList<QSslError> &errors) {
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
            [this, reply, p = std::move(p), sslErrors, timedOut, credential]() mutable {
                reply->deleteLater();
                Response r;
                r.attempts = p.attempt;
                r.code = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
                r.http2 = reply->attribute(QNetworkRequest::Http2WasUsedAttribute).toBool();
                r.body = reply->isOpen() ? reply->readAll() : QByteArray(); // aborted: closed
                r.headers = reply->rawHeaderPairs();
                if (r.code == 0) {
                    if (*timedOut) {
                        r.transportError = Status::transportError(QStringLiteral("Timeout"),
                            QStringLiteral("%1 %2: no response within %3 ms")
                                .arg(QString::fromLatin1(p.spec.verb), p.spec.path)
                                .arg(std::chrono::duration_cast<std::chrono::milliseconds>(
                                    m_config.timeout)
                                         .count()));
                    } else if (reply->error() == QNetworkReply::RemoteHostClosedError
                        && p.spec.verb == "GET" && !p.resetRetried) {
                        p.resetRetried = true;
                        QTimer::singleShot(std::chrono::seconds(1), this,
                            [this, p = std::move(p)]() mutable { dispatch(std::move(p)); });
                        return;
                    } else {
                        QString message = QStringLiteral("%1 %2: %3")
                                              .arg(QString::fromLatin1(p.spec.verb),
                                                  reply->url().toString(QUrl::RemoveQuery),
                                                  reply->errorString());
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

    static void finish(Pending p, Response r)
    {
        r.attempts = p.attempt;
        p.promise->addResult(std::move(r));
        p.promise->finish();
    }

    RestConfig m_config;
    QNetworkAccessManager *m_nam = nullptr;
    QSslConfiguration m_ssl;
    TokenBucket m_bucket;
    std::unique_ptr<FileTokenSource> m_tokenFile;
    std::shared_ptr<ExecCredentialProvider> m_exec;
    QByteArray m_userAgent;
};

// --- Watch -------------------------------------------------------------------------------

Watch::Watch(const Codec *codec) : m_decoder(codec) { }

Watch::~Watch()
{
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
    }
}

void Watch::attach(QNetworkReply *reply)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_stopRequested) {
            reply->abort();
            reply->deleteLater();
            m_finished = true;
            m_changed.notify_all();
            return;
        }
    }
    m_reply = reply;
    connect(reply, &QNetworkReply::readyRead, this, &Watch::onReadyRead);
    connect(reply, &QNetworkReply::finished, this, &Watch::onFinished);
}

void Watch::deliver(const WatchEvent &event)
{
    {
        std::lock_guard lock(m_mutex);
        m_events.push_back(event);
    }
    m_changed.notify_all();
    emit eventReceived(event);
}

void Watch::onReadyRead()
{
    if (!m_reply)
        return;
    const int code = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (code != 200)
        return; // an error body: read whole when finished
    {
        std::lock_guard lock(m_mutex);
        m_http2 = m_reply->attribute(QNetworkRequest::Http2WasUsedAttribute).toBool();
    }
    for (const WatchEvent &event : m_decoder.feed(m_reply->readAll()))
        deliver(event);
}

void Watch::onFinished()
{
    bool stopped;
    {
        std::lock_guard lock(m_mutex);
        if (m_finished)
            return;
        stopped = m_stopRequested;
    }
    if (m_reply) {
        const int code = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        // An aborted reply is closed: nothing is left to read.
        const QByteArray rest = m_reply->isOpen() ? m_reply->readAll() : QByteArray();
        if (code == 200) {
            for (const WatchEvent &event : m_decoder.feed(rest))
                deliver(event);
            if (!stopped)
                for (const WatchEvent &event : m_decoder.finish())
                    deliver(event);
        } else if (code != 0) {
            WatchEvent event;
            event.status = Status::fromResponse(code, rest);
            deliver(event);
        } else if (!stopped) {
            WatchEvent event;
            QString message = m_reply->errorString();
            const QStringList ssl = m_reply->property("qcm_ssl_errors").toStringList();
            if (!ssl.isEmpty())
                message += QStringLiteral(" (") + ssl.join(QStringLiteral("; ")) + QLatin1Char(')');
            event.status = Status::transportError(transportReason(m_reply->error()), message);
            deliver(event);
        }
        m_reply->deleteLater();
        m_reply = nullptr;
    }
    {
        std::lock_guard lock(m_mutex);
        m_finished = true;
    }
    m_changed.notify_all();
    emit finished();
}

std::optional<WatchEvent> Watch::next(Duration timeout)
{
    std::unique_lock lock(m_mutex);
    auto ready = [this] { return !m_events.empty() || m_finished; };
    if (timeout == Duration::max())
        m_changed.wait(lock, ready);
    else if (!m_changed.wait_for(lock, timeout, ready))
        return std::nullopt;
    if (m_events.empty())
        return std::nullopt;
    WatchEvent event = std::move(m_events.front());
    m_events.pop_front();
    return event;
}

void Watch::stop()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_finished || m_stopRequested)
            return;
        m_stopRequested = true;
    }
    QMetaObject::invokeMethod(this, [this] {
        if (m_reply)
            m_reply->abort(); // finished() follows
    });
}

bool Watch::isFinished() const
{
    std::lock_guard lock(m_mutex);
    return m_finished;
}

bool Watch::usedHttp2() const
{
    std::lock_guard lock(m_mutex);
    return m_http2;
}

// --- RestClient --------------------------------------------------------------------------

struct RestClient::Private
{
    RestConfig config;
    QThread thread;
    RestClientWorker *worker = nullptr;
    const Codec *codec = Codec::defaultCodec();

    Response wait(QFuture<Response> future) const
    {
        if (QThread::currentThread() == &thread)
            return wrongThread();
        future.waitForFinished();
        return future.result();
    }
};

RestClient::RestClient(RestConfig config, QObject *parent)
    : QObject(parent), d(std::make_unique<Private>())
{
    qRegisterMetaType<WatchEvent>();
    d->config = std::move(config);
    d->thread.setObjectName(QStringLiteral("qcm-rest-io"));
    d->worker = new RestClientWorker(d->config);
    d->worker->moveToThread(&d->thread);
    d->thread.start();
    QMetaObject::invokeMethod(
        d->worker, [w = d->worker] { w->init(); }, Qt::BlockingQueuedConnection);
}

RestClient::~RestClient()
{
    QMetaObject::invokeMethod(
        d->worker, [w = d->worker] { w->shutdown(); }, Qt::BlockingQueuedConnection);
    d->thread.quit();
    d->thread.wait();
    delete d->worker;
}

const RestConfig &RestClient::config() const
{
    return d->config;
}

QThread *RestClient::ioThread() const
{
    return &d->thread;
}

void RestClient::setCodec(const Codec *codec)
{
    d->codec = codec ? codec : Codec::defaultCodec();
}

QFuture<Response> RestClient::requestAsync(const QByteArray &verb, const QString &path,
    const QUrlQuery &query, const QByteArray &body, const QByteArray &contentType,
    const QByteArray &accept)
{
    Pending p;
    p.spec = {verb, path, query, body, contentType, accept};
    p.promise = std::make_shared<QPromise<Response>>();
    p.promise->start();
    QFuture<Response> future = p.promise->future();
    QMetaObject::invokeMethod(
        d->worker, [w = d->worker, p = std::move(p)]() mutable { w->dispatch(std::move(p)); });
    return future;
}

Response RestClient::request(const QByteArray &verb, const QString &path, const QUrlQuery &query,
    const QByteArray &body, const QByteArray &contentType, const QByteArray &accept)
{
    return d->wait(requestAsync(verb, path, query, body, contentType, accept));
}

ObjectResult RestClient::decodeObject(const Response &response, const Codec *codec)
{
    if (!response.isSuccess())
        return response.status();
    auto object = (codec ? codec : Codec::defaultCodec())->decodeObject(response.body);
    if (!object)
        return Status::transportError(QStringLiteral("DecodeError"), object.error().reason);
    return std::move(object).value();
}

ListResult RestClient::decodeList(const Response &response, const Codec *codec)
{
    if (!response.isSuccess())
        return response.status();
    auto list = (codec ? codec : Codec::defaultCodec())->decodeList(response.body);
    if (!list)
        return Status::transportError(QStringLiteral("DecodeError"), list.error().reason);
    return std::move(list).value();
}

ObjectResult RestClient::get(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, const QString &subresource)
{
    return decodeObject(request("GET", objectPath(gvr, ns, name, subresource)), d->codec);
}

const QByteArray RestClient::metadataOnlyListAccept = QByteArrayLiteral(
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json");
const QByteArray RestClient::metadataOnlyWatchAccept = QByteArrayLiteral(
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json");

ListResult RestClient::list(const GroupVersionResource &gvr, const QString &ns,
    const ListOptions &options, const QByteArray &accept)
{
    return decodeList(
        request("GET", gvr.collectionPath(ns), listQuery(options), {}, {}, accept), d->codec);
}

namespace {
QUrlQuery writeQuery(const QString &fieldManager, bool dryRun)
{
    QUrlQuery q;
    if (!fieldManager.isEmpty())
        q.addQueryItem(QStringLiteral("fieldManager"), fieldManager);
    if (dryRun)
        q.addQueryItem(QStringLiteral("dryRun"), QStringLiteral("All"));
    return q;
}
} // namespace

ObjectResult RestClient::create(const GroupVersionResource &gvr, const QString &ns,
    const Object &object, const WriteOptions &options)
{
    return decodeObject(
        request("POST", gvr.collectionPath(ns), writeQuery(options.fieldManager, options.dryRun),
            d->codec->encode(object.json()), "application/json"),
        d->codec);
}

ObjectResult RestClient::update(const GroupVersionResource &gvr, const Object &object,
    const WriteOptions &options, const QString &subresource)
{
    return decodeObject(
        request("PUT", objectPath(gvr, object.namespaceName(), object.name(), subresource),
            writeQuery(options.fieldManager, options.dryRun), d->codec->encode(object.json()),
            "application/json"),
        d->codec);
}

ObjectResult RestClient::updateStatus(
    const GroupVersionResource &gvr, const Object &object, const WriteOptions &options)
{
    return update(gvr, object, options, QStringLiteral("status"));
}

ObjectResult RestClient::patch(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, PatchType type, const QByteArray &patch, const PatchOptions &options,
    const QString &subresource)
{
    QUrlQuery q = writeQuery(options.fieldManager, options.dryRun);
    if (options.force && type == PatchType::Apply)
        q.addQueryItem(QStringLiteral("force"), QStringLiteral("true"));
    return decodeObject(
        request("PATCH", objectPath(gvr, ns, name, subresource), q, patch, patchContentType(type)),
        d->codec);
}

namespace {
QByteArray deleteBody(const DeleteOptions &o)
{
    QJsonObject body {{QStringLiteral("apiVersion"), QStringLiteral("v1")},
        {QStringLiteral("kind"), QStringLiteral("DeleteOptions")}};
    if (!o.propagationPolicy.isEmpty())
        body.insert(QStringLiteral("propagationPolicy"), o.propagationPolicy);
    if (o.gracePeriodSeconds)
        body.insert(QStringLiteral("gracePeriodSeconds"), double(*o.gracePeriodSeconds));
    QJsonObject preconditions;
    if (!o.preconditionUid.isEmpty())
        preconditions.insert(QStringLiteral("uid"), o.preconditionUid);
    if (!o.preconditionResourceVersion.isEmpty())
        preconditions.insert(QStringLiteral("resourceVersion"), o.preconditionResourceVersion);
    if (!preconditions.isEmpty())
        body.insert(QStringLiteral("preconditions"), preconditions);
    if (o.dryRun)
        body.insert(QStringLiteral("dryRun"), QJsonArray {QStringLiteral("All")});
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}
} // namespace

ObjectResult RestClient::remove(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, const DeleteOptions &options)
{
    return decodeObject(request("DELETE", objectPath(gvr, ns, name, {}), {}, deleteBody(options),
                            "application/json"),
        d->codec);
}

ObjectResult RestClient::removeCollection(const GroupVersionResource &gvr, const QString &ns,
    const ListOptions &listOptions, const DeleteOptions &options)
{
    return decodeObject(request("DELETE", gvr.collectionPath(ns), listQuery(listOptions),
                            deleteBody(options), "application/json"),
        d->codec);
}

QFuture<ObjectResult> RestClient::getAsync(const GroupVersionResource &gvr, const QString &ns,
    const QString &name, const QString &subresource)
{
    return requestAsync("GET", objectPath(gvr, ns, name, subresource))
        .then([codec = d->codec](const Response &r) { return decodeObject(r, codec); });
}

QFuture<ListResult> RestClient::listAsync(
    const GroupVersionResource &gvr, const QString &ns, const ListOptions &options)
{
    return requestAsync("GET", gvr.collectionPath(ns), listQuery(options))
        .then([codec = d->codec](const Response &r) { return decodeList(r, codec); });
}

std::shared_ptr<Watch> RestClient::watch(const GroupVersionResource &gvr, const QString &ns,
    const ListOptions &options, const QByteArray &accept)
{
    auto *raw = new Watch(d->codec);
    raw->moveToThread(&d->thread);
    std::shared_ptr<Watch> watch(raw, [](Watch *w) {
        w->stop();
        detail::deleteInOwnThread(w);
    });
    QUrlQuery query = listQuery(options);
    query.addQueryItem(QStringLiteral("watch"), QStringLiteral("true"));
    RequestSpec spec {"GET", gvr.collectionPath(ns), query, {}, {}, accept};
    QPointer<Watch> target(raw);
    QMetaObject::invokeMethod(d->worker,
        [w = d->worker, spec, target]() mutable { w->startWatch(std::move(spec), target); });
    return watch;
}

} // namespace qcm::client
