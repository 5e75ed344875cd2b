// SPDX-License-Identifier: Apache-2.0
#include "auth/delegatingauthenticator.h"

#include "auth/reviewanswers.h"

#include <qcm/client/restclient.h>

#include <QtCore/QCryptographicHash>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

namespace qcm::host {

namespace {

using Outcome = AuthenticationResult::Outcome;

QFuture<AuthenticationResult> ready(AuthenticationResult result)
{
    return QtFuture::makeReadyFuture(std::move(result));
}

} // namespace

DelegatingAuthenticator::DelegatingAuthenticator(
    client::RestClient *client, Options options, QObject *parent)
    : QObject(parent), m_client(client), m_options(options), m_cache(MaxCachedTokens, options.clock)
{ }

DelegatingAuthenticator::~DelegatingAuthenticator() = default;

QFuture<AuthenticationResult> DelegatingAuthenticator::authenticate(
    const QByteArray &authorizationHeader, const QList<QSslCertificate> &peerChain)
{
    QString certificateFailure;
    if (!peerChain.isEmpty()) {
        const Result<UserInfo> user = m_x509.authenticate(peerChain);
        if (user)
            return ready({Outcome::Authenticated, *user, {}});
        certificateFailure = QStringLiteral("client certificate: %1").arg(user.error().reason);
    }
    // k8s.io/apiserver's bearertoken: "Bearer <token>", the scheme in any case.
    const QList<QByteArray> parts = authorizationHeader.trimmed().split(' ');
    if (parts.size() < 2 || parts.constFirst().toLower() != "bearer")
        return ready({Outcome::Unauthenticated, {},
            certificateFailure.isEmpty() ? QStringLiteral("no credentials") : certificateFailure});
    const QByteArray token = parts.at(1);
    if (token.isEmpty() || parts.size() > 2)
        return ready({Outcome::Unauthenticated, {}, QStringLiteral("invalid bearer token")});

    const QByteArray key = QCryptographicHash::hash(token, QCryptographicHash::Sha256);
    if (std::optional<AuthenticationResult> cached = m_cache.get(key))
        return ready(*cached);
    const QJsonObject review {
        {QStringLiteral("apiVersion"), QStringLiteral("authentication.k8s.io/v1")},
        {QStringLiteral("kind"), QStringLiteral("TokenReview")},
        {QStringLiteral("spec"), QJsonObject {{QStringLiteral("token"), QString::fromUtf8(token)}}},
    };
    ++m_tokenReviews;
    return m_client
        ->requestAsync(QByteArrayLiteral("POST"),
            QStringLiteral("/apis/authentication.k8s.io/v1/tokenreviews"), {},
            QJsonDocument(review).toJson(QJsonDocument::Compact),
            QByteArrayLiteral("application/json"))
        .then(this, [this, key](const client::Response &response) {
            AuthenticationResult result = parseTokenReview(response);
            if (result.outcome != Outcome::Error)
                m_cache.add(key, result, m_options.cacheTtl);
            return result;
        });
}

} // namespace qcm::host
