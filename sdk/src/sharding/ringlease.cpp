// SPDX-License-Identifier: Apache-2.0
#include <qcm/sharding/ringlease.h>

#include "../leaderelection/mailbox_p.h"

#include <qcm/client/restclient.h>
#include <qcm/leaderelection/leaselock.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QLoggingCategory>
#include <QtCore/QSet>

namespace qcm::sharding {

Q_LOGGING_CATEGORY(lcRing, "qcm.sharding.ring")

using namespace qcm::client;
using leaderelection::LeaseLock;
using leaderelection::detail::Mailbox;
using leaderelection::detail::whenFinished;

struct RingLease::Private
{
    Config config;
    QString name;
    std::shared_ptr<Mailbox> mailbox;
    cache::SharedIndexInformer *informer = nullptr;
    std::shared_ptr<cache::HandlerRegistration> registration;
    std::unique_ptr<Timer> timer;
    Epoch epoch;
    std::optional<Object> lease; // as last read
    leaderelection::LeaderToken token;
    QStringList alive;
    QSet<QString> gone;
    QList<Ack> acks;
    std::optional<TimePoint> differingSince;
    bool writing = false;
    bool started = false;
};

Result<std::unique_ptr<RingLease>> RingLease::create(Config config, QObject *parent)
{
    if (!config.client || !config.informers)
        return Error {QStringLiteral("ring lease"), QStringLiteral("client"),
            QStringLiteral("a RestClient and a SharedInformerFactory are needed")};
    if (config.group.isEmpty())
        return Error {
            QStringLiteral("ring lease"), QStringLiteral("group"), QStringLiteral("empty")};
    return std::unique_ptr<RingLease>(new RingLease(std::move(config), parent));
}

RingLease::RingLease(Config config, QObject *parent)
    : QObject(parent), d(std::make_unique<Private>())
{
    d->config = std::move(config);
    if (!d->config.clock)
        d->config.clock = Clock::system();
    d->name = leaseName(d->config.group);
    d->mailbox = Mailbox::create(this);
    d->timer = d->config.clock->newTimer(
        [mailbox = d->mailbox, this] { mailbox->post([this] { evaluate(); }); });
}

RingLease::~RingLease()
{
    d->mailbox->close();
    d->timer->stop();
    if (d->informer && d->registration)
        d->informer->removeEventHandler(d->registration);
}

QString RingLease::leaseName(const QString &group)
{
    return group + QStringLiteral("-ring");
}

void RingLease::start()
{
    if (d->started)
        return;
    d->started = true;
    d->informer = d->config.informers->informerFor(LeaseLock::Leases,
        {d->config.namespaceName, QString(), QStringLiteral("metadata.name=") + d->name, false});
    cache::ResourceEventHandler handler;
    handler.onAdd = [this](const Object &lease, bool) { onLease(lease); };
    handler.onUpdate = [this](const Object &, const Object &lease) { onLease(lease); };
    handler.onDelete = [this](const Object &, bool) {
        d->lease.reset(); // the next write creates it again; the epoch read stays
        evaluate();
    };
    d->registration = d->informer->addEventHandler(this, handler);
    d->config.informers->start();
}

Epoch RingLease::epoch() const
{
    return d->epoch;
}

void RingLease::setLeader(const leaderelection::LeaderToken &token)
{
    d->token = token;
    evaluate();
}

void RingLease::setMembers(
    const QStringList &alive, const QList<Ack> &acks, const QStringList &gone)
{
    const QStringList members = Epoch::make(0, alive).members;
    if (members != d->alive)
        d->differingSince.reset(); // a new set gets its own dwell: a flap is not written
    d->alive = members;
    d->gone = QSet<QString>(gone.cbegin(), gone.cend());
    d->acks = acks;
    evaluate();
}

bool RingLease::onlyGoneLeft() const
{
    for (const QString &m : std::as_const(d->alive))
        if (!d->epoch.members.contains(m))
            return false; // a join: its dwell absorbs a flap
    for (const QString &m : std::as_const(d->epoch.members))
        if (!d->alive.contains(m) && !d->gone.contains(m))
            return false; // not alive, but not known gone either: maybe a renewal seen late
    return true;
}

bool RingLease::unread() const
{
    for (const Ack &ack : std::as_const(d->acks))
        if (ack.number > d->epoch.number
            || (ack.number == d->epoch.number && ack.epoch != d->epoch.id))
            return true;
    return false;
}

void RingLease::onLease(const Object &lease)
{
    d->lease = lease;
    const QMap<QString, QString> annotations = lease.annotations();
    if (annotations.contains(EpochAnnotation)) {
        const auto parsed = Epoch::fromJson(annotations.value(EpochAnnotation).toUtf8());
        if (!parsed)
            qCWarning(lcRing).noquote()
                << QStringLiteral("lease %1/%2: %3 (ignored)")
                       .arg(lease.namespaceName(), lease.name(), parsed.error().toString());
        else if (parsed->number > d->epoch.number) {
            d->epoch = *parsed;
            emit epochChanged(d->epoch);
        } else if (parsed->number == d->epoch.number && parsed->id != d->epoch.id)
            qCWarning(lcRing).noquote()
                << QStringLiteral("lease %1/%2: epoch %3 written again with another id (%4, "
                                  "read %5 before); ignored until a newer one")
                       .arg(lease.namespaceName(), lease.name())
                       .arg(parsed->number)
                       .arg(parsed->id, d->epoch.id);
    }
    evaluate();
}

void RingLease::evaluate()
{
    if (d->alive.isEmpty() || (d->alive == d->epoch.members && !unread())) {
        d->differingSince.reset();
        d->timer->stop();
        return;
    }
    // The dwell runs on every member, leader or not: a member that becomes leader after a
    // difference has lasted the dwell writes at once, instead of a dwell after its election.
    const TimePoint now = d->config.clock->now();
    if (!d->differingSince)
        d->differingSince = now;
    if (!d->token.isValid()) {
        d->timer->stop();
        return;
    }
    // Members known gone (deleted, or expired and confirmed by a fresh read) cannot come back
    // under the same incarnation: their departure needs no dwell, and their keys move at once.
    if (now - *d->differingSince < d->config.dwell && !onlyGoneLeft()) {
        d->timer->reset(*d->differingSince + d->config.dwell);
        return;
    }
    if (!d->writing)
        write();
}

void RingLease::write()
{
    quint64 number = d->epoch.number;
    for (const Ack &ack : std::as_const(d->acks))
        number = std::max(number, ack.number);
    ++number; // past the epoch read and every ack
    if (number > Epoch::MaxNumber) {
        qCWarning(lcRing).noquote()
            << QStringLiteral("group %1: epoch %2 would pass the limit of 2^53; not written")
                   .arg(d->config.group)
                   .arg(number);
        return;
    }
    const Epoch next = Epoch::make(number, d->alive, newTerm(), d->epoch.id);
    Object lease;
    QByteArray verb;
    QString path = LeaseLock::Leases.collectionPath(d->config.namespaceName);
    if (d->lease) {
        lease = *d->lease; // its resourceVersion makes the write conditional
        verb = "PUT";
        path += QLatin1Char('/') + d->name;
    } else {
        lease.setApiVersion(QStringLiteral("coordination.k8s.io/v1"));
        lease.setKind(QStringLiteral("Lease"));
        lease.setNamespaceName(d->config.namespaceName);
        lease.setName(d->name);
        verb = "POST";
    }
    QMap<QString, QString> annotations = lease.annotations();
    annotations.insert(EpochAnnotation, QString::fromUtf8(next.toJson()));
    lease.setAnnotations(annotations);
    if (!d->token.isValid()) // the term may have ended since evaluate()
        return;
    d->writing = true;
    whenFinished(
        d->config.client->requestAsync(verb, path, {},
            QJsonDocument(lease.json()).toJson(QJsonDocument::Compact), "application/json"),
        d->mailbox, [this, next, previous = d->epoch](const Response &response) {
            d->writing = false;
            const ObjectResult written = RestClient::decodeObject(response);
            if (written) {
                qCInfo(lcRing).noquote() << QStringLiteral("wrote epoch %1 of group %2: %3")
                                                .arg(next.number)
                                                .arg(d->config.group, next.members.join(u','));
                d->differingSince.reset(); // a new epoch: a new difference starts from here
                emit epochWritten(next, previous);
                onLease(*written);
                return;
            }
            // A conflict (another writer, or a stale read) or a failure: the informer brings
            // the Lease as it is; try again after the dwell.
            qCInfo(lcRing).noquote() << QStringLiteral("writing epoch %1 of group %2 failed: %3")
                                            .arg(next.number)
                                            .arg(d->config.group, written.error().toString());
            d->timer->reset(d->config.clock->now() + d->config.dwell);
        });
}

} // namespace qcm::sharding
