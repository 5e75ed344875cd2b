// SPDX-License-Identifier: Apache-2.0
#include "serving/server.h"

#include "logging.h"
#include "serving/selfsignedcert.h"

#include <qcm/detail/readatmost.h>
#include <qcm/metrics/registry.h>
#include <qcm/metrics/textserializer.h>

#include <QtCore/QCryptographicHash>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonDocument>
#include <QtHttpServer/QHttpServer>
#include <QtNetwork/QSslConfiguration>
#include <QtNetwork/QSslKey>
#include <QtNetwork/QSslServer>

namespace qcm::host {

namespace {

QHttpServerResponse response(const QByteArray &contentType, const QByteArray &body, int status)
{
    QHttpServerResponse r(contentType, body, static_cast<QHttpServerResponder::StatusCode>(status));
    r.addHeader(QByteArrayLiteral("X-Content-Type-Options"), QByteArrayLiteral("nosniff"));
    return r;
}

QHttpServerResponse healthResponse(const HealthResponse &health)
{
    return response(QByteArrayLiteral("text/plain; charset=utf-8"), health.body, health.status);
}

} // namespace

Server::Server(Endpoints endpoints, QObject *parent)
    : QObject(parent), m_endpoints(std::move(endpoints)), m_server(std::make_unique<QHttpServer>())
{
    addRoutes();
}

Server::~Server() = default;

void Server::addRoutes()
{
    const auto get = QHttpServerRequest::Method::Get;
    for (const HealthChecks *checks :
        {&m_endpoints.healthz, &m_endpoints.livez, &m_endpoints.readyz}) {
        const QString root = QLatin1Char('/') + checks->endpoint();
        m_server->route(root, get, [checks](const QHttpServerRequest &request) {
            return healthResponse(checks->respond({}, request.query()));
        });
        m_server->route(root + QStringLiteral("/<arg>"), get,
            [checks](const QString &name, const QHttpServerRequest &request) {
                return healthResponse(checks->respond(name, request.query()));
            });
    }
    m_server->route(QStringLiteral("/metrics"), get, [this] {
        const QByteArray body = m_endpoints.registry
            ? metrics::TextSerializer::serialize(m_endpoints.registry->collect())
            : QByteArray();
        return response(metrics::TextSerializer::ContentType, body, 200);
    });
    m_server->route(QStringLiteral("/configz"), get, [this] {
        const QJsonObject config = m_endpoints.configz ? m_endpoints.configz() : QJsonObject();
        return response(QByteArrayLiteral("application/json"),
            QJsonDocument(config).toJson(QJsonDocument::Indented), 200);
    });
    m_server->setMissingHandler([](const QHttpServerRequest &, QHttpServerResponder &&responder) {
        responder.write(QByteArrayLiteral("404 page not found\n"),
            QByteArrayLiteral("text/plain; charset=utf-8"),
            QHttpServerResponder::StatusCode::NotFound);
    });
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
    m_ssl->setSslConfiguration(*tls);
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
        ssl->setSslConfiguration(*tls);
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
    m_server->bind(tcp.release()); // the QHttpServer takes it as its child
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
                        digest.addData(file.read(detail::MaxCertificateFileBytes + 1));
                    digest.addData(QByteArrayView("\0", 1));
                }
                return digest.result();
            },
            std::chrono::milliseconds(500));
        connect(m_certWatcher.get(), &PathWatcher::changed, this,
            [this] { emit certificateReloaded(reloadCertificate()); });
    }
    qCInfo(lcHost).noquote() << QStringLiteral(
        "serving %1 on %2:%3 (/healthz, /livez, /readyz, /metrics, /configz)")
                                    .arg(m_tls ? QStringLiteral("HTTPS") : QStringLiteral("HTTP"),
                                        options.bindAddress)
                                    .arg(m_port);
    return std::nullopt;
}

} // namespace qcm::host
