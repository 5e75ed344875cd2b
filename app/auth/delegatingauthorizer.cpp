// SPDX-License-Identifier: Apache-2.0
#include "auth/delegatingauthorizer.h"

#include "auth/reviewanswers.h"

#include <qcm/client/restclient.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

namespace qcm::host {

namespace {

using Decision = AuthorizationResult::Decision;

QFuture<AuthorizationResult> ready(AuthorizationResult result)
{
    return QtFuture::makeReadyFuture(std::move(result));
}

} // namespace

DelegatingAuthorizer::DelegatingAuthorizer(
    client::RestClient *client, Options options, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_options(options)
    , m_cache(MaxCachedDecisions, options.clock)
{ }

DelegatingAuthorizer::~DelegatingAuthorizer() = default;

std::optional<Error> DelegatingAuthorizer::checkAlwaysAllowPaths(const QStringList &paths)
{
    for (const QString &p : paths) {
        if (!p.startsWith(QLatin1Char('/')))
            return Error {{}, QStringLiteral("--authorization-always-allow-paths"),
                QStringLiteral("\"%1\" is not a path: it must start with /").arg(p)};
        const qsizetype star = p.indexOf(QLatin1Char('*'));
        if (star >= 0 && star != p.size() - 1)
            return Error {{}, QStringLiteral("--authorization-always-allow-paths"),
                QStringLiteral("\"%1\": * may only end a path (a prefix)").arg(p)};
    }
    return std::nullopt;
}

bool DelegatingAuthorizer::isAlwaysAllowedPath(const QString &path) const
{
    for (const QString &allowed : m_options.alwaysAllowPaths) {
        if (allowed.endsWith(QLatin1Char('*'))) {
            if (path.startsWith(QStringView(allowed).chopped(1)))
                return true;
        } else if (path == allowed) {
            return true;
        }
    }
    return false;
}

QFuture<AuthorizationResult> DelegatingAuthorizer::authorize(
    const UserInfo &user, const QByteArray &verb, const QString &path)
{
    if (isAlwaysAllowedPath(path))
        return ready({Decision::Allow, QStringLiteral("an always-allowed path")});
    for (const QString &group : user.groups)
        if (m_options.alwaysAllowGroups.contains(group))
            return ready({Decision::Allow, QStringLiteral("in group %1").arg(group)});

    QJsonObject extra;
    for (auto it = user.extra.begin(); it != user.extra.end(); ++it)
        extra.insert(it.key(), QJsonArray::fromStringList(it.value()));
    QJsonObject spec {
        {QStringLiteral("nonResourceAttributes"),
            QJsonObject {{QStringLiteral("path"), path},
                {QStringLiteral("verb"), QString::fromLatin1(verb.toLower())}}},
        {QStringLiteral("user"), user.name},
        {QStringLiteral("groups"), QJsonArray::fromStringList(user.groups)},
    };
    if (!user.uid.isEmpty())
        spec.insert(QStringLiteral("uid"), user.uid);
    if (!extra.isEmpty())
        spec.insert(QStringLiteral("extra"), extra);
    // The cache key is the review's spec: the same user, groups, path and verb.
    const QByteArray key = QJsonDocument(spec).toJson(QJsonDocument::Compact);
    if (std::optional<AuthorizationResult> cached = m_cache.get(key))
        return ready(*cached);
    const QJsonObject review {
        {QStringLiteral("apiVersion"), QStringLiteral("authorization.k8s.io/v1")},
        {QStringLiteral("kind"), QStringLiteral("SubjectAccessReview")},
        {QStringLiteral("spec"), spec},
    };
    ++m_accessReviews;
    return m_client
        ->requestAsync(QByteArrayLiteral("POST"),
            QStringLiteral("/apis/authorization.k8s.io/v1/subjectaccessreviews"), {},
            QJsonDocument(review).toJson(QJsonDocument::Compact),
            QByteArrayLiteral("application/json"))
        .then(this, [this, key](const client::Response &response) {
            AuthorizationResult result = parseAccessReview(response);
            if (result.decision == Decision::Allow)
                m_cache.add(key, result, m_options.allowTtl);
            else if (result.decision == Decision::Deny)
                m_cache.add(key, result, m_options.denyTtl);
            return result;
        });
}

} // namespace qcm::host
