// SPDX-License-Identifier: Apache-2.0
// Server: qcm's HTTPS endpoint, kube-controller-manager's secure serving:
//
//   /healthz, /healthz/<check>   everything (healthchecks.h, hostchecks.h)
//   /livez, /livez/<check>       liveness
//   /readyz, /readyz/<check>     readiness
//   /metrics                     every metric of the registry, in the Prometheus text format
//   /configz                     the effective configuration, secrets redacted (configz.h)
//   /statusz                     who holds what: leadership, controllers, scale-out (statusz.h)
//
// Every request is authenticated and authorized first (setDelegatedAuth(); auth/): a path in
// --authorization-always-allow-paths is served to anyone, without credentials; any other gets
// 401 without valid credentials, 403 if the API server does not allow it, 500 if the
// authorization cannot be asked (fail closed), as a Status object, before the path is even
// looked up. Without setDelegatedAuth(), every path is open (the tests of the paths alone).
//
// GET and HEAD only; anything else is 404. HTTPS, as kube-controller-manager serves: with
// `tlsCertFile` and `tlsPrivateKeyFile` (PEM; the certificate file may hold the chain), or
// without them a self-signed pair, in `certDir` or in memory (selfsignedcert.h); the minimum
// TLS version and the cipher suites as tlsoptions.h. A pair read from files is read again
// when they change on disk (a renewal, a Secret volume's update): new connections get the new
// pair; a pair that cannot be read is logged and the old one kept. Plain HTTP only with
// `insecurePlainHttp`, and a warning. With delegated auth, the TLS handshake asks for a client
// certificate (one is optional).
//
// listen() checks everything first: an address that is not an IP, a port in use, a
// certificate or key that cannot be read are Errors naming the flag, and nothing is served.
//
// Thread safety: the host's main thread; requests are handled on its event loop.
#pragma once

#include "reload/pathwatcher.h"
#include "serving/asynchttpserver.h"
#include "serving/healthchecks.h"
#include "serving/tlsoptions.h"

#include <qcm/result.h>

#include <QtCore/QJsonObject>
#include <QtCore/QObject>
#include <QtNetwork/QSslConfiguration>

#include <functional>
#include <memory>

QT_BEGIN_NAMESPACE
class QSslServer;
QT_END_NAMESPACE

namespace qcm::metrics {
class Registry;
}

namespace qcm::host {

class DelegatingAuthenticator;
class DelegatingAuthorizer;

class Server : public QObject
{
    Q_OBJECT

public:
    struct Options
    {
        QString bindAddress = QStringLiteral("0.0.0.0"); // 0.0.0.0 and :: listen on both families
        quint16 port = 0; // 0: any free port
        QString tlsCertFile;
        QString tlsPrivateKeyFile;
        QString tlsMinVersion; // VersionTLS12 (empty) or VersionTLS13
        QStringList tlsCipherSuites; // IANA names; empty: the TLS library's defaults
        QString certDir; // the self-signed pair's directory without tlsCertFile; empty: memory
        bool insecurePlainHttp = false; // no TLS at all, with a warning
    };

    struct Endpoints
    {
        HealthChecks healthz;
        HealthChecks livez;
        HealthChecks readyz;
        const metrics::Registry *registry = nullptr;
        std::function<QJsonObject()> configz;
        std::function<QJsonObject()> statusz;
    };

    // The most a connection buffers of a request (headers and body; the paths take none).
    static constexpr qint64 MaxRequestBytes = 1024 * 1024;

    Server(Endpoints endpoints, QObject *parent = nullptr);
    ~Server() override;

    // Before listen(): every request goes through them (they outlive the Server).
    void setDelegatedAuth(DelegatingAuthenticator *authenticator, DelegatingAuthorizer *authorizer);

    // Starts serving; the Error names the flag at fault.
    std::optional<Error> listen(const Options &options);
    // The port listened on (the chosen one when Options::port was 0); 0 before listen().
    quint16 port() const { return m_port; }
    bool isTls() const { return m_tls; }

    // Reads the certificate and key again (done by itself when the files change): true if
    // the new pair serves the next connections.
    bool reloadCertificate();

signals:
    // After each reload from disk, with its outcome.
    void certificateReloaded(bool ok);

private:
    void handle(const AsyncHttpServer::Request &request, AsyncHttpServer::Respond respond);
    AsyncHttpServer::Response route(const AsyncHttpServer::Request &request) const;
    QSslConfiguration withClientCertificates(QSslConfiguration tls) const;

    Endpoints m_endpoints;
    DelegatingAuthenticator *m_authenticator = nullptr;
    DelegatingAuthorizer *m_authorizer = nullptr;
    std::unique_ptr<AsyncHttpServer> m_server;
    QSslServer *m_ssl = nullptr; // the QHttpServer's child, when serving HTTPS
    TlsOptions m_tlsOptions;
    std::unique_ptr<PathWatcher> m_certWatcher;
    quint16 m_port = 0;
    bool m_tls = false;
};

} // namespace qcm::host
