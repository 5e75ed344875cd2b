// SPDX-License-Identifier: Apache-2.0
// Membership: this replica's membership in a scale-out group, and the group as this replica
// sees it (docs/scale-out.md, "Membership").
//
//   * Its own membership Lease, <group>-<hash64(identity) in hex>, labelled
//     scale-out.qcm.io/group=<group>, held and renewed by a LeaderElector (Rejoin mode) on the
//     leader-election timings. The elector's term is the membership term: termStarted() hands
//     out its LeaderToken, which a sharded reconcile checks before it starts. A member whose
//     term ended (a pause, a partition) gets its Lease back only once the Lease has expired
//     for everyone, as the elector takes no unexpired lease, its own included.
//   * The group's Leases through one shared informer (a label selector on the group), and
//     who is alive by MemberLiveness's rule on this observer's monotonic clock:
//     membersChanged() when that set changes, also when a member expires.
//   * Who is gone, for the barrier (ShardGate): a member whose Lease was deleted (a graceful
//     leave), or whose Lease expired *and* a fresh GET (a quorum read, not the watch cache)
//     still shows the spec this observer last saw. A watch may deliver a renewal late, so an
//     expiry seen through it alone could be wrong; the GET makes it the LeaderElector's rule,
//     which reads the lock the same way. A Lease that changed is observed again (alive).
//   * Acks: acknowledge(epoch) writes scale-out.qcm.io/ack on its own Lease (a merge patch);
//     it never writes a lower number than it wrote before. acks() reads every member's from
//     the informer's cache; an annotation that does not parse counts as no ack, with a
//     warning naming the Lease.
//   * stop() is the graceful leave: it ends the term and deletes the Lease, so that the others
//     drop this member at once instead of after leaseDuration. Destroying a Membership without
//     stop() leaves the Lease to expire (as a crash would).
//
// Thread safety: a Membership belongs to the thread that created it and runs on its event
// loop; call its methods there. term() is safe from any thread.
#pragma once

#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/clock.h>
#include <qcm/leaderelection/leadertoken.h>
#include <qcm/result.h>

#include <QtCore/QFuture>
#include <QtCore/QHash>
#include <QtCore/QObject>

#include <memory>

namespace qcm::client {
class RestClient;
}

namespace qcm::sharding {

class QCM_SDK_EXPORT Membership : public QObject
{
    Q_OBJECT

public:
    struct Config
    {
        QString group; // a DNS label, at most 46 characters (the Lease name adds 17)
        QString identity; // this replica's leader-election identity
        QString namespaceName; // the leader-election namespace
        client::RestClient *client = nullptr; // must outlive the Membership
        cache::SharedInformerFactory *informers = nullptr; // must outlive the Membership
        Duration leaseDuration = std::chrono::seconds(15);
        Duration renewDeadline = std::chrono::seconds(10);
        Duration retryPeriod = std::chrono::seconds(2);
        Clock *clock = nullptr; // null: Clock::system()
    };

    static const QString GroupLabel; // "scale-out.qcm.io/group"

    // A Membership, or the first thing wrong with the config (the group's form, a missing
    // client, the elector's timing rules).
    static Result<std::unique_ptr<Membership>> create(Config config, QObject *parent = nullptr);
    ~Membership() override;

    // The name of `identity`'s membership Lease in `group`.
    static QString leaseName(const QString &group, const QString &identity);

    void start();
    // Ends the term and deletes the Lease; the future says whether the delete succeeded.
    // Final: a stopped Membership does not start again (make a new one).
    QFuture<std::optional<Error>> stop();

    leaderelection::LeaderToken term() const;
    QString identity() const;
    // The alive members, sorted (this one included while its Lease is fresh).
    QStringList aliveMembers() const;
    // The members known to be gone: Lease deleted, or expired and confirmed; sorted.
    QStringList goneMembers() const;
    // Every member's ack as the cache has it, by identity.
    QHash<QString, quint64> acks() const;
    // Writes ack = `epoch` on this member's Lease, unless it already wrote one as high.
    QFuture<std::optional<Error>> acknowledge(quint64 epoch);

signals:
    void termStarted(const qcm::leaderelection::LeaderToken &token);
    void termEnded();
    // The alive or the gone members changed.
    void membersChanged(const QStringList &alive);
    void acksChanged();

private:
    explicit Membership(Config config, QObject *parent);
    void onLease(const client::Object &lease);
    void onLeaseDeleted(const client::Object &lease);
    void refresh();
    void confirmExpiry(const QString &lease, const QString &holder, const QByteArray &rawSpec);

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::sharding
