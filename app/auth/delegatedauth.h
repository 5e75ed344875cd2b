// SPDX-License-Identifier: Apache-2.0
// DelegatedAuth: the host's authenticator and authorizer for its endpoint, built from the
// configuration as kube-controller-manager builds its delegating ones:
//
//   * one REST client of their own, on the host's credentials, with kube-controller-manager's
//     limits for these calls (200 QPS, burst 400, a 10 s timeout), so that controller traffic
//     cannot hold up a request's review nor the reviews a controller's;
//   * the client CA: --client-ca-file, read once at start (a file that cannot be read is an
//     error naming the flag); or, unless --authentication-skip-lookup, the client-ca-file key
//     of the ConfigMap kube-system/extension-apiserver-authentication, read at start and every
//     minute after, in the background (until it is read, or if it cannot be, client
//     certificates are refused and bearer tokens still work; the log says why).
//
// Thread safety: the host's main thread.
#pragma once

#include "auth/delegatingauthenticator.h"
#include "auth/delegatingauthorizer.h"
#include "config/config.h"

#include <qcm/client/restconfig.h>
#include <qcm/result.h>

#include <QtCore/QObject>
#include <QtCore/QTimer>

#include <memory>

namespace qcm::client {
class RestClient;
}

namespace qcm::host {

class DelegatedAuth : public QObject
{
    Q_OBJECT

public:
    static Result<std::unique_ptr<DelegatedAuth>> create(
        const ServingAuthConfig &config, const client::RestConfig &restConfig);
    ~DelegatedAuth() override;

    DelegatingAuthenticator *authenticator() const { return m_authenticator.get(); }
    DelegatingAuthorizer *authorizer() const { return m_authorizer.get(); }

private:
    DelegatedAuth() = default;
    void lookUpClientCa();

    std::unique_ptr<client::RestClient> m_client;
    std::unique_ptr<DelegatingAuthenticator> m_authenticator;
    std::unique_ptr<DelegatingAuthorizer> m_authorizer;
    QTimer m_lookupTimer;
    QString m_lastLookupProblem; // logged once until it changes
};

} // namespace qcm::host
