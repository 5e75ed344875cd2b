// SPDX-License-Identifier: Apache-2.0
// Status: an API error as the server describes it (metav1.Status), with apimachinery's
// predicates: isNotFound(), isConflict(), isGone() and the rest.
//
// fromResponse() decodes a Status body, or makes one from the HTTP code when the body is not
// a Status, as client-go's newUnstructuredResponseError does. Transport failures (refused
// connections, TLS errors, timeouts) are Statuses too, with code 0 and reason set by the
// client, so every call returns one kind of error.
//
// Plain value; copy it freely.
#pragma once

#include <qcm/global.h>

#include <QtCore/QJsonObject>
#include <QtCore/QList>
#include <QtCore/QString>

#include <optional>

namespace qcm::client {

struct StatusCause
{
    QString reason; // "type" on the wire, e.g. FieldValueInvalid
    QString message;
    QString field;
};

class QCM_SDK_EXPORT Status
{
public:
    int code = 0; // the HTTP status code; 0 for a transport failure
    QString reason; // NotFound, AlreadyExists, Conflict, Gone, Expired, ...
    QString message;
    QString detailsName;
    QString detailsGroup;
    QString detailsKind;
    QList<StatusCause> causes;
    std::optional<int> retryAfterSeconds;

    static Status fromJson(const QJsonObject &json);
    static Status fromResponse(int httpCode, const QByteArray &body);
    // A failure of the transport: `reason` names it (client-go has no Status for these).
    static Status transportError(const QString &reason, const QString &message);

    bool isNotFound() const;
    bool isAlreadyExists() const;
    bool isConflict() const;
    bool isGone() const; // 410: Gone or Expired
    bool isResourceExpired() const; // 410 with reason Expired (a compacted resourceVersion)
    bool isTooManyRequests() const;
    bool isForbidden() const;
    bool isUnauthorized() const;
    bool isInvalid() const;
    bool isTimeout() const; // 504, or reason Timeout
    bool isServerTimeout() const; // reason ServerTimeout
    bool isBadRequest() const;
    bool isInternalError() const;

    // "NotFound (404): configmaps \"x\" not found", with the causes.
    QString toString() const;
};

} // namespace qcm::client
