// SPDX-License-Identifier: Apache-2.0
// Status conditions as apimachinery's meta package handles them (SetStatusCondition,
// FindStatusCondition, RemoveStatusCondition, IsStatusConditionTrue, ...): a condition's
// lastTransitionTime changes only when its status changes; reason, message and
// observedGeneration are updated in place; a new condition without a time gets now.
//
//     meta::setStatusCondition(foo, {QStringLiteral("Ready"), QStringLiteral("True"),
//         foo.generation(), {}, QStringLiteral("Synced"), QStringLiteral("Deployment ready")});
//
// The Object forms read and write status.conditions.
//
// Thread safety: functions of their arguments.
#pragma once

#include <qcm/client/object.h>

#include <QtCore/QDateTime>
#include <QtCore/QJsonArray>

#include <optional>

namespace qcm::meta {

// metav1.Condition.
struct QCM_SDK_EXPORT Condition
{
    QString type;
    QString status; // "True", "False" or "Unknown"
    qint64 observedGeneration = 0;
    QDateTime lastTransitionTime; // invalid: set when it is stored
    QString reason;
    QString message;

    QJsonObject toJson() const; // lastTransitionTime as RFC 3339 seconds, UTC
    static Condition fromJson(const QJsonObject &json);
    bool operator==(const Condition &o) const;
};

// Whether `conditions` changed. `now` is when a transition happens (defaults to now, UTC,
// whole seconds, as metav1.Time keeps).
QCM_SDK_EXPORT bool setStatusCondition(
    QJsonArray &conditions, Condition condition, const QDateTime &now = {});
QCM_SDK_EXPORT bool removeStatusCondition(QJsonArray &conditions, const QString &type);
QCM_SDK_EXPORT std::optional<Condition> findStatusCondition(
    const QJsonArray &conditions, const QString &type);
QCM_SDK_EXPORT bool isStatusConditionTrue(const QJsonArray &conditions, const QString &type);
QCM_SDK_EXPORT bool isStatusConditionFalse(const QJsonArray &conditions, const QString &type);
QCM_SDK_EXPORT bool isStatusConditionPresentAndEqual(
    const QJsonArray &conditions, const QString &type, const QString &status);

// The same on an object's status.conditions.
QCM_SDK_EXPORT bool setStatusCondition(
    client::Object &object, const Condition &condition, const QDateTime &now = {});
QCM_SDK_EXPORT bool removeStatusCondition(client::Object &object, const QString &type);
QCM_SDK_EXPORT std::optional<Condition> findStatusCondition(
    const client::Object &object, const QString &type);

} // namespace qcm::meta
