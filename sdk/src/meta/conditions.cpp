// SPDX-License-Identifier: Apache-2.0
#include <qcm/meta/conditions.h>

namespace qcm::meta {

QJsonObject Condition::toJson() const
{
    QJsonObject o {{QStringLiteral("type"), type}, {QStringLiteral("status"), status},
        {QStringLiteral("lastTransitionTime"), lastTransitionTime.toUTC().toString(Qt::ISODate)},
        {QStringLiteral("reason"), reason}, {QStringLiteral("message"), message}};
    if (observedGeneration != 0)
        o.insert(QStringLiteral("observedGeneration"), observedGeneration);
    return o;
}

Condition Condition::fromJson(const QJsonObject &json)
{
    Condition c;
    c.type = json.value(QLatin1String("type")).toString();
    c.status = json.value(QLatin1String("status")).toString();
    c.observedGeneration = json.value(QLatin1String("observedGeneration")).toInteger();
    c.lastTransitionTime = QDateTime::fromString(
        json.value(QLatin1String("lastTransitionTime")).toString(), Qt::ISODate);
    c.reason = json.value(QLatin1String("reason")).toString();
    c.message = json.value(QLatin1String("message")).toString();
    return c;
}

bool Condition::operator==(const Condition &o) const
{
    return type == o.type && status == o.status && observedGeneration == o.observedGeneration
        && lastTransitionTime == o.lastTransitionTime && reason == o.reason && message == o.message;
}

namespace {

QDateTime nowOr(const QDateTime &now)
{
    if (now.isValid())
        return now;
    QDateTime t = QDateTime::currentDateTimeUtc();
    t.setTime(QTime(t.time().hour(), t.time().minute(), t.time().second()));
    return t;
}

qsizetype indexOf(const QJsonArray &conditions, const QString &type)
{
    for (qsizetype i = 0; i < conditions.size(); ++i)
        if (conditions.at(i).toObject().value(QLatin1String("type")).toString() == type)
            return i;
    return -1;
}

QJsonArray conditionsOf(const client::Object &object)
{
    return object.json()
        .value(QLatin1String("status"))
        .toObject()
        .value(QLatin1String("conditions"))
        .toArray();
}

void setConditions(client::Object &object, const QJsonArray &conditions)
{
    QJsonObject &json = object.json();
    QJsonObject status = json.value(QLatin1String("status")).toObject();
    status.insert(QStringLiteral("conditions"), conditions);
    json.insert(QStringLiteral("status"), status);
}

} // namespace

bool setStatusCondition(QJsonArray &conditions, Condition condition, const QDateTime &now)
{
    const qsizetype at = indexOf(conditions, condition.type);
    if (at < 0) {
        if (!condition.lastTransitionTime.isValid())
            condition.lastTransitionTime = nowOr(now);
        conditions.append(condition.toJson());
        return true;
    }
    Condition existing = Condition::fromJson(conditions.at(at).toObject());
    bool changed = false;
    if (existing.status != condition.status) {
        existing.status = condition.status;
        existing.lastTransitionTime
            = condition.lastTransitionTime.isValid() ? condition.lastTransitionTime : nowOr(now);
        changed = true;
    }
    if (existing.reason != condition.reason) {
        existing.reason = condition.reason;
        changed = true;
    }
    if (existing.message != condition.message) {
        existing.message = condition.message;
        changed = true;
    }
    if (existing.observedGeneration != condition.observedGeneration) {
        existing.observedGeneration = condition.observedGeneration;
        changed = true;
    }
    if (changed)
        conditions.replace(at, existing.toJson());
    return changed;
}

bool removeStatusCondition(QJsonArray &conditions, const QString &type)
{
    const qsizetype at = indexOf(conditions, type);
    if (at < 0)
        return false;
    conditions.removeAt(at);
    return true;
}

std::optional<Condition> findStatusCondition(const QJsonArray &conditions, const QString &type)
{
    const qsizetype at = indexOf(conditions, type);
    return at < 0 ? std::nullopt
                  : std::optional<Condition>(Condition::fromJson(conditions.at(at).toObject()));
}

bool isStatusConditionTrue(const QJsonArray &conditions, const QString &type)
{
    return isStatusConditionPresentAndEqual(conditions, type, QStringLiteral("True"));
}

bool isStatusConditionFalse(const QJsonArray &conditions, const QString &type)
{
    return isStatusConditionPresentAndEqual(conditions, type, QStringLiteral("False"));
}

bool isStatusConditionPresentAndEqual(
    const QJsonArray &conditions, const QString &type, const QString &status)
{
    const auto c = findStatusCondition(conditions, type);
    return c && c->status == status;
}

bool setStatusCondition(client::Object &object, const Condition &condition, const QDateTime &now)
{
    QJsonArray conditions = conditionsOf(object);
    if (!setStatusCondition(conditions, condition, now))
        return false;
    setConditions(object, conditions);
    return true;
}

bool removeStatusCondition(client::Object &object, const QString &type)
{
    QJsonArray conditions = conditionsOf(object);
    if (!removeStatusCondition(conditions, type))
        return false;
    setConditions(object, conditions);
    return true;
}

std::optional<Condition> findStatusCondition(const client::Object &object, const QString &type)
{
    return findStatusCondition(conditionsOf(object), type);
}

} // namespace qcm::meta
