// SPDX-License-Identifier: Apache-2.0
// Event: a core/v1 Event as the legacy recorder (client-go's tools/record) writes it.
//
// Timestamps are wall-clock times with nanoseconds, as Go's time.Time: the recorder names a
// new Event "<object name>.<hex unix nanoseconds>". On the wire firstTimestamp and
// lastTimestamp are RFC 3339 with whole seconds (metav1.Time), so an Event read back from the
// server has whole seconds. A default-constructed WallTime (the Unix epoch) means "unset"
// and is written as null.
//
// Plain value; thread safety as for any value.
#pragma once

#include <qcm/record/eventsource.h>
#include <qcm/record/objectreference.h>

#include <QtCore/QMap>

#include <chrono>

namespace qcm::record {

using WallTime = std::chrono::time_point<std::chrono::system_clock, std::chrono::nanoseconds>;

// The two event types (v1.EventTypeNormal, v1.EventTypeWarning); the recorder drops others.
inline const QString EventTypeNormal = QStringLiteral("Normal");
inline const QString EventTypeWarning = QStringLiteral("Warning");

struct QCM_SDK_EXPORT Event
{
    // metadata
    QString name;
    QString namespaceName;
    QString resourceVersion;
    QMap<QString, QString> annotations;

    ObjectReference involvedObject;
    QString reason; // UpperCamelCase, short, machine-readable
    QString message; // for humans
    EventSource source;
    WallTime firstTimestamp;
    WallTime lastTimestamp;
    int count = 0;
    QString type; // EventTypeNormal or EventTypeWarning
    QString reportingController; // "reportingComponent" on the wire
    QString reportingInstance;

    // The JSON the API server accepts (apiVersion v1, kind Event), empty fields left out as Go's
    // omitempty does.
    QJsonObject toJson() const;
    static Event fromJson(const QJsonObject &json);
    bool operator==(const Event &other) const;
    bool operator!=(const Event &other) const { return !(*this == other); }

    // RFC 3339 with whole seconds in UTC ("2006-01-02T15:04:05Z"), as metav1.Time marshals.
    static QString formatTimestamp(WallTime t);
    // Parses RFC 3339 (fractions allowed); an unset WallTime if `text` is not one.
    static WallTime parseTimestamp(const QString &text);
};

// True for Normal and Warning (client-go's util.ValidateEventType).
QCM_SDK_EXPORT bool validateEventType(const QString &type);

// "<refName>.<unixNanos in lowercase hex>", or a random UUID when that is not a valid
// DNS subdomain (client-go's util.GenerateEventName).
QCM_SDK_EXPORT QString generateEventName(const QString &refName, qint64 unixNanos);

} // namespace qcm::record
