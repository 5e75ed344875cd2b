// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/status.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QStringList>

namespace qcm::client {

namespace {

// The reason apimachinery assumes for a code when the body says none (reasonForError and
// newUnstructuredResponseError).
QString reasonForCode(int code)
{
    switch (code) {
    case 400:
        return QStringLiteral("BadRequest");
    case 401:
        return QStringLiteral("Unauthorized");
    case 403:
        return QStringLiteral("Forbidden");
    case 404:
        return QStringLiteral("NotFound");
    case 405:
        return QStringLiteral("MethodNotAllowed");
    case 406:
        return QStringLiteral("NotAcceptable");
    case 409:
        return QStringLiteral("Conflict");
    case 410:
        return QStringLiteral("Gone");
    case 415:
        return QStringLiteral("UnsupportedMediaType");
    case 422:
        return QStringLiteral("Invalid");
    case 429:
        return QStringLiteral("TooManyRequests");
    case 500:
        return QStringLiteral("InternalError");
    case 503:
        return QStringLiteral("ServiceUnavailable");
    case 504:
        return QStringLiteral("Timeout");
    default:
        return QStringLiteral("Unknown");
    }
}

} // namespace

Status Status::fromJson(const QJsonObject &json)
{
    Status s;
    s.code = json.value(QStringLiteral("code")).toInt();
    s.reason = json.value(QStringLiteral("reason")).toString();
    s.message = json.value(QStringLiteral("message")).toString();
    const QJsonObject details = json.value(QStringLiteral("details")).toObject();
    s.detailsName = details.value(QStringLiteral("name")).toString();
    s.detailsGroup = details.value(QStringLiteral("group")).toString();
    s.detailsKind = details.value(QStringLiteral("kind")).toString();
    if (details.contains(QStringLiteral("retryAfterSeconds")))
        s.retryAfterSeconds = details.value(QStringLiteral("retryAfterSeconds")).toInt();
    for (const QJsonValue &c : details.value(QStringLiteral("causes")).toArray()) {
        const QJsonObject cause = c.toObject();
        s.causes.append({cause.value(QStringLiteral("reason")).toString(),
            cause.value(QStringLiteral("message")).toString(),
            cause.value(QStringLiteral("field")).toString()});
    }
    return s;
}

Status Status::fromResponse(int httpCode, const QByteArray &body)
{
    const QJsonDocument doc = QJsonDocument::fromJson(body);
    const QJsonObject json = doc.object();
    if (json.value(QStringLiteral("kind")).toString() == QLatin1String("Status")) {
        Status s = fromJson(json);
        if (s.code == 0)
            s.code = httpCode;
        if (s.reason.isEmpty())
            s.reason = reasonForCode(s.code);
        return s;
    }
    Status s;
    s.code = httpCode;
    s.reason = reasonForCode(httpCode);
    const QString text = QString::fromUtf8(body.left(512)).trimmed();
    s.message = text.isEmpty()
        ? QStringLiteral("the server responded with code %1").arg(httpCode)
        : QStringLiteral("the server responded with code %1: %2").arg(httpCode).arg(text);
    return s;
}

Status Status::transportError(const QString &reason, const QString &message)
{
    Status s;
    s.reason = reason;
    s.message = message;
    return s;
}

bool Status::isNotFound() const
{
    return reason == QLatin1String("NotFound");
}

bool Status::isAlreadyExists() const
{
    return reason == QLatin1String("AlreadyExists");
}

bool Status::isConflict() const
{
    return reason == QLatin1String("Conflict");
}

bool Status::isGone() const
{
    return code == 410 || reason == QLatin1String("Gone") || reason == QLatin1String("Expired");
}

bool Status::isResourceExpired() const
{
    return reason == QLatin1String("Expired");
}

bool Status::isTooManyRequests() const
{
    return code == 429 || reason == QLatin1String("TooManyRequests");
}

bool Status::isForbidden() const
{
    return reason == QLatin1String("Forbidden");
}

bool Status::isUnauthorized() const
{
    return reason == QLatin1String("Unauthorized");
}

bool Status::isInvalid() const
{
    return reason == QLatin1String("Invalid");
}

bool Status::isTimeout() const
{
    return code == 504 || reason == QLatin1String("Timeout");
}

bool Status::isServerTimeout() const
{
    return reason == QLatin1String("ServerTimeout");
}

bool Status::isBadRequest() const
{
    return reason == QLatin1String("BadRequest");
}

bool Status::isInternalError() const
{
    return reason == QLatin1String("InternalError");
}

QString Status::toString() const
{
    QString out = code ? QStringLiteral("%1 (%2): %3").arg(reason).arg(code).arg(message)
                       : QStringLiteral("%1: %2").arg(reason, message);
    QStringList causeTexts;
    for (const StatusCause &cause : causes)
        causeTexts << (cause.field.isEmpty() ? cause.message
                                             : cause.field + QStringLiteral(": ") + cause.message);
    if (!causeTexts.isEmpty())
        out += QStringLiteral(" [") + causeTexts.join(QStringLiteral("; ")) + QLatin1Char(']');
    return out;
}

} // namespace qcm::client
