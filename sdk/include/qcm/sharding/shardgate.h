// SPDX-License-Identifier: Apache-2.0
// ShardGate: which keys of a sharded controller this member may start, and when it may
// acknowledge an epoch (docs/scale-out.md, "Entering an epoch, and the barrier"). Pure state:
// the host feeds it the epochs RingLease reads and what Membership sees, and asks it before
// each reconcile starts.
//
//   * Serving. A member serves the epochs it has acknowledged. It may start key k only if it
//     owns k in the epoch it serves and in every epoch it served since the last one whose
//     barrier passed (the base), and the base exists: a key gained in an epoch waits for that
//     epoch's barrier; a key kept since the base inherits the base's.
//   * Entering a newer epoch T. From the moment T is read, the member starts no key it does not
//     own in T; pendingAck() offers T once none of its in-flight keys is lost in T (started()
//     and finished() bracket every reconcile). acknowledged(T) after the ack is written: it then
//     serves T.
//   * The barrier of the served epoch S passes once every member of S's list and every alive
//     member has ack >= S, skipping members this observer knows are gone (seen expired, or
//     whose Lease was deleted). Then S becomes the base.
// owns() is for enqueueing: a member enqueues the keys it owns in the newest epoch it read.
// The membership term (LeaderToken) is checked by the caller, beside mayStart().
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
    explicit ShardGate(QString identity, int virtualNodes = HashRing::DefaultVirtualNodes);

    // The newest epoch read; one not newer than the last is ignored.
    void setEpoch(const Epoch &epoch);
    // What Membership sees: every member's ack, the alive members, and the members known to
    // be gone (their Lease seen expired, or deleted).
    void setGroup(
        const QHash<QString, quint64> &acks, const QStringList &alive, const QStringList &gone);

    bool mayStart(QStringView shardKey) const;
    void started(const QString &shardKey);
    void finished(const QString &shardKey);
    // Owned in the newest epoch read: enqueue it.
    bool owns(QStringView shardKey) const;

    // The epoch to acknowledge now, if any.
    std::optional<quint64> pendingAck() const;
    // The ack of `epoch` was written; nothing happens unless it is the newest epoch read.
    void acknowledged(quint64 epoch);

    quint64 servingEpoch() const; // 0: none yet
    quint64 targetEpoch() const; // the newest read; 0: none yet
    quint64 baseEpoch() const; // the last served epoch whose barrier passed; 0: none yet
    // Keys in flight that this member does not own in the newest epoch read.
    QStringList inFlightLost() const;

private:
    struct Served
    {
        Epoch epoch;
        HashRing ring;
    };
    bool ownsIn(const HashRing &ring, QStringView shardKey) const;
    void checkBarrier();

    QString m_identity;
    int m_virtualNodes;
    std::optional<Served> m_target;
    std::vector<Served> m_served; // [0] is the base once its barrier passed
    bool m_basePassed = false; // whether m_served[0]'s barrier passed
    QHash<QString, quint64> m_acks;
    QStringList m_alive;
    QStringList m_gone;
    QHash<QString, int> m_inFlight;
};

} // namespace qcm::sharding
