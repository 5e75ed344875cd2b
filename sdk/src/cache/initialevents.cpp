// SPDX-License-Identifier: Apache-2.0
#include "initialevents_p.h"

#include <qcm/cache/keys.h>

namespace qcm::cache {

using client::Object;
using client::WatchEvent;

bool InitialEvents::take(const WatchEvent &event)
{
    if (ended() || event.type == WatchEvent::Type::Error)
        return false;
    ++m_events;
    const Object &object = event.object;
    bool endsHere = false;
    if (event.type == WatchEvent::Type::Bookmark) {
        m_besidesAdded = true;
        endsHere = object.annotations().value(QStringLiteral("k8s.io/initial-events-end"))
            == QLatin1String("true");
    } else if (auto key = metaNamespaceKey(object)) {
        if (event.type != WatchEvent::Type::Added)
            m_besidesAdded = true;
        const auto at = m_index.constFind(*key);
        if (event.type == WatchEvent::Type::Deleted) {
            if (at != m_index.constEnd()) {
                m_items[*at] = Object();
                m_index.erase(at);
            }
        } else if (at != m_index.constEnd()) {
            m_items[*at] = object;
        } else {
            m_index.insert(*key, m_items.size());
            m_items << object;
        }
    }
    // Only past the synthetic Added events is a version a point to resume from.
    if (m_besidesAdded && !object.resourceVersion().isEmpty())
        m_resourceVersion = object.resourceVersion();
    if (endsHere)
        m_ended.store(true, std::memory_order_release);
    return !endsHere;
}

QList<Object> InitialEvents::takeItems()
{
    m_index = {};
    m_items.removeIf([](const Object &o) { return o.isEmpty(); });
    return std::exchange(m_items, {});
}

} // namespace qcm::cache
