// SPDX-License-Identifier: Apache-2.0
// ShardGroup: this replica's part in one scale-out group, the ShardFilter its sharded
// controllers ask (docs/scale-out.md). It runs the protocol from its three parts:
//
//   Membership  its Lease and term, who is alive, who is gone, everyone's acks
//   RingLease   the epochs; while setLeader() has a valid token (the group's manager-scope
//               leader), it also writes them from the alive members
//   ShardGate   which keys may start, and when to ack
//
// It feeds the gate the epochs read and what Membership sees, writes an ack as soon as the
// gate offers one (after a drain: finished() of the last lost key), and emits
// ownershipChanged() when the newest epoch or the base moves, so that controllers enqueue
// again. admit() also asks the membership term: a member whose term ended starts nothing, and
// when a new term starts it begins again with an empty gate, as its new incarnation (the term
// id Membership wrote), acking and passing a barrier like a member that joins (others may
// have counted it gone meanwhile).
//
// Thread safety: create, start() and stop() on the thread whose event loop runs the
// group (the host's main thread). owns(), admit() and finished() are safe from any thread.
#pragma once

#include <qcm/sharding/hashring.h>
#include <qcm/sharding/membership.h>
#include <qcm/sharding/ringlease.h>
#include <qcm/sharding/shardfilter.h>

#include <memory>

namespace qcm::sharding {

class QCM_SDK_EXPORT ShardGroup : public ShardFilter
{
    Q_OBJECT

public:
    struct Config
    {
        Membership::Config membership; // group, identity, namespace, client, informers, timings
        int virtualNodes = HashRing::DefaultVirtualNodes;
    };

    static Result<std::shared_ptr<ShardGroup>> create(Config config);
    ~ShardGroup() override;

    void start();
    // The graceful leave: no key starts from now on; once no reconcile of this member runs
    // any more, the Lease is deleted (others then skip this member at once). The future
    // finishes after the delete.
    QFuture<std::optional<Error>> stop();
    // The group's leader writes epochs while `token` is valid.
    void setLeader(const leaderelection::LeaderToken &token);

    bool owns(const QString &shardKey) const override;
    Admission admit(const QString &shardKey) override;
    void finished(const QString &shardKey) override;

    Membership &membership();
    RingLease &ring();
    // For logs, metrics and tests: the epochs the gate serves, has read, and its base.
    quint64 servingEpoch() const;
    quint64 targetEpoch() const;
    quint64 baseEpoch() const;

signals:
    // The gate acknowledged an epoch (its ack is written).
    void acknowledged(quint64 epoch);

private:
    explicit ShardGroup(Config config);
    void feedGroup();
    void maybeAck();
    void resetGate();
    void leave();

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::sharding
