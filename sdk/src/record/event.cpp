// SPDX-License-Identifier: Apache-2.0
#include "jsonfields_p.h"

#include <qcm/record/event.h>
#include <qcm/record/eventkeys.h>

#include <QtCore/QDateTime>
#include <QtCore/QUuid>

namespace qcm::record {

namespace {

QJsonValue timestampJson(WallTime t)
{
    if (t == WallTime())
        return QJsonValue::Null;
    return Event::formatTimestamp(t);
}

// apimachinery's IsDNS1123Subdomain: at most 253 characters, dot-separated labels of
// [a-z0-9-] that start and end with [a-z0-9].
bool isDns1123Subdomain(const QString &name)
{
    if (name.isEmpty() || name.size() > 253)
        return false;
    const auto alnum = [](QChar c) {
        return (c >= QLatin1Char('a') && c <= QLatin1Char('z'))
            || (c >= QLatin1Char('0') && c <= QLatin1Char('9'));
    };
    const QStringList labels = name.split(QLatin1Char('.'));
    for (const QString &label : labels) {
        if (label.isEmpty() || !alnum(label.front()) || !alnum(label.back()))
            return false;
        for (const QChar c : label) {
            if (!alnum(c) && c != QLatin1Char('-'))
                return false;
        }
    }
    return true;
}

} // namespace

QJsonObject EventSource::toJson() const
{
    QJsonObject json;
    insertIfSet(json, QStringLiteral("component"), component);
    insertIfSet(json, QStringLiteral("host"), host);
    return json;
}

EventSource EventSource::fromJson(const QJsonObject &json)
{
    return {json.value(QStringLiteral("component")).toString(),
        json.value(QStringLiteral("host")).toString()};
}

QString Event::formatTimestamp(WallTime t)
{
    const qint64 nanos = t.time_since_epoch().count();
    // Whole seconds, rounded down as Go's Time.Format truncates.
    const qint64 seconds = nanos >= 0 ? nanos / 1000000000 : -((-nanos + 999999999) / 1000000000);
    return QDateTime::fromSecsSinceEpoch(seconds, Qt::UTC).toString(Qt::ISODate);
}

WallTime Event::parseTimestamp(const QString &text)
{
    const QDateTime parsed = QDateTime::fromString(text, Qt::ISODateWithMs);
    if (!parsed.isValid())
        return {};
    return WallTime(std::chrono::milliseconds(parsed.toMSecsSinceEpoch()));
}

QJsonObject Event::toJson() const
{
    QJsonObject metadata;
    insertIfSet(metadata, QStringLiteral("name"), name);
    insertIfSet(metadata, QStringLiteral("namespace"), namespaceName);
    insertIfSet(metadata, QStringLiteral("resourceVersion"), resourceVersion);
    if (!annotations.isEmpty()) {
        QJsonObject a;
        for (auto it = annotations.begin(); it != annotations.end(); ++it)
            a.insert(it.key(), it.value());
        metadata.insert(QStringLiteral("annotations"), a);
    }
    QJsonObject json {{QStringLiteral("apiVersion"), QStringLiteral("v1")},
        {QStringLiteral("kind"), QStringLiteral("Event")}, {QStringLiteral("metadata"), metadata},
        {QStringLiteral("involvedObject"), involvedObject.toJson()},
        {QStringLiteral("source"), source.toJson()},
        {QStringLiteral("firstTimestamp"), timestampJson(firstTimestamp)},
        {QStringLiteral("lastTimestamp"), timestampJson(lastTimestamp)},
        {QStringLiteral("eventTime"), QJsonValue::Null},
        {QStringLiteral("reportingComponent"), reportingController},
        {QStringLiteral("reportingInstance"), reportingInstance}};
    insertIfSet(json, QStringLiteral("reason"), reason);
    insertIfSet(json, QStringLiteral("message"), message);
    if (count != 0)
        json.insert(QStringLiteral("count"), count);
    insertIfSet(json, QStringLiteral("type"), type);
    return json;
}

Event Event::fromJson(const QJsonObject &json)
{
    Event e;
    const QJsonObject metadata = json.value(QStringLiteral("metadata")).toObject();
    e.name = metadata.value(QStringLiteral("name")).toString();
    e.namespaceName = metadata.value(QStringLiteral("namespace")).toString();
    e.resourceVersion = metadata.value(QStringLiteral("resourceVersion")).toString();
    const QJsonObject a = metadata.value(QStringLiteral("annotations")).toObject();
    for (auto it = a.begin(); it != a.end(); ++it)
        e.annotations.insert(it.key(), it.value().toString());
    e.involvedObject
        = ObjectReference::fromJson(json.value(QStringLiteral("involvedObject")).toObject());
    e.reason = json.value(QStringLiteral("reason")).toString();
    e.message = json.value(QStringLiteral("message")).toString();
    e.source = EventSource::fromJson(json.value(QStringLiteral("source")).toObject());
    e.firstTimestamp = parseTimestamp(json.value(QStringLiteral("firstTimestamp")).toString());
    e.lastTimestamp = parseTimestamp(json.value(QStringLiteral("lastTimestamp")).toString());
    e.count = json.value(QStringLiteral("count")).toInt();
    e.type = json.value(QStringLiteral("type")).toString();
    e.reportingController = json.value(QStringLiteral("reportingComponent")).toString();
    e.reportingInstance = json.value(QStringLiteral("reportingInstance")).toString();
    return e;
}

bool Event::operator==(const Event &o) const
{
    return name == o.name && namespaceName == o.namespaceName
        && resourceVersion == o.resourceVersion && annotations == o.annotations
        && involvedObject == o.involvedObject && reason == o.reason && message == o.message
        && source == o.source && firstTimestamp == o.firstTimestamp
        && lastTimestamp == o.lastTimestamp && count == o.count && type == o.type
        && reportingController == o.reportingController && reportingInstance == o.reportingInstance;
}

bool validateEventType(const QString &type)
{
    return type == EventTypeNormal || type == EventTypeWarning;
}

QString generateEventName(const QString &refName, qint64 unixNanos)
{
    const QString name = refName + QLatin1Char('.') + QString::number(unixNanos, 16);
    if (!isDns1123Subdomain(name))
        return QUuid::createUuid().toString(QUuid::WithoutBraces);
    return name;
}

QString getEventKey(const Event &e)
{
    return e.source.component + e.source.host + e.involvedObject.kind
        + e.involvedObject.namespaceName + e.involvedObject.name + e.involvedObject.fieldPath
        + e.involvedObject.uid + e.involvedObject.apiVersion + e.type + e.reason + e.message;
}

QString getSpamKey(const Event &e)
{
    return e.source.component + e.source.host + e.involvedObject.kind
        + e.involvedObject.namespaceName + e.involvedObject.name + e.involvedObject.uid
        + e.involvedObject.apiVersion + e.type;
}

} // namespace qcm::record
