// SPDX-License-Identifier: Apache-2.0
// Membership: this replica's membership in a scale-out group, and the group as this replica
// sees it (docs/scale-out.md, "Membership").
//
//   * Its own membership Lease, <group>-<hash64(identity) in hex>, labelled
//     scale-out.qcm.io/group=<group>, held and renewed by a LeaderElector (Rejoin mode) on the
//     leader-election timings. A member whose elector term ended (a pause, a partition) gets
//     its Lease back only once the Lease has expired for everyone, as the elector takes no
//     unexpired lease, its own included.
//   * Incarnations. When the elector's term starts, the member draws a fresh term id and
//     writes it, with its ack removed, on its Lease in one merge patch
//     (scale-out.qcm.io/term); only then does its membership term begin: termStarted() hands
//     out the elector's LeaderToken, and term() returns it until the term ends. From then on
//     the member is the incarnation "identity/term" (epoch.h) to everyone. If its Lease is
//     deleted, or shows a term id it never wrote, the incarnation is lost: termEnded(), and a
//     new one is drawn while the elector still holds the Lease.
//   * The group's Leases through one shared informer (a label selector on the group), and
//     which incarnations are alive by MemberLiveness's rule on this observer's monotonic
//     clock: membersChanged() when that set changes, also when one expires. A Lease without a
//     term id (a member that has not written one yet) is no member.
//   * Which incarnations are gone, for the barrier (ShardGate): the one of a Lease that was
//     deleted (a graceful leave); the one a Lease showed before its term id changed (the
//     elector took the Lease after it expired, so that term is over); and the one of a Lease
//     that expired *and* that a fresh GET (a quorum read, not the watch cache) still shows
//     unchanged. A watch may deliver a renewal late, so an expiry seen through it alone could
//     be wrong; the GET makes it the LeaderElector's rule, which reads the lock the same way.
//   * Acks: acknowledge(epoch) writes scale-out.qcm.io/ack on its own Lease, a JSON patch that
//     first tests the Lease's term id, so that an ack of an ended term never lands on a later
//     one. Within a term it never writes a lower number than it wrote before, and it writes
//     its ack again when its own Lease in the cache has lost it. acks() reads every
//     incarnation's from the cache; an annotation that does not parse counts as no ack (a
//     term id that does not parse: no member), with a warning naming the Lease.
//   * An emulation version (Config::emulationVersion, with coordinated election in controller
//     scope): written with the term id, in the same patch, as scale-out.qcm.io/emulation-version,
//     so that every incarnation the cache shows carries it; emulationVersions() reads them (an
//     annotation longer than MaxEmulationVersionLength is ignored, with a warning).
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
#include <qcm/sharding/epoch.h>

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
        QString emulationVersion; // empty: none written
    };

    static const QString GroupLabel; // "scale-out.qcm.io/group"
    static const QString EmulationVersionAnnotation; // "scale-out.qcm.io/emulation-version"
    static constexpr qsizetype MaxEmulationVersionLength = 64;
    // A group's name: a DNS label of at most MaxGroupLength characters (its Lease names add 17).
    static constexpr qsizetype MaxGroupLength = 46;
    static bool isValidGroup(const QString &group);

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

    // The membership term: valid from termStarted() until termEnded().
    leaderelection::LeaderToken term() const;
    QString identity() const;
    // This member's incarnation, "identity/term", while its term lasts; empty otherwise.
    QString incarnation() const;
    // The alive incarnations, sorted (this one included while its Lease is fresh).
    QStringList aliveMembers() const;
    // The incarnations known to be gone (see above); sorted.
    QStringList goneMembers() const;
    // Every incarnation's emulation version as the cache has it (those that wrote one).
    QHash<QString, QString> emulationVersions() const;
    // Every incarnation's ack as the cache has it.
    QHash<QString, Ack> acks() const;
    // Writes ack = `epoch` on this member's Lease, unless it already wrote one as high in this
    // term. An error without a term.
    QFuture<std::optional<Error>> acknowledge(const Ack &epoch);

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
    QString incarnationOf(const client::Object &lease) const;
    void beginIncarnation(const leaderelection::LeaderToken &token);
    void endIncarnation();
    void loseIncarnation(const QString &why);
    void checkOwnLease(const client::Object &lease, const std::optional<Ack> &ack);
    QFuture<std::optional<Error>> writeAck(const Ack &epoch);

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::sharding
