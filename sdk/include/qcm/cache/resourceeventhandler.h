// ResourceEventHandler and HandlerRegistration: how code hears about an informer's objects
// (client-go's ResourceEventHandlerFuncs and ResourceEventHandlerRegistration).
//
// Notifications reach a handler through the Qt event loop of its receiver's thread, as queued
// invocations, in order for that handler. Either give functions, or connect to the
// registration's signals (emitted in the receiver's thread), or both.
//
// Thread safety: a registration is used from its receiver's thread; hasSynced() and
// isRemoved() from any thread.
#pragma once

#include <qcm/client/object.h>
#include <qcm/clock.h>

#include <QtCore/QObject>

#include <atomic>
#include <functional>

namespace qcm::cache {

struct ResourceEventHandler
{
    std::function<void(const client::Object &object, bool isInInitialList)> onAdd;
    std::function<void(const client::Object &oldObject, const client::Object &newObject)> onUpdate;
    // `object` is the last known state; finalStateUnknown is true for a tombstone (the delete
    // was missed while the watch was down).
    std::function<void(const client::Object &object, bool finalStateUnknown)> onDelete;
};

class QCM_SDK_EXPORT HandlerRegistration : public QObject
{
    Q_OBJECT

public:
    // True once the informer has synced and this handler has run every initial-list add.
    bool hasSynced() const;
    bool isRemoved() const { return m_removed.load(); }

signals:
    void added(const qcm::client::Object &object, bool isInInitialList);
    void updated(const qcm::client::Object &oldObject, const qcm::client::Object &newObject);
    void deleted(const qcm::client::Object &object, bool finalStateUnknown);

private:
    friend class SharedIndexInformer;
    HandlerRegistration() = default;

    ResourceEventHandler m_handler;
    Duration m_resyncPeriod {0};
    TimePoint m_nextResync {};
    bool m_syncing = false; // informer's handler lock
    std::atomic<int> m_pendingInitial {0};
    std::atomic<bool> m_removed {false};
    std::function<bool()> m_informerSynced;
};

} // namespace qcm::cache
