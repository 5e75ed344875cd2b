// SPDX-License-Identifier: Apache-2.0
#include "serving/server.h"

#include "logging.h"

#include <qcm/metrics/registry.h>
#include <qcm/metrics/textserializer.h>

#include <QtCore/QFile>
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

// A PEM private key of any of the algorithms Qt reads.
std::optional<QSslKey> readKey(const QByteArray &pem)
{
    for (const QSsl::KeyAlgorithm algorithm : {QSsl::Rsa, QSsl::Ec, QSsl::Dsa}) {
        QSslKey key(pem, algorithm, QSsl::Pem, QSsl::PrivateKey);
        if (!key.isNull())
            return key;
    }
    return std::nullopt;
}

Result<QSslConfiguration> tlsConfiguration(const Server::Options &options)
{
    const QString certFlag = QStringLiteral("--tls-cert-file");
    const QString keyFlag = QStringLiteral("--tls-private-key-file");
    if (options.tlsCertFile.isEmpty())
        return Error {{}, certFlag, QStringLiteral("is needed with %1").arg(keyFlag)};
    if (options.tlsPrivateKeyFile.isEmpty())
        return Error {{}, keyFlag, QStringLiteral("is needed with %1").arg(certFlag)};
    QFile certFile(options.tlsCertFile);
    if (!certFile.open(QIODevice::ReadOnly))
        return Error {options.tlsCertFile, certFlag,
            QStringLiteral("cannot read the certificate: %1").arg(certFile.errorString())};
    const QList<QSslCertificate> chain = QSslCertificate::fromData(certFile.readAll(), QSsl::Pem);
    if (chain.isEmpty() || chain.constFirst().isNull())
        return Error {options.tlsCertFile, certFlag, QStringLiteral("holds no PEM certificate")};
    QFile keyFile(options.tlsPrivateKeyFile);
    if (!keyFile.open(QIODevice::ReadOnly))
        return Error {options.tlsPrivateKeyFile, keyFlag,
            QStringLiteral("cannot read the private key: %1").arg(keyFile.errorString())};
    const std::optional<QSslKey> key = readKey(keyFile.readAll());
    if (!key)
        return Error {options.tlsPrivateKeyFile, keyFlag,
            QStringLiteral("holds no unencrypted PEM private key (RSA, EC or DSA)")};
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    tls.setLocalCertificateChain(chain);
    tls.setPrivateKey(*key);
    tls.setPeerVerifyMode(QSslSocket::VerifyNone); // no client certificates are asked for
    return tls;
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
    m_tls = !options.tlsCertFile.isEmpty() || !options.tlsPrivateKeyFile.isEmpty();
    if (m_tls) {
        Result<QSslConfiguration> tls = tlsConfiguration(options);
        if (!tls)
            return tls.error();
        auto ssl = std::make_unique<QSslServer>();
        ssl->setSslConfiguration(*tls);
        tcp = std::move(ssl);
    } else {
        tcp = std::make_unique<QTcpServer>();
    }
    if (!tcp->listen(address, options.port))
        return Error {{}, QStringLiteral("--secure-port"),
            QStringLiteral("cannot listen on %1:%2: %3")
                .arg(options.bindAddress)
                .arg(options.port)
                .arg(tcp->errorString())};
    m_port = tcp->serverPort();
    m_server->bind(tcp.release()); // the QHttpServer takes it as its child
    qCInfo(lcHost).noquote() << QStringLiteral(
        "serving %1 on %2:%3 (/healthz, /livez, /readyz, /metrics, /configz)")
                                    .arg(m_tls ? QStringLiteral("HTTPS") : QStringLiteral("HTTP"),
                                        options.bindAddress)
                                    .arg(m_port);
    return std::nullopt;
}

} // namespace qcm::host
