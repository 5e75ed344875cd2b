// SPDX-License-Identifier: Apache-2.0
#include <qcm/sharding/membership.h>

#include "../leaderelection/mailbox_p.h"

#include <qcm/client/restclient.h>
#include <qcm/leaderelection/leaderelector.h>
#include <qcm/leaderelection/leaselock.h>
#include <qcm/sharding/epoch.h>
#include <qcm/sharding/hashring.h>
#include <qcm/sharding/memberliveness.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QLoggingCategory>
#include <QtCore/QRegularExpression>
#include <QtCore/QSet>
#include <QtCore/QTimer>

#include <mutex>

namespace qcm::sharding {

Q_LOGGING_CATEGORY(lcMembership, "qcm.sharding.membership")

using namespace qcm::client;
using namespace qcm::leaderelection;
using leaderelection::detail::Mailbox;
using leaderelection::detail::whenFinished;

const QString Membership::GroupLabel = QStringLiteral("scale-out.qcm.io/group");
const QString Membership::EmulationVersionAnnotation
    = QStringLiteral("scale-out.qcm.io/emulation-version");

namespace {

// A finished future.
QFuture<std::optional<Error>> finished(std::optional<Error> value)
{
    QPromise<std::optional<Error>> promise;
    promise.start();
    promise.addResult(std::move(value));
    promise.finish();
    return promise.future();
}

// Whether the cache's `seen` resourceVersion is later than `written` (an etcd revision; a
// version that is not a number counts as later).
bool later(const QString &seen, quint64 written)
{
    bool ok = false;
    const quint64 version = seen.toULongLong(&ok);
    return !ok || version > written;
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
    // The elector's lock: it is told of this member's own patches of the Lease (term id, ack),
    // so that the next renewal writes over them instead of failing with Conflict.
    std::shared_ptr<LeaseLock> lock;
    cache::SharedIndexInformer *informer = nullptr;
    std::shared_ptr<cache::HandlerRegistration> registration;
    std::unique_ptr<Timer> expiry;
    MemberLiveness liveness; // holders are incarnations
    QStringList alive;
    struct AckSeen
    {
        QString incarnation;
        std::optional<Ack> ack;
    };
    QHash<QString, AckSeen> acks; // by Lease name
    QHash<QString, QString> incarnations; // by Lease name: the one it showed last
    QHash<QString, std::pair<QString, QString>> versions; // by Lease name: incarnation, version
    // By Lease name: expired, and a GET showed this incarnation and spec still.
    QHash<QString, MemberLiveness::Expired> confirmedGone;
    QSet<QString> confirming; // Lease names with a GET in flight
    QSet<QString> left; // incarnations whose Lease was deleted, or whose term id was replaced
    QStringList gone;

    // This member's incarnation. The elector's term, and the term id once it is written.
    LeaderToken electorToken; // the main thread only
    QString term; // written on the Lease; empty: no membership term
    QString uid; // of the Lease the term id was written on
    // The resourceVersions the term id and the last ack were written at: what the cache shows
    // from before them lags, and says nothing about a loss.
    quint64 termVersion = 0;
    quint64 ackVersion = 0;
    quint64 generation = 0; // bumped when an incarnation begins or ends
    Ack ackWritten; // in this term; number 0: none
    bool ackInFlight = false;
    mutable std::mutex tokenMutex;
    LeaderToken token; // guarded by tokenMutex: valid only while `term` is written

    bool started = false;
    bool stopped = false; // stop() is final
};

Result<std::unique_ptr<Membership>> Membership::create(Config config, QObject *parent)
{
    if (!isValidGroup(config.group))
        return Error {QStringLiteral("membership"), QStringLiteral("group"),
            QStringLiteral("'%1' is not a DNS label of at most %2 characters (lowercase letters, "
                           "digits and '-')")
                .arg(config.group)
                .arg(MaxGroupLength)};
    if (config.identity.isEmpty() || config.identity.size() > Epoch::MaxIdentityLength)
        return Error {QStringLiteral("membership"), QStringLiteral("identity"),
            QStringLiteral("empty, or longer than the limit of %1 characters")
                .arg(Epoch::MaxIdentityLength)};
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
    d.lock = lock;
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
    connect(d.elector.get(), &LeaderElector::startedLeading, self,
        [self](const LeaderToken &token) { self->beginIncarnation(token); });
    connect(d.elector.get(), &LeaderElector::stoppedLeading, self, [self] {
        self->d->electorToken = {};
        self->endIncarnation();
    });
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

bool Membership::isValidGroup(const QString &group)
{
    static const QRegularExpression dnsLabel(QStringLiteral("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"));
    return group.size() <= MaxGroupLength && dnsLabel.match(group).hasMatch();
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
    return d->config.client->requestAsync("DELETE", d->path)
        .then(QtFuture::Launch::Sync, [name = d->leaseName](const Response &response) {
            if (response.code == 404)
                return std::optional<Error>();
            return outcome(response, QStringLiteral("delete lease %1").arg(name));
        });
}

leaderelection::LeaderToken Membership::term() const
{
    std::lock_guard lock(d->tokenMutex);
    return d->token;
}

QString Membership::incarnation() const
{
    return d->term.isEmpty() ? QString() : sharding::incarnation(d->config.identity, d->term);
}

void Membership::beginIncarnation(const LeaderToken &token)
{
    endIncarnation();
    d->electorToken = token;
    const QString term = newTerm();
    const quint64 generation = d->generation;
    // The term id and no ack, in one write: an ack of an earlier term is gone with it.
    QJsonObject annotations {{TermAnnotation, term}, {AckAnnotation, QJsonValue::Null}};
    if (!d->config.emulationVersion.isEmpty())
        annotations.insert(EmulationVersionAnnotation, d->config.emulationVersion);
    const QByteArray patch = QJsonDocument(
        QJsonObject {{QStringLiteral("metadata"),
            QJsonObject {{QStringLiteral("annotations"),
                annotations}}}}).toJson(QJsonDocument::Compact);
    whenFinished(d->lock->patch(patch, "application/merge-patch+json"), d->mailbox,
        [this, token, term, generation](const ObjectResult &lease) {
            if (generation != d->generation || !token.isValid())
                return; // the elector's term ended meanwhile
            if (!lease) {
                qCWarning(lcMembership).noquote()
                    << QStringLiteral("cannot write term id on lease %1: %2 (trying again)")
                           .arg(d->leaseName, lease.error().toString());
                QTimer::singleShot(
                    std::chrono::duration_cast<std::chrono::milliseconds>(d->config.retryPeriod),
                    this, [this, token, generation] {
                        if (generation == d->generation && token.isValid())
                            beginIncarnation(token);
                    });
                return;
            }
            d->term = term;
            d->uid = lease->uid();
            d->termVersion = lease->resourceVersion().toULongLong();
            d->ackVersion = d->termVersion;
            {
                std::lock_guard lock(d->tokenMutex);
                d->token = token;
            }
            qCInfo(lcMembership).noquote()
                << QStringLiteral("member %1 of group %2").arg(incarnation(), d->config.group);
            emit termStarted(token);
        });
}

void Membership::loseIncarnation(const QString &why)
{
    qCWarning(lcMembership).noquote() << why;
    const LeaderToken token = d->electorToken;
    endIncarnation();
    if (token.isValid()) // the elector still holds the Lease (or takes it back): a new one
        beginIncarnation(token);
}

void Membership::endIncarnation()
{
    ++d->generation;
    d->ackWritten = {};
    d->ackInFlight = false;
    const bool had = !d->term.isEmpty();
    d->term.clear();
    d->uid.clear();
    {
        std::lock_guard lock(d->tokenMutex);
        d->token = {};
    }
    if (had)
        emit termEnded();
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

QHash<QString, QString> Membership::emulationVersions() const
{
    QHash<QString, QString> result;
    for (const auto &[incarnation, version] : std::as_const(d->versions))
        result.insert(incarnation, version);
    return result;
}

QHash<QString, Ack> Membership::acks() const
{
    QHash<QString, Ack> result;
    for (const Private::AckSeen &seen : std::as_const(d->acks))
        if (seen.ack && !seen.incarnation.isEmpty()
            && seen.ack->number >= result.value(seen.incarnation).number)
            result.insert(seen.incarnation, *seen.ack);
    return result;
}

QFuture<std::optional<Error>> Membership::acknowledge(const Ack &epoch)
{
    if (d->term.isEmpty())
        return finished(Error {QStringLiteral("membership"), QStringLiteral("ack"),
            QStringLiteral("no membership term to acknowledge epoch %1 in").arg(epoch.number)});
    if (epoch.number <= d->ackWritten.number)
        return finished(std::nullopt); // acks only grow
    return writeAck(epoch);
}

QFuture<std::optional<Error>> Membership::writeAck(const Ack &epoch)
{
    // A JSON patch: the test makes the ack land only on the Lease of this term.
    const QString annotations = QStringLiteral("/metadata/annotations/");
    const auto pointer = [&](const QString &key) {
        return annotations + QString(key).replace(QLatin1Char('/'), QLatin1String("~1"));
    };
    const QByteArray patch
        = QJsonDocument(QJsonArray {QJsonObject {{QStringLiteral("op"), QStringLiteral("test")},
                                        {QStringLiteral("path"), pointer(TermAnnotation)},
                                        {QStringLiteral("value"), d->term}},
                            QJsonObject {{QStringLiteral("op"), QStringLiteral("add")},
                                {QStringLiteral("path"), pointer(AckAnnotation)},
                                {QStringLiteral("value"), epoch.toString()}}})
              .toJson(QJsonDocument::Compact);
    auto promise = leaderelection::detail::startedPromise<std::optional<Error>>();
    d->ackInFlight = true;
    whenFinished(d->lock->patch(patch, "application/json-patch+json"), d->mailbox,
        [this, epoch, promise, generation = d->generation, name = d->leaseName](
            const ObjectResult &lease) {
            std::optional<Error> error;
            if (!lease)
                error = Error {QStringLiteral("membership"),
                    QStringLiteral("write ack %1 on lease %2").arg(epoch.toString(), name),
                    lease.error().toString()};
            if (generation == d->generation) {
                d->ackInFlight = false;
                if (!error && epoch.number >= d->ackWritten.number) {
                    d->ackWritten = epoch;
                    d->ackVersion = lease->resourceVersion().toULongLong();
                }
            } else if (!error) {
                error = Error {QStringLiteral("membership"), QStringLiteral("ack"),
                    QStringLiteral("the term ended while ack %1 was written")
                        .arg(epoch.toString())};
            }
            leaderelection::detail::fulfil(promise, std::move(error));
        });
    return promise->future();
}

QString Membership::incarnationOf(const Object &lease) const
{
    const QString holder = lease.json()
                               .value(QLatin1String("spec"))
                               .toObject()
                               .value(QLatin1String("holderIdentity"))
                               .toString();
    const QMap<QString, QString> annotations = lease.annotations();
    const auto term = annotations.constFind(TermAnnotation);
    if (holder.isEmpty() || term == annotations.cend())
        return {};
    const auto parsed = parseTerm(*term);
    if (!parsed) {
        qCWarning(lcMembership).noquote()
            << QStringLiteral("lease %1/%2: %3 (no member)")
                   .arg(lease.namespaceName(), lease.name(), parsed.error().toString());
        return {};
    }
    return sharding::incarnation(holder, *parsed);
}

void Membership::checkOwnLease(const Object &lease, const std::optional<Ack> &ack)
{
    if (d->term.isEmpty())
        return; // no term yet
    const QString shown = lease.annotations().value(TermAnnotation);
    if (shown != d->term || lease.uid() != d->uid) {
        if (!later(lease.resourceVersion(), d->termVersion))
            return; // from before the term id was written: the cache lags
        // Someone wrote another term id, or the Lease was deleted and made again (a relist
        // may show that without the delete): others no longer see this incarnation.
        loseIncarnation(QStringLiteral("lease %1 shows term id '%2' (uid %3), not %4 (uid %5): "
                                       "this incarnation is over, drawing a new one")
                            .arg(d->leaseName, shown.left(64), lease.uid(), d->term, d->uid));
        return;
    }
    if (d->ackWritten.number > 0 && (!ack || ack->number < d->ackWritten.number) && !d->ackInFlight
        && later(lease.resourceVersion(), d->ackVersion)) {
        // Lost: someone wrote the Lease after the ack without it.
        qCInfo(lcMembership).noquote()
            << QStringLiteral("lease %1 shows ack %2, not %3: writing it again")
                   .arg(d->leaseName)
                   .arg(ack ? ack->toString() : QStringLiteral("none"), d->ackWritten.toString());
        whenFinished(writeAck(d->ackWritten), d->mailbox, [](const std::optional<Error> &error) {
            if (error)
                qCWarning(lcMembership).noquote() << error->toString();
        });
    }
}

void Membership::onLease(const Object &lease)
{
    const QJsonObject spec = lease.json().value(QLatin1String("spec")).toObject();
    const QString member = incarnationOf(lease);
    const QByteArray rawSpec = QJsonDocument(spec).toJson(QJsonDocument::Compact);
    const QString before = d->incarnations.value(lease.name());
    if (!before.isEmpty() && before != member)
        d->left.insert(before); // its term id was replaced: that term is over
    if (member.isEmpty())
        d->incarnations.remove(lease.name());
    else
        d->incarnations.insert(lease.name(), member);
    // Gone was confirmed for what we saw then; a changed Lease is a live member again.
    const auto confirmed = d->confirmedGone.constFind(lease.name());
    if (confirmed != d->confirmedGone.cend()
        && (confirmed->rawSpec != rawSpec || confirmed->holder != member))
        d->confirmedGone.remove(lease.name());
    Private::AckSeen ack {member, std::nullopt};
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
    const auto version = annotations.constFind(EmulationVersionAnnotation);
    if (member.isEmpty() || version == annotations.cend()) {
        d->versions.remove(lease.name());
    } else if (version->size() > MaxEmulationVersionLength) {
        qCWarning(lcMembership).noquote()
            << QStringLiteral("lease %1/%2: annotation %3 is longer than %4 characters (ignored)")
                   .arg(lease.namespaceName(), lease.name(), EmulationVersionAnnotation)
                   .arg(MaxEmulationVersionLength);
        d->versions.remove(lease.name());
    } else {
        d->versions.insert(lease.name(), {member, *version});
    }
    if (member.isEmpty()) { // no member (yet)
        d->liveness.forget(lease.name());
    } else {
        d->left.remove(member);
        d->liveness.observe(lease.name(), member, rawSpec,
            std::chrono::seconds(spec.value(QLatin1String("leaseDurationSeconds")).toInt()),
            d->config.clock->now());
    }
    const auto previous = d->acks.value(lease.name());
    if (member.isEmpty())
        d->acks.remove(lease.name());
    else
        d->acks.insert(lease.name(), ack);
    if (previous.ack != ack.ack || previous.incarnation != ack.incarnation)
        emit acksChanged();
    if (lease.name() == d->leaseName)
        checkOwnLease(lease, ack.ack);
    refresh();
}

void Membership::onLeaseDeleted(const Object &lease)
{
    d->liveness.forget(lease.name());
    d->confirmedGone.remove(lease.name());
    d->versions.remove(lease.name());
    for (const QString &member : {incarnationOf(lease), d->incarnations.take(lease.name())})
        if (!member.isEmpty())
            d->left.insert(member);
    if (d->acks.remove(lease.name()))
        emit acksChanged();
    if (lease.name() == d->leaseName && !d->term.isEmpty() && lease.uid() == d->uid) {
        // Deleted by someone else: the others count this incarnation gone.
        loseIncarnation(QStringLiteral("lease %1 was deleted: this incarnation is over, drawing "
                                       "a new one once the Lease is back")
                            .arg(d->leaseName));
    }
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
                if (QJsonDocument(spec).toJson(QJsonDocument::Compact) == rawSpec
                    && incarnationOf(*current) == holder)
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
