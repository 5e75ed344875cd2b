// SPDX-License-Identifier: Apache-2.0
#include "eventlogger_p.h"

#include <qcm/record/eventkeys.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

namespace qcm::record {

namespace {

// client-go builds the patch with strategicpatch.CreateTwoWayMergePatch from a copy of the
// event with count 0, lastTimestamp at the Unix epoch and no message, to the event: the
// patch therefore holds exactly those of the three fields that differ from that copy.
QByteArray countPatch(const Event &event)
{
    QJsonObject patch;
    if (event.count != 0)
        patch.insert(QStringLiteral("count"), event.count);
    // An unset lastTimestamp marshals as null, which differs from the epoch's timestamp.
    const QJsonValue last = event.lastTimestamp == WallTime()
        ? QJsonValue(QJsonValue::Null)
        : QJsonValue(Event::formatTimestamp(event.lastTimestamp));
    if (last != QJsonValue(Event::formatTimestamp(WallTime(std::chrono::seconds(0)))))
        patch.insert(QStringLiteral("lastTimestamp"), last);
    if (!event.message.isEmpty())
        patch.insert(QStringLiteral("message"), event.message);
    return QJsonDocument(patch).toJson(QJsonDocument::Compact);
}

} // namespace

EventLogger::EventLog EventLogger::logOf(const Event &event)
{
    return {unsigned(event.count), event.firstTimestamp, event.name, event.resourceVersion};
}

std::pair<Event, QByteArray> EventLogger::eventObserve(const Event &newEvent, const QString &key)
{
    Event event = newEvent;
    QByteArray patch;

    std::lock_guard lock(m_mutex);
    // An earlier occurrence: update it rather than create another.
    if (const EventLog *last = m_cache.get(key); last && last->count > 0) {
        event.name = last->name;
        event.resourceVersion = last->resourceVersion;
        event.firstTimestamp = last->firstTimestamp;
        event.count = int(last->count) + 1;
        patch = countPatch(event);
    }
    m_cache.add(key, logOf(event));
    return {event, patch};
}

void EventLogger::updateState(const Event &event)
{
    const QString key = getEventKey(event);
    std::lock_guard lock(m_mutex);
    m_cache.add(key, logOf(event));
}

} // namespace qcm::record
