// SPDX-License-Identifier: Apache-2.0
// Server: qcm's HTTP(S) endpoint (QHttpServer), kube-controller-manager's secure serving
// without its delegated authentication:
//
//   /healthz, /healthz/<check>   everything (healthchecks.h, hostchecks.h)
//   /livez, /livez/<check>       liveness
//   /readyz, /readyz/<check>     readiness
//   /metrics                     every metric of the registry, in the Prometheus text format
//   /configz                     the effective configuration, secrets redacted (configz.h)
//
// GET and HEAD only; anything else is 404. Plain HTTP without certificate, HTTPS with
// `tlsCertFile` and `tlsPrivateKeyFile` (PEM; the certificate file may hold the chain). There
// is no authentication: every path is served to whoever can connect (docs/host.md).
//
// listen() checks everything first: an address that is not an IP, a port in use, a
// certificate or key that cannot be read are Errors naming the flag, and nothing is served.
//
// Thread safety: the host's main thread; requests are handled on its event loop.
#pragma once

#include "serving/healthchecks.h"

#include <qcm/result.h>

#include <QtCore/QJsonObject>
#include <QtCore/QObject>

#include <functional>
#include <memory>

QT_BEGIN_NAMESPACE
class QHttpServer;
QT_END_NAMESPACE

namespace qcm::metrics {
class Registry;
}

namespace qcm::host {

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
    };

    struct Endpoints
    {
        HealthChecks healthz;
        HealthChecks livez;
        HealthChecks readyz;
        const metrics::Registry *registry = nullptr;
        std::function<QJsonObject()> configz;
    };

    Server(Endpoints endpoints, QObject *parent = nullptr);
    ~Server() override;

    // Starts serving; the Error names the flag at fault.
    std::optional<Error> listen(const Options &options);
    // The port listened on (the chosen one when Options::port was 0); 0 before listen().
    quint16 port() const { return m_port; }
    bool isTls() const { return m_tls; }

private:
    void addRoutes();

    Endpoints m_endpoints;
    std::unique_ptr<QHttpServer> m_server;
    quint16 m_port = 0;
    bool m_tls = false;
};

} // namespace qcm::host
