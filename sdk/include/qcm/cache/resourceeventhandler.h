// SPDX-License-Identifier: Apache-2.0
// ResourceEventHandler and HandlerRegistration: how code hears about an informer's objects
// (client-go's ResourceEventHandlerFuncs and ResourceEventHandlerRegistration).
//
// Notifications reach a handler through the Qt event loop of its receiver's thread, as posted
// events, in order for that handler. Either give functions, or connect to the
// registration's signals (emitted in the receiver's thread), or both.
//
// Each registration buffers its notifications (unbounded, like client-go's processorListener)
// and has at most one posted event in its receiver's event queue; that event
// delivers what is buffered when it runs. A burst (an initial list of 10k objects) thus costs
// one event-loop wake-up, not 10k, and a slow handler never holds up the informer.
//
// Thread safety: a registration is used from its receiver's thread; hasSynced() and
// isRemoved() from any thread.
#pragma once

#include <qcm/client/object.h>
#include <qcm/clock.h>

#include <QtCore/QObject>

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace qcm::cache {

struct ResourceEventHandler
{
    std::function<void(const client::Object &object, bool isInInitialList)> onAdd;
    std::function<void(const client::Object &oldObject, const client::Object &newObject)> onUpdate;
    // `object` is the last known state; finalStateUnknown is true for a tombstone (the delete
    // was missed while the watch was down).
    std::function<void(const client::Object &object, bool finalStateUnknown)> onDelete;
};

class QCM_SDK_EXPORT HandlerRegistration : public QObject,
                                           public std::enable_shared_from_this<HandlerRegistration>
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

protected:
    void customEvent(QEvent *event) override; // a scheduled delivery

private:
    friend class SharedIndexInformer;
    HandlerRegistration() = default;

    struct Notification
    {
        enum class Kind { Add, Update, Delete } kind;
        client::Object object; // the new object for Update
        client::Object oldObject; // Update only
        bool flag = false; // Add: isInInitialList; Delete: finalStateUnknown
    };
    // From the informer's thread: buffers the notification; returns true if a delivery must be
    // scheduled (none is pending).
    bool enqueue(Notification notification);
    // In the receiver's thread: delivers what is buffered; returns true if more arrived
    // meanwhile and another delivery must be scheduled.
    bool deliverPending();
    // One posted event to this registration (in its receiver's thread) that delivers what is
    // buffered, and schedules itself again if more came in meanwhile.
    void scheduleDelivery();
    void deliver(const Notification &notification);

    ResourceEventHandler m_handler;
    Duration m_resyncPeriod {0};
    TimePoint m_nextResync {};
    bool m_syncing = false; // informer's handler lock
    std::atomic<int> m_pendingInitial {0};
    std::atomic<bool> m_removed {false};
    std::function<bool()> m_informerSynced;
    std::mutex m_pendingMutex;
    std::deque<Notification> m_pending; // guarded by m_pendingMutex
    bool m_deliveryScheduled = false; // guarded by m_pendingMutex
    // The receiver's thread only: the batch being delivered, swapped with m_pending so that
    // neither allocates anew per delivery.
    std::deque<Notification> m_batch;
};

} // namespace qcm::cache
