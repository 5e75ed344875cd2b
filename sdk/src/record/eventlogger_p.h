// SPDX-License-Identifier: Apache-2.0
// EventLogger: remembers each distinct Event (by cache key) it has seen, so that the next
// occurrence updates it (client-go's eventLogger): the same name and firstTimestamp, count + 1,
// and a strategic-merge patch of count, lastTimestamp and message.
//
// Thread safety: every method is safe from any thread.
#pragma once

#include "lrucache_p.h"

#include <qcm/record/event.h>

#include <QtCore/QByteArray>

#include <mutex>

namespace qcm::record {

class EventLogger
{
public:
    explicit EventLogger(int lruCacheEntries) : m_cache(lruCacheEntries) { }

    // client-go's eventObserve: the event to write and, for an event seen before, the patch.
    std::pair<Event, QByteArray> eventObserve(const Event &newEvent, const QString &key);
    // Records the server's copy of a written event, under its getEventKey().
    void updateState(const Event &event);

private:
    // client-go's eventLog.
    struct EventLog
    {
        unsigned count = 0;
        WallTime firstTimestamp;
        QString name;
        QString resourceVersion;
    };
    static EventLog logOf(const Event &event);

    std::mutex m_mutex;
    LruCache<EventLog> m_cache;
};

} // namespace qcm::record
