// SPDX-License-Identifier: Apache-2.0
// InitialEvents: the initial state of a WatchList stream, collected until the bookmark
// annotated k8s.io/initial-events-end (client-go's temporary store in watchList()): Added,
// Modified and Deleted events fold into one object per key, in first-seen order, and the
// resourceVersion to resume from is the last one seen past the synthetic Added events.
//
// Thread safety: take() is called by one thread at a time (the stream's sink, or the
// reflector's thread); once ended() is true, take() only reads. The other accessors are for
// the reflector's thread after it has taken the ending bookmark from the stream.
#pragma once

#include <qcm/client/watchevent.h>

#include <QtCore/QHash>
#include <QtCore/QList>

#include <atomic>

namespace qcm::cache {

class InitialEvents
{
public:
    // Takes one event of the initial state; false for the bookmark that ends it and for
    // everything after it (and for Error events, which are the caller's).
    bool take(const client::WatchEvent &event);
    bool ended() const { return m_ended.load(std::memory_order_acquire); }
    // The events taken, the ending bookmark included.
    int events() const { return m_events; }
    // The objects, in first-seen order, without those deleted meanwhile; moved out, and the
    // index freed, so that no second copy lives while the queue is replaced.
    QList<client::Object> takeItems();
    QString resourceVersion() const { return m_resourceVersion; }

private:
    QHash<QString, qsizetype> m_index; // key -> position in m_items
    QList<client::Object> m_items; // a deleted key's slot holds an empty Object
    QString m_resourceVersion;
    bool m_besidesAdded = false;
    int m_events = 0;
    std::atomic<bool> m_ended {false};
};

} // namespace qcm::cache
