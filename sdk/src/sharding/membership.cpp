// SPDX-License-Identifier: Apache-2.0
#include <qcm/sharding/membership.h>

#include "../leaderelection/mailbox_p.h"

#include <qcm/client/restclient.h>
#include <qcm/leaderelection/leaderelector.h>
#include <qcm/leaderelection/leaselock.h>
#include <qcm/sharding/epoch.h>
#include <qcm/sharding/hashring.h>
#include <qcm/sharding/memberliveness.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QLoggingCategory>
#include <QtCore/QRegularExpression>
#include <QtCore/QSet>

namespace qcm::sharding {

Q_LOGGING_CATEGORY(lcMembership, "qcm.sharding.membership")

using namespace qcm::client;
using namespace qcm::leaderelection;
using leaderelection::detail::Mailbox;
using leaderelection::detail::whenFinished;

const QString Membership::GroupLabel = QStringLiteral("scale-out.qcm.io/group");

namespace {

constexpr qsizetype MaxGroupLength = 46;

// A finished future.
QFuture<std::optional<Error>> finished(std::optional<Error> value)
{
    QPromise<std::optional<Error>> promise;
    promise.start();
    promise.addResult(std::move(value));
    promise.finish();
    return promise.future();
}

// A write's outcome: nothing, or the API server's Status as an Error.
std::optional<Error> outcome(const Response &response, const QString &what)
{
    const ObjectResult result = RestClient::decodeObject(response);
    if (result)
        return std::nullopt;
    return Error {QStringLiteral("membership"), what, result.error().toString()};
}

} // namespace

struct Membership::Private
{
    Config config;
    QString leaseName;
    QString path; // of the own Lease
    std::shared_ptr<Mailbox> mailbox;
    std::unique_ptr<LeaderElector> elector;
    cache::SharedIndexInformer *informer = nullptr;
    std::shared_ptr<cache::HandlerRegistration> registration;
    std::unique_ptr<Timer> expiry;
    MemberLiveness liveness;
    QStringList alive;
    struct Ack
    {
        QString holder;
        std::optional<quint64> ack;
    };
    QHash<QString, Ack> acks; // by Lease name
    // By Lease name: expired, and a GET showed this holder and spec still.
    QHash<QString, MemberLiveness::Expired> confirmedGone;
    QSet<QString> confirming; // Lease names with a GET in flight
    QSet<QString> left; // holders whose Lease was deleted
    QStringList gone;
    quint64 ackWritten = 0;
    bool started = false;
    bool stopped = false; // stop() is final
};

Result<std::unique_ptr<Membership>> Membership::create(Config config, QObject *parent)
{
    static const QRegularExpression dnsLabel(QStringLiteral("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"));
    if (config.group.size() > MaxGroupLength || !dnsLabel.match(config.group).hasMatch())
        return Error {QStringLiteral("membership"), QStringLiteral("group"),
            QStringLiteral("'%1' is not a DNS label of at most %2 characters (lowercase letters, "
                           "digits and '-')")
                .arg(config.group)
                .arg(MaxGroupLength)};
    if (config.identity.isEmpty())
        return Error {
            QStringLiteral("membership"), QStringLiteral("identity"), QStringLiteral("empty")};
    if (!config.client || !config.informers)
        return Error {QStringLiteral("membership"), QStringLiteral("client"),
            QStringLiteral("a RestClient and a SharedInformerFactory are needed")};
    std::unique_ptr<Membership> membership(new Membership(std::move(config), parent));
    Private &d = *membership->d;
    auto lock = std::make_shared<LeaseLock>(d.config.namespaceName, d.leaseName, d.config.client,
        ResourceLockConfig {d.config.identity, nullptr});
    lock->setLabels({{GroupLabel, d.config.group}});
    LeaderElectionConfig elector;
    elector.lock = lock;
    elector.leaseDuration = d.config.leaseDuration;
    elector.renewDeadline = d.config.renewDeadline;
    elector.retryPeriod = d.config.retryPeriod;
    elector.mode = LeaderElectionConfig::Mode::Rejoin;
    elector.watchLock = false; // nobody else writes it; the group informer sees it anyway
    elector.name = QStringLiteral("scale-out membership %1").arg(d.config.group);
    elector.clock = d.config.clock;
    auto created = LeaderElector::create(elector);
    if (!created)
        return created.error();
    d.elector = std::move(*created);
    Membership *self = membership.get();
    connect(d.elector.get(), &LeaderElector::startedLeading, self, &Membership::termStarted);
    connect(d.elector.get(), &LeaderElector::stoppedLeading, self, &Membership::termEnded);
    return membership;
}

Membership::Membership(Config config, QObject *parent)
    : QObject(parent), d(std::make_unique<Private>())
{
    d->config = std::move(config);
    if (!d->config.clock)
        d->config.clock = Clock::system();
    d->leaseName = leaseName(d->config.group, d->config.identity);
    d->path = LeaseLock::Leases.collectionPath(d->config.namespaceName) + QLatin1Char('/')
        + d->leaseName;
    d->mailbox = Mailbox::create(this);
    d->expiry = d->config.clock->newTimer(
        [mailbox = d->mailbox, this] { mailbox->post([this] { refresh(); }); });
}

Membership::~Membership()
{
    d->mailbox->close();
    d->expiry->stop();
    if (d->informer && d->registration)
        d->informer->removeEventHandler(d->registration);
    if (d->elector)
        d->elector->stop();
}

QString Membership::leaseName(const QString &group, const QString &identity)
{
    return group + QLatin1Char('-')
        + QStringLiteral("%1").arg(hash64(identity), 16, 16, QLatin1Char('0'));
}

void Membership::start()
{
    if (d->started || d->stopped) {
        if (d->stopped)
            qCWarning(lcMembership)
                << "start() after stop() does nothing: a Membership leaves once";
        return;
    }
    d->started = true;
    d->informer = d->config.informers->informerFor(LeaseLock::Leases,
        {d->config.namespaceName, QStringLiteral("%1=%2").arg(GroupLabel, d->config.group),
            QString(), false});
    cache::ResourceEventHandler handler;
    handler.onAdd = [this](const Object &lease, bool) { onLease(lease); };
    handler.onUpdate = [this](const Object &, const Object &lease) { onLease(lease); };
    handler.onDelete = [this](const Object &lease, bool) { onLeaseDeleted(lease); };
    d->registration = d->informer->addEventHandler(this, handler);
    d->config.informers->start();
    d->elector->run();
}

QFuture<std::optional<Error>> Membership::stop()
{
    if (!d->started)
        return finished(std::nullopt);
    d->started = false;
    d->stopped = true;
    d->elector->stop(); // ends the term (termEnded) before it returns
    d->ackWritten = 0;
    return d->config.client->requestAsync("DELETE", d->path)
        .then(QtFuture::Launch::Sync, [name = d->leaseName](const Response &response) {
            if (response.code == 404)
                return std::optional<Error>();
            return outcome(response, QStringLiteral("delete lease %1").arg(name));
        });
}

leaderelection::LeaderToken Membership::term() const
{
    return d->elector->token();
}

QString Membership::identity() const
{
    return d->config.identity;
}

QStringList Membership::aliveMembers() const
{
    return d->alive;
}

QStringList Membership::goneMembers() const
{
    return d->gone;
}

QHash<QString, quint64> Membership::acks() const
{
    QHash<QString, quint64> result;
    for (const Private::Ack &ack : std::as_const(d->acks))
        if (ack.ack && !ack.holder.isEmpty())
            result.insert(ack.holder, std::max(result.value(ack.holder), *ack.ack));
    return result;
}

QFuture<std::optional<Error>> Membership::acknowledge(quint64 epoch)
{
    if (epoch <= d->ackWritten)
        return finished(std::nullopt); // acks only grow
    const QByteArray patch
        = QJsonDocument(QJsonObject {{QStringLiteral("metadata"),
                            QJsonObject {{QStringLiteral("annotations"),
                                QJsonObject {{AckAnnotation, QString::number(epoch)}}}}}})
              .toJson(QJsonDocument::Compact);
    auto promise = leaderelection::detail::startedPromise<std::optional<Error>>();
    whenFinished(
        d->config.client->requestAsync("PATCH", d->path, {}, patch, "application/merge-patch+json"),
        d->mailbox, [this, epoch, promise, name = d->leaseName](const Response &response) {
            std::optional<Error> error = outcome(
                response, QStringLiteral("write ack %1 on lease %2").arg(epoch).arg(name));
            if (!error)
                d->ackWritten = std::max(d->ackWritten, epoch);
            leaderelection::detail::fulfil(promise, std::move(error));
        });
    return promise->future();
}

void Membership::onLease(const Object &lease)
{
    const QJsonObject spec = lease.json().value(QLatin1String("spec")).toObject();
    const QString holder = spec.value(QLatin1String("holderIdentity")).toString();
    const QByteArray rawSpec = QJsonDocument(spec).toJson(QJsonDocument::Compact);
    // Gone was confirmed for what we saw then; a changed Lease is a live member again.
    const auto confirmed = d->confirmedGone.constFind(lease.name());
    if (confirmed != d->confirmedGone.cend()
        && (confirmed->rawSpec != rawSpec || confirmed->holder != holder))
        d->confirmedGone.remove(lease.name());
    d->left.remove(holder);
    d->liveness.observe(lease.name(), holder, rawSpec,
        std::chrono::seconds(spec.value(QLatin1String("leaseDurationSeconds")).toInt()),
        d->config.clock->now());
    Private::Ack ack {holder, std::nullopt};
    const QMap<QString, QString> annotations = lease.annotations();
    if (annotations.contains(AckAnnotation)) {
        const auto parsed = parseAck(annotations.value(AckAnnotation));
        if (parsed)
            ack.ack = *parsed;
        else
            qCWarning(lcMembership).noquote()
                << QStringLiteral("lease %1/%2: %3 (counted as no ack)")
                       .arg(lease.namespaceName(), lease.name(), parsed.error().toString());
    }
    const auto previous = d->acks.value(lease.name());
    d->acks.insert(lease.name(), ack);
    if (previous.ack != ack.ack || previous.holder != ack.holder)
        emit acksChanged();
    refresh();
}

void Membership::onLeaseDeleted(const Object &lease)
{
    d->liveness.forget(lease.name());
    d->confirmedGone.remove(lease.name());
    const QString holder = lease.json()
                               .value(QLatin1String("spec"))
                               .toObject()
                               .value(QLatin1String("holderIdentity"))
                               .toString();
    if (!holder.isEmpty())
        d->left.insert(holder);
    if (d->acks.remove(lease.name()))
        emit acksChanged();
    refresh();
}

void Membership::refresh()
{
    const TimePoint now = d->config.clock->now();
    const QStringList alive = d->liveness.alive(now);
    if (const auto next = d->liveness.nextExpiry(now))
        d->expiry->reset(*next);
    else
        d->expiry->stop();
    for (const MemberLiveness::Expired &e : d->liveness.expired(now))
        if (!d->confirmedGone.contains(e.lease) && !d->confirming.contains(e.lease))
            confirmExpiry(e.lease, e.holder, e.rawSpec);
    QStringList gone = d->left.values();
    for (const MemberLiveness::Expired &e : std::as_const(d->confirmedGone))
        gone.append(e.holder);
    for (const QString &holder : alive)
        gone.removeAll(holder); // another Lease of the same holder is fresh
    gone.sort();
    gone.erase(std::unique(gone.begin(), gone.end()), gone.end());
    if (alive != d->alive || gone != d->gone) {
        d->alive = alive;
        d->gone = gone;
        emit membersChanged(alive);
    }
}

void Membership::confirmExpiry(
    const QString &lease, const QString &holder, const QByteArray &rawSpec)
{
    d->confirming.insert(lease);
    const QString path
        = LeaseLock::Leases.collectionPath(d->config.namespaceName) + QLatin1Char('/') + lease;
    whenFinished(d->config.client->requestAsync("GET", path), d->mailbox,
        [this, lease, holder, rawSpec](const Response &response) {
            d->confirming.remove(lease);
            if (response.code == 404) { // deleted meanwhile: a leave
                d->liveness.forget(lease);
                d->left.insert(holder);
            } else if (const ObjectResult current = RestClient::decodeObject(response)) {
                const QJsonObject spec = current->json().value(QLatin1String("spec")).toObject();
                if (QJsonDocument(spec).toJson(QJsonDocument::Compact) == rawSpec)
                    d->confirmedGone.insert(lease, {lease, holder, rawSpec});
                else
                    onLease(*current); // renewed after all: the watch was behind
            } else {
                // Unknown: not gone. The next refresh (at the latest the next change) asks
                // again.
                qCInfo(lcMembership).noquote()
                    << QStringLiteral("cannot confirm that lease %1 expired: %2")
                           .arg(lease, current.error().toString());
                d->expiry->reset(d->config.clock->now() + d->config.retryPeriod);
                return;
            }
            refresh();
        });
}

} // namespace qcm::sharding
