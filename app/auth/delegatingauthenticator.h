// SPDX-License-Identifier: Apache-2.0
// DelegatingAuthenticator: who made a request to qcm's endpoint, as kube-controller-manager's
// delegated authentication (k8s.io/apiserver's DelegatingAuthenticatorConfig) finds out:
//
//   1. a client certificate from the TLS handshake, verified against the client CA
//      (x509authenticator.h); a valid one decides;
//   2. otherwise an `Authorization: Bearer <token>` header, sent to the API server as a
//      TokenReview (authentication.k8s.io/v1). The answer, authenticated or not, is cached for
//      cacheTtl (--authentication-token-webhook-cache-ttl, 10s) by the token's SHA-256; a
//      failed review (the API server unreachable, an error status) is not cached. At most
//      MaxCachedTokens answers are held.
//
// Unlike kube-controller-manager, a request with neither is not passed on as system:anonymous:
// it is Unauthenticated (401), so no RBAC binding to system:unauthenticated can open qcm.
//
// Thread safety: the host's main thread; the futures are fulfilled there.
#pragma once

#include "auth/lruexpirecache.h"
#include "auth/userinfo.h"
#include "auth/x509authenticator.h"

#include <qcm/clock.h>

#include <QtCore/QFuture>
#include <QtCore/QObject>

namespace qcm::client {
class RestClient;
}

namespace qcm::host {

struct AuthenticationResult
{
    enum class Outcome {
        Authenticated,
        Unauthenticated, // no credentials, or credentials that are not valid: 401
        Error, // the review could not be made (the API server unreachable): 401, not cached
    };
    Outcome outcome = Outcome::Unauthenticated;
    UserInfo user; // when Authenticated
    QString reason; // why not, for the log
};

class DelegatingAuthenticator : public QObject
{
    Q_OBJECT

public:
    static constexpr std::size_t MaxCachedTokens = 4096;

    struct Options
    {
        Duration cacheTtl = std::chrono::seconds(10);
        Clock *clock = Clock::system();
    };

    // `client` makes the TokenReviews; it outlives this.
    DelegatingAuthenticator(client::RestClient *client, Options options, QObject *parent = nullptr);
    ~DelegatingAuthenticator() override;

    X509Authenticator &x509() { return m_x509; }

    QFuture<AuthenticationResult> authenticate(
        const QByteArray &authorizationHeader, const QList<QSslCertificate> &peerChain);

    // TokenReviews sent to the API server so far (for tests of the cache).
    int tokenReviews() const { return m_tokenReviews; }

private:
    client::RestClient *m_client;
    Options m_options;
    X509Authenticator m_x509;
    LruExpireCache<AuthenticationResult> m_cache;
    int m_tokenReviews = 0;
};

} // namespace qcm::host
