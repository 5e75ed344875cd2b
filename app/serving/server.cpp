// SPDX-License-Identifier: Apache-2.0
#include "serving/server.h"

#include "auth/delegatingauthenticator.h"
#include "auth/delegatingauthorizer.h"
#include "logging.h"
#include "serving/selfsignedcert.h"

#include <qcm/detail/readatmost.h>
#include <qcm/metrics/registry.h>
#include <qcm/metrics/textserializer.h>

#include <QtCore/QCryptographicHash>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonDocument>
#include <QtCore/QPointer>
#include <QtNetwork/QSslConfiguration>
#include <QtNetwork/QSslKey>
#include <QtNetwork/QSslServer>
#include <QtNetwork/QSslSocket>

namespace qcm::host {

namespace {

using Request = AsyncHttpServer::Request;
using Response = AsyncHttpServer::Response;

Response response(const QByteArray &contentType, const QByteArray &body, int status)
{
    return {status, contentType, body,
        {{QByteArrayLiteral("X-Content-Type-Options"), QByteArrayLiteral("nosniff")}}};
}

Response healthResponse(const HealthResponse &health)
{
    return response(QByteArrayLiteral("text/plain; charset=utf-8"), health.body, health.status);
}

// A refusal as the API server words it: a Status object (k8s.io/apiserver's responsewriters).
Response statusResponse(int code, const QString &reason, const QString &message)
{
    const QJsonObject status {
        {QStringLiteral("kind"), QStringLiteral("Status")},
        {QStringLiteral("apiVersion"), QStringLiteral("v1")},
        {QStringLiteral("metadata"), QJsonObject {}},
        {QStringLiteral("status"), QStringLiteral("Failure")},
        {QStringLiteral("message"), message},
        {QStringLiteral("reason"), reason},
        {QStringLiteral("details"), QJsonObject {}},
        {QStringLiteral("code"), code},
    };
    return response(QByteArrayLiteral("application/json"),
        QJsonDocument(status).toJson(QJsonDocument::Compact) + '\n', code);
}

} // namespace

Server::Server(Endpoints endpoints, QObject *parent)
    : QObject(parent)
    , m_endpoints(std::move(endpoints))
    , m_server(std::make_unique<AsyncHttpServer>(
          [this](const Request &request, AsyncHttpServer::Respond respond) {
              handle(request, std::move(respond));
          }))
{ }

Server::~Server() = default;

void Server::setDelegatedAuth(
    DelegatingAuthenticator *authenticator, DelegatingAuthorizer *authorizer)
{
    m_authenticator = authenticator;
    m_authorizer = authorizer;
}

QSslConfiguration Server::withClientCertificates(QSslConfiguration tls) const
{
    // Asked for, not required: a client without one goes on to its bearer token. The chain is
    // verified by the X509Authenticator, against the client CA in force at the time.
    if (m_authenticator)
        tls.setPeerVerifyMode(QSslSocket::QueryPeer);
    return tls;
}

void Server::handle(const Request &request, AsyncHttpServer::Respond respond)
{
    if (!m_authenticator || !m_authorizer || m_authorizer->isAlwaysAllowedPath(request.path)) {
        respond(route(request));
        return;
    }
    QPointer<Server> self(this);
    m_authenticator->authenticate(request.authorization, request.peerCertificateChain)
        .then(this, [self, request, respond](const AuthenticationResult &authn) {
            if (!self)
                return;
            if (authn.outcome != AuthenticationResult::Outcome::Authenticated) {
                if (authn.outcome == AuthenticationResult::Outcome::Error)
                    qCWarning(lcHost).noquote()
                        << QStringLiteral("cannot authenticate a request for %1: %2")
                               .arg(request.path, authn.reason);
                respond(statusResponse(
                    401, QStringLiteral("Unauthorized"), QStringLiteral("Unauthorized")));
                return;
            }
            const UserInfo user = authn.user;
            self->m_authorizer->authorize(user, request.method, request.path)
                .then(
                    self.data(), [self, request, respond, user](const AuthorizationResult &authz) {
                        if (!self)
                            return;
                        switch (authz.decision) {
                        case AuthorizationResult::Decision::Allow:
                            respond(self->route(request));
                            return;
                        case AuthorizationResult::Decision::Deny: {
                            QString message
                                = QStringLiteral("forbidden: User \"%1\" cannot %2 path \"%3\"")
                                      .arg(user.name, QString::fromLatin1(request.method.toLower()),
                                          request.path);
                            if (!authz.reason.isEmpty())
                                message += QStringLiteral(": ") + authz.reason;
                            respond(statusResponse(403, QStringLiteral("Forbidden"), message));
                            return;
                        }
                        case AuthorizationResult::Decision::Error:
                            qCWarning(lcHost).noquote()
                                << QStringLiteral("cannot authorize %1 for %2: %3")
                                       .arg(user.name, request.path, authz.reason);
                            respond(statusResponse(500, QStringLiteral("InternalError"),
                                QStringLiteral("Internal Server Error: \"%1\": %2")
                                    .arg(request.path, authz.reason)));
                            return;
                        }
                    });
        });
}

Response Server::route(const Request &request) const
{
    if (request.method == "GET" || request.method == "HEAD") {
        for (const HealthChecks *checks :
            {&m_endpoints.healthz, &m_endpoints.livez, &m_endpoints.readyz}) {
            const QString root = QLatin1Char('/') + checks->endpoint();
            if (request.path == root)
                return healthResponse(checks->respond({}, request.query));
            if (request.path.startsWith(root + QLatin1Char('/'))) {
                const QString name = request.path.mid(root.size() + 1);
                if (!name.isEmpty() && !name.contains(QLatin1Char('/')))
                    return healthResponse(checks->respond(name, request.query));
            }
        }
        if (request.path == QLatin1String("/metrics")) {
            const QByteArray body = m_endpoints.registry
                ? metrics::TextSerializer::serialize(m_endpoints.registry->collect())
                : QByteArray();
            return response(metrics::TextSerializer::ContentType, body, 200);
        }
        for (const auto &[path, json] : {std::pair {"/configz", &m_endpoints.configz},
                 std::pair {"/statusz", &m_endpoints.statusz}}) {
            if (request.path != QLatin1String(path))
                continue;
            const QJsonObject body = *json ? (*json)() : QJsonObject();
            return response(QByteArrayLiteral("application/json"),
                QJsonDocument(body).toJson(QJsonDocument::Indented), 200);
        }
    }
    return response(QByteArrayLiteral("text/plain; charset=utf-8"),
        QByteArrayLiteral("404 page not found\n"), 404);
}

bool Server::reloadCertificate()
{
    if (!m_ssl || m_tlsOptions.certFile.isEmpty())
        return false;
    Result<QSslConfiguration> tls = loadTlsConfiguration(m_tlsOptions);
    if (!tls) {
        qCWarning(lcHost).noquote()
            << QStringLiteral("the serving certificate changed on disk but cannot be used; "
                              "serving the previous one: %1")
                   .arg(tls.error().toString());
        return false;
    }
    m_ssl->setSslConfiguration(withClientCertificates(*tls));
    qCInfo(lcHost).noquote() << QStringLiteral("serving the certificate of %1 again (%2), read "
                                               "after it changed on disk")
                                    .arg(m_tlsOptions.certFile,
                                        tls->localCertificate().subjectDisplayName());
    return true;
}

std::optional<Error> Server::listen(const Options &options)
{
    QHostAddress address;
    if (options.bindAddress.isEmpty() || options.bindAddress == QLatin1String("0.0.0.0")
        || options.bindAddress == QLatin1String("::"))
        address = QHostAddress::Any; // as Go: the wildcard listens on both families
    else if (!address.setAddress(options.bindAddress))
        return Error {{}, QStringLiteral("--bind-address"),
            QStringLiteral("\"%1\" is not an IP address").arg(options.bindAddress)};

    std::unique_ptr<QTcpServer> tcp;
    m_tls = !options.insecurePlainHttp;
    bool watchFiles = false;
    if (!m_tls) {
        if (!options.tlsCertFile.isEmpty() || !options.tlsPrivateKeyFile.isEmpty())
            return Error {{}, QStringLiteral("--insecure-plain-http"),
                QStringLiteral("cannot be used with --tls-cert-file or --tls-private-key-file")};
        qCWarning(lcHost).noquote() << QStringLiteral(
            "--insecure-plain-http: serving plain HTTP, without TLS; whoever can reach the port "
            "can read and change what passes on it (docs/security.md)");
        tcp = std::make_unique<QTcpServer>();
    } else {
        m_tlsOptions = {options.tlsCertFile, options.tlsPrivateKeyFile, options.tlsMinVersion,
            options.tlsCipherSuites};
        Result<QSslConfiguration> tls = Error {};
        if (!options.tlsCertFile.isEmpty() || !options.tlsPrivateKeyFile.isEmpty()) {
            tls = loadTlsConfiguration(m_tlsOptions);
            watchFiles = true;
        } else if (!options.certDir.isEmpty()) {
            const Result<CertificateFiles> files = ensureServingCertificateIn(options.certDir);
            if (!files)
                return files.error();
            m_tlsOptions.certFile = files->certFile;
            m_tlsOptions.keyFile = files->keyFile;
            qCInfo(lcHost).noquote()
                << QStringLiteral("%1 the self-signed serving certificate %2 (--cert-dir)")
                       .arg(
                           files->generated ? QStringLiteral("generated") : QStringLiteral("using"),
                           files->certFile);
            tls = loadTlsConfiguration(m_tlsOptions);
            watchFiles = true;
        } else {
            const Result<PemPair> pair = generateServingCertificate();
            if (!pair)
                return pair.error();
            qCInfo(lcHost).noquote() << QStringLiteral(
                "generated a self-signed serving certificate, held in memory (neither "
                "--tls-cert-file nor --cert-dir is set)");
            tls = tlsConfiguration(pair->certificate, pair->privateKey, m_tlsOptions);
        }
        if (!tls)
            return tls.error();
        auto ssl = std::make_unique<QSslServer>();
        ssl->setSslConfiguration(withClientCertificates(*tls));
        // Qt's HTTP parser keeps a whole request in memory, body included: a connection may
        // buffer no more than this, so that no one, authenticated or not, can make qcm hold a
        // request of gigabytes (a larger one is never answered).
        connect(ssl.get(), &QSslServer::startedEncryptionHandshake, this,
            [](QSslSocket *socket) { socket->setReadBufferSize(MaxRequestBytes); });
        m_ssl = ssl.get();
        tcp = std::move(ssl);
    }
    if (!tcp->listen(address, options.port))
        return Error {{}, QStringLiteral("--secure-port"),
            QStringLiteral("cannot listen on %1:%2: %3")
                .arg(options.bindAddress)
                .arg(options.port)
                .arg(tcp->errorString())};
    m_port = tcp->serverPort();
    m_server->bind(tcp.release()); // the AsyncHttpServer takes it as its child
    if (watchFiles) {
        // Both files and their directories: a renewal often replaces a file by a rename, and a
        // Secret volume swaps a ..data symlink in the directory.
        const TlsOptions files = m_tlsOptions;
        QStringList paths {files.certFile, files.keyFile};
        for (const QString &f : {files.certFile, files.keyFile})
            paths << QFileInfo(f).absolutePath();
        paths.removeDuplicates();
        m_certWatcher = std::make_unique<PathWatcher>(
            paths,
            [files] {
                // A digest, so that the watcher keeps no copy of the private key.
                QCryptographicHash digest(QCryptographicHash::Sha256);
                for (const QString &f : {files.certFile, files.keyFile}) {
                    QFile file(f);
                    if (file.open(QIODevice::ReadOnly)) // no further than the limit
                        digest.addData(file.read(detail::inputLimits().certificateBytes + 1));
                    digest.addData(QByteArrayView("\0", 1));
                }
                return digest.result();
            },
            std::chrono::milliseconds(500));
        connect(m_certWatcher.get(), &PathWatcher::changed, this,
            [this] { emit certificateReloaded(reloadCertificate()); });
    }
    qCInfo(lcHost).noquote() << QStringLiteral(
        "serving %1 on %2:%3 (/healthz, /livez, /readyz, /metrics, /configz, /statusz)")
                                    .arg(m_tls ? QStringLiteral("HTTPS") : QStringLiteral("HTTP"),
                                        options.bindAddress)
                                    .arg(m_port);
    return std::nullopt;
}

} // namespace qcm::host
