// SPDX-License-Identifier: Apache-2.0
// DelegatingAuthorizer: whether an authenticated user may make a request of qcm's endpoint, as
// kube-controller-manager's delegated authorization (k8s.io/apiserver's
// DelegatingAuthorizationOptions) decides:
//
//   * a path in alwaysAllowPaths (--authorization-always-allow-paths, default /healthz,
//     /readyz, /livez) is allowed to anyone; an entry ending in `*` is a prefix, any other is
//     the exact path (so /healthz does not cover /healthz/<check>);
//   * a user in one of alwaysAllowGroups (system:masters) is allowed, as the API server's own
//     authorizer would;
//   * anything else is a SubjectAccessReview (authorization.k8s.io/v1) for the non-resource
//     path and verb (the method, lower case), as the user, its UID, groups and extra. An
//     allowed answer is cached for allowTtl (--authorization-webhook-cache-authorized-ttl,
//     10s), a denied one for denyTtl (--authorization-webhook-cache-unauthorized-ttl, 10s); a
//     review that fails is not cached, and the request is refused (fail closed). At most
//     MaxCachedDecisions answers are held.
//
// Thread safety: the host's main thread; the futures are fulfilled there.
#pragma once

#include "auth/lruexpirecache.h"
#include "auth/userinfo.h"

#include <qcm/clock.h>
#include <qcm/result.h>

#include <QtCore/QFuture>
#include <QtCore/QObject>

namespace qcm::client {
class RestClient;
}

namespace qcm::host {

struct AuthorizationResult
{
    enum class Decision {
        Allow,
        Deny, // 403
        Error, // the review could not be made: refused (500), not cached
    };
    Decision decision = Decision::Deny;
    QString reason; // the API server's reason or the error
};

class DelegatingAuthorizer : public QObject
{
    Q_OBJECT

public:
    static constexpr std::size_t MaxCachedDecisions = 8192;

    struct Options
    {
        QStringList alwaysAllowPaths {
            QStringLiteral("/healthz"), QStringLiteral("/readyz"), QStringLiteral("/livez")};
        QStringList alwaysAllowGroups {QStringLiteral("system:masters")};
        Duration allowTtl = std::chrono::seconds(10);
        Duration denyTtl = std::chrono::seconds(10);
        Clock *clock = Clock::system();
    };

    // `client` makes the SubjectAccessReviews; it outlives this.
    DelegatingAuthorizer(client::RestClient *client, Options options, QObject *parent = nullptr);
    ~DelegatingAuthorizer() override;

    // Whether `path` is served without authentication or authorization.
    bool isAlwaysAllowedPath(const QString &path) const;

    QFuture<AuthorizationResult> authorize(
        const UserInfo &user, const QByteArray &verb, const QString &path);

    // SubjectAccessReviews sent to the API server so far (for tests of the cache).
    int accessReviews() const { return m_accessReviews; }

    // Checks --authorization-always-allow-paths: each entry starts with '/', and '*' may only
    // end one.
    static std::optional<Error> checkAlwaysAllowPaths(const QStringList &paths);

private:
    client::RestClient *m_client;
    Options m_options;
    LruExpireCache<AuthorizationResult> m_cache;
    int m_accessReviews = 0;
};

} // namespace qcm::host
