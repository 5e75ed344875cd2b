// SPDX-License-Identifier: Apache-2.0
#include <qcm/leaderelection/leaderelector.h>
#include <qcm/metrics/registry.h>

#include "leaderelector_p.h"
#include "logging_p.h"

#include <QtCore/QPointer>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>

namespace qcm::leaderelection {

Q_LOGGING_CATEGORY(lcLeaderElection, "qcm.leaderelection")

using namespace std::chrono;

namespace {

void flushAndExit(int code)
{
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(code);
}

} // namespace

Result<std::unique_ptr<LeaderElector>> LeaderElector::create(
    LeaderElectionConfig config, QObject *parent)
{
    if (auto error = config.validate())
        return *error;
    return std::unique_ptr<LeaderElector>(new LeaderElector(std::move(config), parent));
}

LeaderElector::LeaderElector(LeaderElectionConfig config, QObject *parent)
    : QObject(parent), d(std::make_unique<Private>())
{
    qRegisterMetaType<LeaderToken>();
    d->config = std::move(config);
    d->clock = d->config.clock ? d->config.clock : Clock::system();
    if (!d->config.exitProcess)
        d->config.exitProcess = flushAndExit;
    d->mailbox = detail::Mailbox::create(this);
    auto mailbox = d->mailbox;
    d->retryTimer
        = d->clock->newTimer([mailbox, this] { mailbox->post([this] { onRetryTimer(); }); });
    d->deadlineTimer
        = d->clock->newTimer([mailbox, this] { mailbox->post([this] { onDeadline(); }); });
    d->attemptTimer
        = d->clock->newTimer([mailbox, this] { mailbox->post([this] { onAttemptTimeout(); }); });
    if (d->config.metrics) {
        const metrics::Labels labels {{QStringLiteral("name"), d->config.name}};
        d->masterStatus
            = &d->config.metrics
                   ->add<metrics::Gauge>(QStringLiteral("leader_election_master_status"),
                       QStringLiteral("Gauge of if the reporting system is master of "
                                      "the relevant lease, 0 indicates backup, 1 "
                                      "indicates master. 'name' is the string used to "
                                      "identify the lease. Please make sure to group "
                                      "by name."))
                   .add(labels);
        d->slowpath = &d->config.metrics
                           ->add<metrics::Counter>(QStringLiteral("leader_election_slowpath_total"),
                               QStringLiteral("Total number of slow path exercised in renewing "
                                              "leader leases. 'name' is the string used to "
                                              "identify the lease. Please make sure to group by "
                                              "name."))
                           .add(labels);
        d->masterStatus->set(0); // client-go's leaderOff at construction
    }
    connect(d->config.lock.get(), &ResourceLock::changed, this, &LeaderElector::onLockChanged);
}

LeaderElector::~LeaderElector()
{
    d->mailbox->close();
    d->retryTimer.reset();
    d->deadlineTimer.reset();
    d->attemptTimer.reset();
    d->token.cancel();
    if (isRunning())
        d->config.lock->setWatching(false);
    if (d->masterStatus)
        d->masterStatus->set(0);
}

const LeaderElectionConfig &LeaderElector::config() const
{
    return d->config;
}

QString LeaderElector::identity() const
{
    return d->config.lock->identity();
}

bool LeaderElector::isRunning() const
{
    return d->state != Private::State::Idle && d->state != Private::State::Stopped;
}

bool LeaderElector::isLeader() const
{
    std::lock_guard lock(d->mutex);
    return d->token.isValid();
}

LeaderToken LeaderElector::token() const
{
    std::lock_guard lock(d->mutex);
    return d->token;
}

QString LeaderElector::leader() const
{
    std::lock_guard lock(d->mutex);
    return d->observedRecord.holderIdentity;
}

std::optional<Error> LeaderElector::check(Duration maxTolerableExpiredLease) const
{
    std::lock_guard lock(d->mutex);
    if (d->observedRecord.holderIdentity != d->config.lock->identity())
        return std::nullopt; // a hot standby
    // We should have renewed, or exited, long ago: conditions like a deadlock prevent it.
    if (d->clock->now() - d->observedTime > d->config.leaseDuration + maxTolerableExpiredLease)
        return Error {QString(), QString(),
            QStringLiteral("failed election to renew leadership on lease %1").arg(d->config.name)};
    return std::nullopt;
}

void LeaderElector::run()
{
    if (isRunning()) {
        if (d->state == Private::State::Ending)
            qCWarning(lcLeaderElection).noquote()
                << "run() while the run is ending does nothing: call it after finished()";
        return;
    }
    d->setState(Private::State::Candidate);
    d->stopRequested = false;
    d->lost = false;
    qCInfo(lcLeaderElection).noquote() << "attempting to acquire leader lease" << d->desc();
    if (d->config.watchLock)
        d->config.lock->setWatching(true);
    startAttempt();
}

void LeaderElector::stop()
{
    switch (d->state) {
    case Private::State::Idle:
    case Private::State::Stopped:
        return;
    case Private::State::Ending: // a stoppedLeading() slot: the run finishes after it
    case Private::State::Releasing:
        d->stopRequested = true;
        return;
    case Private::State::Candidate:
        d->stopRequested = true;
        ++d->attempt;
        d->attemptInFlight = false;
        d->hintPending = false;
        d->retryTimer->stop();
        d->attemptTimer->stop();
        d->setState(Private::State::Ending);
        // client-go calls OnStoppedLeading even if it never led.
        if (emitChecked([this] { emit stoppedLeading(); }))
            finishRun();
        return;
    case Private::State::Leading:
        d->stopRequested = true;
        qCInfo(lcLeaderElection).noquote() << "stopping: giving up lease" << d->desc();
        endTerm();
        if (emitChecked([this] { emit stoppedLeading(); }))
            afterTerm();
        return;
    }
}

// --- observed state ------------------------------------------------------------------------

// Emits newLeader() if the holder changed. False when a slot changed the elector's course.
bool LeaderElector::maybeReportTransition()
{
    const QString holder = leader();
    if (holder == d->reportedLeader)
        return true;
    d->reportedLeader = holder;
    return emitChecked([this, holder] { emit newLeader(holder); });
}

// Slots run synchronously and may call stop() or run(), or delete the elector. True when
// none of that happened, so the caller may go on; otherwise it must return at once (and not
// touch `d` at all if the elector is gone).
bool LeaderElector::emitChecked(const std::function<void()> &emitSignal)
{
    const QPointer<LeaderElector> self(this);
    const quint64 epoch = d->epoch;
    emitSignal();
    return self && d->epoch == epoch;
}

void LeaderElector::setObservedRecord(const LeaderElectionRecord &record)
{
    std::lock_guard lock(d->mutex);
    d->observedRecord = record;
    d->observedTime = d->clock->now();
}

bool LeaderElector::isLeaseValid(TimePoint now) const
{
    std::lock_guard lock(d->mutex);
    return d->observedTime + seconds(d->observedRecord.leaseDurationSeconds) > now;
}

bool LeaderElector::observedHolderIsMe() const
{
    std::lock_guard lock(d->mutex);
    return d->observedRecord.holderIdentity == d->config.lock->identity();
}

} // namespace qcm::leaderelection
