// SPDX-License-Identifier: Apache-2.0
// ShardFilter: what a sharded Controller asks before it enqueues a key and before it starts
// a reconcile (docs/scale-out.md). The host makes one per scale-out group over a ShardGate, its
// Membership and its RingLease, and hands it to each sharded controller through
// ControllerContext::shardFilter(); a plugin needs no code of its own to be sharded.
//
//   owns(shardKey)     enqueue only what this member owns in the newest epoch it read
//   admit(shardKey)    immediately before a reconcile starts: Start (then finished() when it
//                      ends, whatever its result), NotMine (drop the key: another member
//                      reconciles it), or Wait (this member owns it but may not start it yet:
//                      the barrier has not passed; requeue it)
//   ownershipChanged() keys may have come to this member: enqueue every object again (the
//                      Controller replays its informers' caches through its handlers, and
//                      owns() keeps what is its own)
//
// The shard key of a reconcile key is the key itself unless the Controller was given a
// function (Controller::setShardKeyFunction). It must depend on the reconcile key alone, the
// same on every replica at every moment (not on a cache, which differs between replicas): the
// barrier protects shard keys (docs/scale-out.md, "The ring of an epoch").
//
// Thread safety: owns(), admit() and finished() are called from any thread (handlers and
// workers) and must be thread-safe. ownershipChanged() may be emitted from any thread.
#pragma once

#include <qcm/global.h>

#include <QtCore/QObject>

namespace qcm::sharding {

class QCM_SDK_EXPORT ShardFilter : public QObject
{
    Q_OBJECT

public:
    enum class Admission { Start, NotMine, Wait };

    using QObject::QObject;
    ~ShardFilter() override;

    virtual bool owns(const QString &shardKey) const = 0;
    virtual Admission admit(const QString &shardKey) = 0;
    virtual void finished(const QString &shardKey) = 0;

signals:
    void ownershipChanged();
};

} // namespace qcm::sharding
