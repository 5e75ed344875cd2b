// SPDX-License-Identifier: Apache-2.0
// ResourceLock: the object a leader election is held on (client-go's resourcelock.Interface).
//
// A lock reads and writes one LeaderElectionRecord. Every write carries the resourceVersion
// that the lock last read or wrote, so the API server's optimistic concurrency decides races:
// of two candidates updating the same version, one gets Conflict. update() therefore needs a
// get() or create() first; without one it fails at once, without a request (as client-go's).
//
// The calls are asynchronous: each returns a QFuture that may finish on any thread. Calls may
// overlap: the LeaderElector waits for each call, but gives up on one that has not answered
// within renewDeadline (or when its term ends) and goes on with newer calls (a retry, the
// release) while the old one may still be in flight and may still reach the server. That is
// safe because every write carries a resourceVersion: a late or overlapping write can only
// fail with Conflict, never overwrite a newer record. A lock keeps it so:
//   * the object whose resourceVersion the next update() writes over is the one from the reply
//     to the latest call; a late reply to an earlier call never replaces it (ObjectLock);
//   * a call made of several requests (MultiLock) stops before its next request once a newer
//     call has been made, and finishes with a Canceled Status, as client-go's context
//     cancellation stops it.
//
// changed(): a lock may watch its object and emit changed() when it changes. It is only a
// hint; the elector then reads the record with get() as usual. setWatching() turns it on.
//
// Locks are made by name with newResourceLock() (newresourcelock.h), or directly.
// Thread safety: a lock lives on, and is called from, its owner's thread (the elector's);
// the futures it returns may be finished on another thread.
#pragma once

#include <qcm/client/status.h>
#include <qcm/leaderelection/leaderelectionrecord.h>

#include <QtCore/QFuture>
#include <QtCore/QObject>

#include <functional>
#include <memory>
#include <optional>

namespace qcm::record {
class EventRecorder;
}

namespace qcm::leaderelection {

// What get() read: the record and its raw form. The elector compares raw forms to notice
// that the record changed, so the raw form must change whenever the record does.
struct ObservedRecord
{
    LeaderElectionRecord record;
    QByteArray raw;
};

using GetResult = Result<ObservedRecord, client::Status>;
// The outcome of create() and update(): nothing, or the error.
using WriteResult = std::optional<client::Status>;

struct ResourceLockConfig
{
    // Unique among the candidates. Empty: newResourceLock() fills in defaultIdentity().
    QString identity;
    // Records the lock's events ("became leader", "stopped leading") as client-go's
    // RecordEvent: a Normal Event with reason LeaderElection and message "<identity>
    // <event>" about the lock's object (as last read or written: its uid and resourceVersion
    // included). Null: the lock logs the message instead.
    std::shared_ptr<record::EventRecorder> eventRecorder;
};

class QCM_SDK_EXPORT ResourceLock : public QObject
{
    Q_OBJECT

public:
    explicit ResourceLock(QObject *parent = nullptr);
    ~ResourceLock() override;

    // Reads the record. A missing object is a NotFound Status.
    virtual QFuture<GetResult> get() = 0;
    // Creates the object holding `record`.
    virtual QFuture<WriteResult> create(const LeaderElectionRecord &record) = 0;
    // Writes `record` over the object last read or written, at that resourceVersion.
    virtual QFuture<WriteResult> update(const LeaderElectionRecord &record) = 0;
    // "<identity> <message>", as client-go's RecordEvent (ResourceLockConfig::eventRecorder).
    virtual void recordEvent(const QString &message) = 0;
    virtual QString identity() const = 0;
    // "namespace/name", for messages.
    virtual QString describe() const = 0;
    // Starts or stops watching the object for changed(). Locks that cannot watch ignore it.
    virtual void setWatching(bool on);

signals:
    // The object changed (or may have): a hint to read it again.
    void changed();
};

} // namespace qcm::leaderelection
