// SPDX-License-Identifier: Apache-2.0
#include "auth/reviewanswers.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

namespace qcm::host {

namespace {

using Outcome = AuthenticationResult::Outcome;
using Decision = AuthorizationResult::Decision;

QStringList strings(const QJsonValue &v)
{
    QStringList out;
    for (const QJsonValue &s : v.toArray())
        out << s.toString();
    return out;
}

} // namespace

// A TokenReview's answer: status.authenticated with status.user, or status.error.
AuthenticationResult parseTokenReview(const client::Response &response)
{
    if (!response.isSuccess()) {
        const client::Status status = response.status();
        return {
            Outcome::Error, {}, QStringLiteral("the TokenReview failed: %1").arg(status.message)};
    }
    QJsonParseError error {};
    const QJsonObject review = QJsonDocument::fromJson(response.body, &error).object();
    if (error.error != QJsonParseError::NoError)
        return {Outcome::Error, {},
            QStringLiteral("the TokenReview's answer is not JSON: %1").arg(error.errorString())};
    const QJsonObject status = review.value(QLatin1String("status")).toObject();
    if (!status.value(QLatin1String("authenticated")).toBool()) {
        const QString why = status.value(QLatin1String("error")).toString();
        return {Outcome::Unauthenticated, {},
            why.isEmpty() ? QStringLiteral("the token is not valid")
                          : QStringLiteral("the token is not valid: %1").arg(why)};
    }
    const QJsonObject u = status.value(QLatin1String("user")).toObject();
    UserInfo user;
    user.name = u.value(QLatin1String("username")).toString();
    user.uid = u.value(QLatin1String("uid")).toString();
    user.groups = strings(u.value(QLatin1String("groups")));
    const QJsonObject extra = u.value(QLatin1String("extra")).toObject();
    for (auto it = extra.begin(); it != extra.end(); ++it)
        user.extra.insert(it.key(), strings(it.value()));
    if (user.name.isEmpty())
        return {Outcome::Error, {}, QStringLiteral("the TokenReview names no user")};
    return {Outcome::Authenticated, user, {}};
}

AuthorizationResult parseAccessReview(const client::Response &response)
{
    if (!response.isSuccess())
        return {Decision::Error,
            QStringLiteral("the SubjectAccessReview failed: %1").arg(response.status().message)};
    QJsonParseError error {};
    const QJsonObject review = QJsonDocument::fromJson(response.body, &error).object();
    if (error.error != QJsonParseError::NoError)
        return {Decision::Error,
            QStringLiteral("the SubjectAccessReview's answer is not JSON: %1")
                .arg(error.errorString())};
    const QJsonObject status = review.value(QLatin1String("status")).toObject();
    QString reason = status.value(QLatin1String("reason")).toString();
    const QString evaluationError = status.value(QLatin1String("evaluationError")).toString();
    if (status.value(QLatin1String("allowed")).toBool())
        return {Decision::Allow, reason};
    if (reason.isEmpty())
        reason = evaluationError;
    return {Decision::Deny, reason};
}

} // namespace qcm::host
