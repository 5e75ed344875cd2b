// SPDX-License-Identifier: Apache-2.0
// RingLease: a scale-out group's epochs, kept in one Lease, <group>-ring, as the annotation
// scale-out.qcm.io/epoch (docs/scale-out.md, "Epochs: one writer, optimistic concurrency").
//
// Every member reads it (an informer on that one Lease): epoch() is the newest epoch read, and
// epochChanged() is emitted when a higher one arrives. An epoch never goes back: a lower
// number, or an annotation that does not parse (a warning names the Lease and the reason), is
// ignored.
//
// Only the group's leader writes, and only while the LeaderToken given to setLeader() is
// valid (checked immediately before each write). When the alive members given to
// setMembers() have differed from the epoch's list for `dwell` (one retryPeriod, so that a
// renewal seen late does not make a new epoch; every member times the dwell, so that a new
// leader does not wait it out again; no dwell when the only difference is members known gone,
// which cannot come back), or a member has acked an epoch this one has not read (a newer
// number, or the same number with another id: the annotation was lost and written again), it
// writes epoch max(epoch, highest ack) + 1 with the alive members, a fresh id, and `previous`
// = the id of the epoch it read: a PUT carrying the resourceVersion it read (or a create, when
// the Lease does not exist yet), so that of two leaders in a handover only one write
// succeeds. A failed write is tried again after `dwell`, against what the informer has read
// meanwhile. The highest ack keeps numbers growing even if the annotation was lost or
// edited, and the ids tell a number written twice apart.
//
// Thread safety: a RingLease belongs to the thread that created it and runs on its event
// loop; call its methods there.
#pragma once

#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/clock.h>
#include <qcm/leaderelection/leadertoken.h>
#include <qcm/result.h>
#include <qcm/sharding/epoch.h>

#include <QtCore/QObject>

#include <memory>

namespace qcm::client {
class RestClient;
}

namespace qcm::sharding {

class QCM_SDK_EXPORT RingLease : public QObject
{
    Q_OBJECT

public:
    struct Config
    {
        QString group;
        QString namespaceName;
        client::RestClient *client = nullptr; // must outlive the RingLease
        cache::SharedInformerFactory *informers = nullptr; // must outlive the RingLease
        Duration dwell = std::chrono::seconds(2); // the retryPeriod
        Clock *clock = nullptr; // null: Clock::system()
    };

    static Result<std::unique_ptr<RingLease>> create(Config config, QObject *parent = nullptr);
    ~RingLease() override;
    static QString leaseName(const QString &group); // "<group>-ring"

    void start();
    // The newest epoch read; number 0 before any.
    Epoch epoch() const;
    // Leads while `token` is valid; an invalid token makes this member a reader only.
    void setLeader(const leaderelection::LeaderToken &token);
    // The alive members as this member sees them, the acks in the group, and the members
    // known gone (Membership::goneMembers()).
    void setMembers(const QStringList &alive, const QList<Ack> &acks, const QStringList &gone = {});

signals:
    void epochChanged(const qcm::sharding::Epoch &epoch);
    // A write of this member's succeeded, over `previous` (the epoch read before; number 0
    // for the first): for logs, the host's Event of each placement change, and tests.
    void epochWritten(const qcm::sharding::Epoch &epoch, const qcm::sharding::Epoch &previous);

private:
    explicit RingLease(Config config, QObject *parent);
    void onLease(const client::Object &lease);
    void evaluate();
    void write();
    bool unread() const; // an ack of an epoch this one has not read
    bool onlyGoneLeft() const; // the only difference: members of the epoch known gone

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::sharding
