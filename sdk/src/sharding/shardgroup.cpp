// SPDX-License-Identifier: Apache-2.0
#include <qcm/sharding/shardgroup.h>

#include "../leaderelection/mailbox_p.h"

#include <qcm/sharding/shardgate.h>

#include <QtCore/QLoggingCategory>
#include <QtCore/QTimer>

#include <algorithm>
#include <mutex>

namespace qcm::sharding {

Q_LOGGING_CATEGORY(lcShardGroup, "qcm.sharding.group")

using leaderelection::detail::Mailbox;
using leaderelection::detail::whenFinished;

struct ShardGroup::Private
{
    Config config;
    std::unique_ptr<Membership> membership;
    std::unique_ptr<RingLease> ring;
    std::shared_ptr<Mailbox> mailbox;
    bool acking = false; // the group's thread only

    mutable std::mutex mutex;
    std::unique_ptr<ShardGate> gate; // guarded by mutex
    quint64 generation = 0; // guarded by mutex; bumped when a membership term resets the gate
    bool stopped = false; // guarded by mutex
    std::shared_ptr<QPromise<std::optional<Error>>> leaving; // set by stop()
    bool leftCalled = false; // the group's thread only
};

namespace {

// Runs `change` on the gate under the group's mutex and tells whether it moved the base: keys
// this member gained may start from then on, so the caller emits ownershipChanged() (their
// reconciles wait otherwise until Controller's retry of a Wait). Every change of the gate
// that can pass a barrier goes through here.
template<typename Change>
bool movesBase(std::mutex &mutex, ShardGate &gate, Change &&change)
{
    std::lock_guard lock(mutex);
    const quint64 base = gate.baseEpoch();
    change(gate);
    return gate.baseEpoch() != base;
}

} // namespace

Result<std::shared_ptr<ShardGroup>> ShardGroup::create(Config config)
{
    auto membership = Membership::create(config.membership);
    if (!membership)
        return membership.error();
    const Membership::Config &m = config.membership;
    auto ring = RingLease::create(
        {m.group, m.namespaceName, m.client, m.informers, m.retryPeriod, m.clock});
    if (!ring)
        return ring.error();
    std::shared_ptr<ShardGroup> group(new ShardGroup(std::move(config)));
    Private &d = *group->d;
    d.membership = std::move(*membership);
    d.ring = std::move(*ring);
    ShardGroup *self = group.get();
    connect(d.membership.get(), &Membership::membersChanged, self, [self] { self->feedGroup(); });
    connect(d.membership.get(), &Membership::acksChanged, self, [self] { self->feedGroup(); });
    connect(d.membership.get(), &Membership::termStarted, self, [self] {
        // A new term: others may have counted this member gone; start again like a joiner.
        self->resetGate();
        self->feedGroup();
    });
    connect(d.ring.get(), &RingLease::epochChanged, self, [self](const Epoch &epoch) {
        {
            std::lock_guard lock(self->d->mutex);
            self->d->gate->setEpoch(epoch);
        }
        emit self->ownershipChanged(); // owns() answers from the newest epoch
        self->maybeAck();
    });
    return group;
}

ShardGroup::ShardGroup(Config config) : d(std::make_unique<Private>())
{
    d->config = std::move(config);
    d->mailbox = Mailbox::create(this);
    // No incarnation before the first membership term: nothing listing this identity is served.
    d->gate = std::make_unique<ShardGate>(
        incarnation(d->config.membership.identity, QString()), d->config.virtualNodes);
}

ShardGroup::~ShardGroup()
{
    d->mailbox->close();
}

void ShardGroup::start()
{
    d->membership->start();
    d->ring->start();
}

QFuture<std::optional<Error>> ShardGroup::stop()
{
    bool idle = false;
    {
        std::lock_guard lock(d->mutex);
        if (d->leaving)
            return d->leaving->future();
        d->stopped = true;
        d->leaving = leaderelection::detail::startedPromise<std::optional<Error>>();
        idle = d->gate->idle();
    }
    d->ring->setLeader({});
    const auto future = d->leaving->future();
    // The Lease goes only once nothing of this member runs (others skip a deleted member at
    // once): now, or when finished() ends the last reconcile in flight.
    if (idle)
        leave();
    return future;
}

void ShardGroup::leave()
{
    if (d->leftCalled)
        return;
    d->leftCalled = true;
    whenFinished(d->membership->stop(), d->mailbox,
        [promise = d->leaving](
            const std::optional<Error> &error) { leaderelection::detail::fulfil(promise, error); });
}

void ShardGroup::setLeader(const leaderelection::LeaderToken &token)
{
    d->ring->setLeader(token);
}

bool ShardGroup::owns(const QString &shardKey) const
{
    std::lock_guard lock(d->mutex);
    return !d->stopped && d->gate->owns(shardKey);
}

ShardFilter::Admission ShardGroup::admit(const QString &shardKey)
{
    const bool inTerm = d->membership->term().isValid();
    std::lock_guard lock(d->mutex);
    if (d->stopped)
        return Admission::NotMine;
    if (inTerm && d->gate->mayStart(shardKey)) {
        d->gate->started(shardKey);
        return Admission::Start;
    }
    return d->gate->owns(shardKey) ? Admission::Wait : Admission::NotMine;
}

void ShardGroup::finished(const QString &shardKey)
{
    bool ack = false;
    bool leaveNow = false;
    {
        std::lock_guard lock(d->mutex);
        d->gate->finished(shardKey);
        ack = !d->stopped && d->gate->pendingAck().has_value();
        leaveNow = d->stopped && d->gate->idle();
    }
    if (ack) // the last lost key may have finished: ack on the group's thread
        d->mailbox->post([this] { maybeAck(); });
    if (leaveNow) // the last reconcile of a member that is leaving
        d->mailbox->post([this] { leave(); });
}

Membership &ShardGroup::membership()
{
    return *d->membership;
}

RingLease &ShardGroup::ring()
{
    return *d->ring;
}

quint64 ShardGroup::servingEpoch() const
{
    std::lock_guard lock(d->mutex);
    return d->gate->servingEpoch();
}

quint64 ShardGroup::targetEpoch() const
{
    std::lock_guard lock(d->mutex);
    return d->gate->targetEpoch();
}

quint64 ShardGroup::baseEpoch() const
{
    std::lock_guard lock(d->mutex);
    return d->gate->baseEpoch();
}

void ShardGroup::feedGroup()
{
    const QHash<QString, Ack> acks = d->membership->acks();
    const QStringList alive = d->membership->aliveMembers();
    d->ring->setMembers(alive, acks.values(), d->membership->goneMembers());
    const QStringList gone = d->membership->goneMembers();
    if (movesBase(d->mutex, *d->gate, [&](ShardGate &gate) { gate.setGroup(acks, alive, gone); }))
        emit ownershipChanged(); // gained keys may start now
    maybeAck();
}

void ShardGroup::maybeAck()
{
    if (d->acking || !d->membership->term().isValid())
        return;
    std::optional<quint64> epoch;
    Ack ack;
    quint64 generation = 0;
    {
        std::lock_guard lock(d->mutex);
        if (d->stopped)
            return;
        epoch = d->gate->pendingAck();
        if (epoch)
            ack = d->gate->ackOf(*epoch);
        generation = d->generation;
    }
    if (!epoch)
        return;
    d->acking = true;
    whenFinished(d->membership->acknowledge(ack), d->mailbox,
        [this, epoch = *epoch, generation](const std::optional<Error> &error) {
            d->acking = false;
            if (error) {
                qCWarning(lcShardGroup).noquote() << error->toString() << "(trying again)";
                QTimer::singleShot(std::chrono::duration_cast<std::chrono::milliseconds>(
                                       d->config.membership.retryPeriod),
                    this, [this] { maybeAck(); });
                return;
            }
            bool taken = false;
            // Its own ack can be the last one the barrier waited for: when the informer brought
            // the written ack before this answer, the barrier passes here, not in feedGroup().
            if (movesBase(d->mutex, *d->gate, [&](ShardGate &gate) {
                    taken = generation == d->generation && gate.acknowledged(epoch);
                }))
                emit ownershipChanged();
            if (!taken) { // a new term began meanwhile, or nothing new: look again
                feedGroup();
                return;
            }
            qCInfo(lcShardGroup).noquote() << QStringLiteral("%1 entered epoch %2 of group %3")
                                                  .arg(d->config.membership.identity)
                                                  .arg(epoch)
                                                  .arg(d->config.membership.group);
            emit acknowledged(epoch);
            feedGroup(); // the barrier may pass, and a newer epoch may be waiting
        });
}

void ShardGroup::resetGate()
{
    {
        std::lock_guard lock(d->mutex);
        // Keeps the reconciles in flight: they end before the first ack.
        d->gate->reset(d->membership->incarnation());
        ++d->generation;
        if (d->ring->epoch().number > 0)
            d->gate->setEpoch(d->ring->epoch());
    }
    emit ownershipChanged();
}

} // namespace qcm::sharding
