// SPDX-License-Identifier: Apache-2.0
// ShardGate: which keys of a sharded controller this member may start, and when it may
// acknowledge an epoch (docs/scale-out.md, "Entering an epoch, and the barrier"). Pure state:
// the host feeds it the epochs RingLease reads and what Membership sees, and asks it before
// each reconcile starts.
//
//   * Incarnations. Members are incarnations, "identity/term" (epoch.h): the ring hashes the
//     identity alone, while acks, liveness and gone are per incarnation. This member serves
//     only epochs that list its current incarnation, or none of its identity (it owns
//     nothing there): an epoch that lists an earlier incarnation of it was written by a leader
//     that had not seen this one, and is skipped (a later epoch then counts as after a gap).
//
//   * The chain: the base (the last epoch whose barrier passed, from this member's view) and
//     every epoch read after it, in order, whether acknowledged yet or not. A key may start
//     only if the base exists and this member owns the key in every epoch of the chain: a key
//     gained after the base waits for a barrier; a key kept since the base inherits the base's;
//     a key lost in any epoch read does not start again.
//   * Acknowledging. pendingAck() offers the newest epoch read once no reconcile in flight
//     (started() and finished() bracket every one) runs a key that may not start any more.
//     acknowledged(e) once the ack is written. Others count an ack of e as having gone through
//     every epoch up to e, so a gap in the numbers read (epochs never seen) empties the chain:
//     nothing starts, and nothing is acked, until every reconcile in flight has ended and the
//     newest epoch's barrier has passed.
//   * The barrier of the newest epoch acknowledged passes once every member of its list and
//     every alive member has acked it (its number and its id), skipping members this observer
//     knows are gone, and no member but those gone has acked a newer epoch (then this one is
//     stale: read the newer first) or another epoch of a number in the chain (a number
//     written twice: wait for the leader's next epoch). It becomes the base.
//   * An epoch whose `previous` is not the id of the last epoch read follows a gap as well.
// owns() is for enqueueing: a member enqueues the keys it owns in the newest epoch it read.
// reset(incarnation) (a new membership term) empties the chain and forgets the acks, and keeps
// the reconciles in flight, which must end before the first ack. The membership term (its
// LeaderToken) is checked by the caller, beside mayStart().
//
// Thread safety: a value; not synchronized (the host guards it).
#pragma once

#include <qcm/sharding/epoch.h>
#include <qcm/sharding/hashring.h>

#include <QtCore/QHash>

#include <optional>
#include <vector>

namespace qcm::sharding {

class QCM_SDK_EXPORT ShardGate
{
public:
    // `incarnation` is this member's, "identity/term"; with an empty term ("identity/") it has
    // none yet, and every epoch that lists its identity is skipped until reset() gives one.
    explicit ShardGate(QString incarnation, int virtualNodes = HashRing::DefaultVirtualNodes);

    // The newest epoch read; one not newer than the last is ignored, and one that lists
    // another incarnation of this member's identity is skipped.
    void setEpoch(const Epoch &epoch);
    // What Membership sees, by incarnation: every member's ack, the alive members, and the
    // members known to be gone (their Lease seen expired, or deleted, or its term replaced).
    void setGroup(
        const QHash<QString, Ack> &acks, const QStringList &alive, const QStringList &gone);
    // The same with acks of epochs without ids (for tests of epochs made without ids).
    void setGroup(
        const QHash<QString, quint64> &acks, const QStringList &alive, const QStringList &gone);

    bool mayStart(QStringView shardKey) const;
    void started(const QString &shardKey);
    void finished(const QString &shardKey);
    // Owned in the newest epoch read: enqueue it.
    bool owns(QStringView shardKey) const;

    // The epoch to acknowledge now, if any.
    std::optional<quint64> pendingAck() const;
    // The ack of epoch `number` of the chain (its id); an empty id if it is not there.
    Ack ackOf(quint64 number) const;
    // The ack of `epoch` was written. False when it was not newer than the last one.
    bool acknowledged(quint64 epoch);
    // A new membership term, with its incarnation: start again like a joiner (see above).
    void reset(const QString &incarnation);
    QString incarnation() const { return m_incarnation; }

    quint64 servingEpoch() const; // the newest acknowledged epoch in the chain; 0: none
    quint64 targetEpoch() const; // the newest read; 0: none yet
    quint64 baseEpoch() const; // 0: no base (nothing may start)
    // Keys in flight that may not start any more (all of them while there is no base).
    QStringList inFlightLost() const;
    // No reconcile in flight.
    bool idle() const { return m_inFlight.isEmpty(); }

private:
    struct Link
    {
        Epoch epoch;
        HashRing ring;
    };
    bool ownsIn(const HashRing &ring, QStringView shardKey) const;
    bool ownedThroughout(QStringView shardKey) const;
    qsizetype servedIndex() const; // of the newest acknowledged epoch in the chain; -1: none
    // An ack as a number for the barrier: an ack of another epoch of a number in the chain
    // counts as newer than everything (it blocks every barrier until the chain moves on).
    quint64 effective(const Ack &ack) const;
    void checkBarrier();

    QString m_incarnation;
    QString m_identity; // identityOf(m_incarnation)
    int m_virtualNodes;
    std::vector<Link> m_chain; // [0] is the base when m_basePassed
    bool m_basePassed = false;
    quint64 m_acked = 0; // the newest epoch acknowledged
    QHash<QString, Ack> m_acks;
    QStringList m_alive;
    QStringList m_gone;
    QHash<QString, int> m_inFlight;
};

} // namespace qcm::sharding
