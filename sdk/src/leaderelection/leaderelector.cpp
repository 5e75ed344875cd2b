#include <qcm/leaderelection/leaderelector.h>
#include <qcm/metrics/registry.h>

#include "leaderelector_p.h"
#include "logging_p.h"

#include <QtCore/QPointer>
#include <QtCore/QRandomGenerator>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>

namespace qcm::leaderelection {

Q_LOGGING_CATEGORY(lcLeaderElection, "qcm.leaderelection")

using namespace std::chrono;

namespace {

qint64 toMs(Duration d)
{
    return duration_cast<milliseconds>(d).count();
}

void flushAndExit(int code)
{
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(code);
}

} // namespace

std::optional<Error> LeaderElectionConfig::validate() const
{
    auto error = [](const char *field, const QString &reason) {
        return Error {QString(), QString::fromLatin1(field), reason};
    };
    // client-go's NewLeaderElector, in its order.
    if (leaseDuration <= renewDeadline)
        return error(
            "leaseDuration", QStringLiteral("leaseDuration must be greater than renewDeadline"));
    if (renewDeadline <= Duration(qint64(JitterFactor * double(retryPeriod.count()))))
        return error("renewDeadline",
            QStringLiteral("renewDeadline must be greater than retryPeriod*JitterFactor"));
    for (const auto &[field, value] : {std::pair {"leaseDuration", leaseDuration},
             std::pair {"renewDeadline", renewDeadline}, std::pair {"retryPeriod", retryPeriod}}) {
        if (value < seconds(1))
            return error(field, QStringLiteral("%1 must be at least 1s").arg(QLatin1String(field)));
    }
    if (leaseDuration % seconds(1) != Duration::zero())
        return error("leaseDuration",
            QStringLiteral("leaseDuration must be whole seconds (the lock records seconds)"));
    if (!lock)
        return error("lock", QStringLiteral("Lock must not be nil."));
    if (lock->identity().isEmpty())
        return error("lock", QStringLiteral("Lock identity is empty"));
    return std::nullopt;
}

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

// --- acquire and renew ---------------------------------------------------------------------

void LeaderElector::startAttempt()
{
    if (d->attemptInFlight) {
        d->hintPending = true;
        return;
    }
    d->retryTimer->stop();
    d->attemptInFlight = true;
    d->hintPending = false;
    const quint64 attempt = ++d->attempt;
    tryAcquireOrRenew(attempt, [this, attempt](bool succeeded) {
        if (attempt != d->attempt)
            return;
        d->attemptInFlight = false;
        d->attemptTimer->stop();
        onAttemptDone(succeeded);
    });
    if (d->state == Private::State::Leading && d->renewCycleDue) {
        d->renewCycleStart = d->attemptStart;
        d->renewCycleDue = false;
    }
    // The attempt's own bound, as client-go's context timeout: a request that hangs (a client
    // without a timeout, a dead connection) must not stop the elector from trying again.
    d->attemptTimer->reset(d->attemptStart + d->config.renewDeadline);
}

void LeaderElector::tryAcquireOrRenew(quint64 attempt, std::function<void(bool)> done)
{
    const TimePoint now = d->clock->now();
    d->attemptStart = now;
    const QDateTime wallNow = QDateTime::currentDateTimeUtc();
    LeaderElectionRecord record;
    record.holderIdentity = d->config.lock->identity();
    record.leaseDurationSeconds = int(duration_cast<seconds>(d->config.leaseDuration).count());
    record.renewTime = wallNow;
    record.acquireTime = wallNow;

    // 1. Fast path for the leader to update optimistically, assuming that the record
    // observed last time is the current version.
    if (observedHolderIsMe() && isLeaseValid(now)) {
        {
            std::lock_guard lock(d->mutex);
            record.acquireTime = d->observedRecord.acquireTime;
            record.leaderTransitions = d->observedRecord.leaderTransitions;
        }
        detail::whenFinished(d->config.lock->update(record), d->mailbox,
            [this, attempt, now, record, done](const WriteResult &error) {
                if (attempt != d->attempt)
                    return;
                if (!error) {
                    setObservedRecord(record);
                    done(true);
                    return;
                }
                qCInfo(lcLeaderElection).noquote()
                    << "Failed to update lock optimistically:" << error->toString()
                    << "- falling back to slow path";
                slowPath(attempt, now, record, done);
            });
        return;
    }
    slowPath(attempt, now, record, std::move(done));
}

void LeaderElector::slowPath(
    quint64 attempt, TimePoint now, LeaderElectionRecord record, std::function<void(bool)> done)
{
    // 2. Obtain or create the record.
    detail::whenFinished(d->config.lock->get(), d->mailbox,
        [this, attempt, now, record, done](const GetResult &old) mutable {
            if (attempt != d->attempt)
                return;
            if (!old) {
                if (!old.error().isNotFound()) {
                    qCWarning(lcLeaderElection).noquote()
                        << "error retrieving resource lock" << d->desc() << old.error().toString();
                    done(false);
                    return;
                }
                record.acquireTime = record.renewTime;
                record.leaderTransitions = 0;
                detail::whenFinished(d->config.lock->create(record), d->mailbox,
                    [this, attempt, record, done](const WriteResult &error) {
                        if (attempt != d->attempt)
                            return;
                        if (error) {
                            qCWarning(lcLeaderElection).noquote()
                                << "error initially creating leader election record:"
                                << error->toString();
                            done(false);
                            return;
                        }
                        setObservedRecord(record);
                        done(true);
                    });
                return;
            }

            // 3. Record obtained: check the identity and the time.
            if (d->observedRawRecord != old->raw) {
                setObservedRecord(old->record);
                d->observedRawRecord = old->raw;
            }
            if (!old->record.holderIdentity.isEmpty() && isLeaseValid(now)
                && !observedHolderIsMe()) {
                qCDebug(lcLeaderElection).noquote()
                    << "lock is held by" << old->record.holderIdentity << "and has not yet expired";
                done(false);
                return;
            }

            // 4. We're going to try to update: correct the record first.
            if (observedHolderIsMe()) {
                record.acquireTime = old->record.acquireTime;
                record.leaderTransitions = old->record.leaderTransitions;
                if (d->slowpath)
                    d->slowpath->increment();
            } else {
                record.acquireTime = record.renewTime;
                record.leaderTransitions = old->record.leaderTransitions + 1;
            }
            detail::whenFinished(d->config.lock->update(record), d->mailbox,
                [this, attempt, record, done](const WriteResult &error) {
                    if (attempt != d->attempt)
                        return;
                    if (error) {
                        qCInfo(lcLeaderElection).noquote()
                            << "Failed to update lock:" << error->toString();
                        done(false);
                        return;
                    }
                    setObservedRecord(record);
                    done(true);
                });
        });
}

void LeaderElector::onAttemptDone(bool succeeded)
{
    switch (d->state) {
    case Private::State::Candidate:
        if (!maybeReportTransition())
            return; // a newLeader() slot stopped, restarted or deleted the elector
        if (succeeded && d->clock->now() >= d->attemptStart + d->config.renewDeadline) {
            // The reply came after the term it would start was already over (the process was
            // paused with the request in flight): never start leading on an expired token.
            // Try again at once; the resourceVersion makes the retry safe.
            qCWarning(lcLeaderElection).noquote()
                << "acquired lease" << d->desc() << "but saw the reply"
                << toMs(d->clock->now() - d->attemptStart)
                << "ms after the attempt started, past renewDeadline: trying again";
            startAttempt();
            return;
        }
        if (succeeded) {
            becomeLeader();
        } else {
            qCDebug(lcLeaderElection).noquote() << "failed to acquire lease" << d->desc();
            scheduleAcquire();
        }
        return;
    case Private::State::Leading: {
        const TimePoint now = d->clock->now();
        if (now >= d->leaseDeadline) {
            onDeadline();
            return;
        }
        if (!maybeReportTransition())
            return;
        if (succeeded) {
            // The term now lasts renewDeadline from the moment this renewal was sent: others
            // saw it no earlier than that. It started after the previous success, so this
            // deadline is later than the one just checked.
            d->leaseDeadline = d->attemptStart + d->config.renewDeadline;
            d->token.extend(d->leaseDeadline);
            d->deadlineTimer->reset(d->leaseDeadline);
            qCDebug(lcLeaderElection).noquote() << "successfully renewed lease" << d->desc();
            // client-go's wait.Until: the next renewal retryPeriod after this one completed,
            // and it starts a new cycle.
            d->retryTimer->reset(now + d->config.retryPeriod);
            d->renewCycleDue = true;
            return;
        }
        if (!observedHolderIsMe()) {
            stepDown(QStringLiteral("failed to renew lease %1: the lock is held by %2")
                         .arg(d->desc(), leader()));
            return;
        }
        // client-go's wait.PollUntilContextTimeout polls on a ticker of retryPeriod started
        // with the cycle's first try (not sliding): the next try comes on the first tick after
        // this one started, or at once if that tick came while it ran (Go keeps one tick).
        const auto ticks = (d->attemptStart - d->renewCycleStart) / d->config.retryPeriod + 1;
        const TimePoint tick = d->renewCycleStart + ticks * d->config.retryPeriod;
        d->retryTimer->reset(std::max(now, tick));
        return;
    }
    case Private::State::Idle:
    case Private::State::Ending:
    case Private::State::Releasing:
    case Private::State::Stopped:
        return;
    }
}

void LeaderElector::becomeLeader()
{
    d->setState(Private::State::Leading);
    d->leaseDeadline = d->attemptStart + d->config.renewDeadline;
    LeaderToken token(d->clock, d->leaseDeadline);
    {
        std::lock_guard lock(d->mutex);
        d->token = token;
    }
    d->config.lock->recordEvent(QStringLiteral("became leader"));
    if (d->masterStatus)
        d->masterStatus->set(1);
    qCInfo(lcLeaderElection).noquote() << "successfully acquired lease" << d->desc();
    d->deadlineTimer->reset(d->leaseDeadline);
    d->renewCycleDue = true;
    if (!emitChecked([this, token] { emit startedLeading(token); }))
        return; // a slot stopped or deleted the elector
    // client-go's renew loop starts with a renewal.
    if (!d->attemptInFlight)
        startAttempt();
}

void LeaderElector::scheduleAcquire()
{
    if (d->hintPending) {
        d->hintPending = false;
        d->retryTimer->reset(d->clock->now());
        return;
    }
    const TimePoint now = d->clock->now();
    // wait.JitterUntil(retryPeriod, JitterFactor): retryPeriod + [0, 1.2) × retryPeriod.
    const auto jitter = Duration(qint64(QRandomGenerator::global()->generateDouble() * JitterFactor
        * double(d->config.retryPeriod.count())));
    TimePoint next = now + d->config.retryPeriod + jitter;
    if (d->config.watchLock) {
        std::lock_guard lock(d->mutex);
        if (!d->observedRecord.holderIdentity.isEmpty()
            && d->observedRecord.holderIdentity != d->config.lock->identity()) {
            const TimePoint expiry = d->observedTime
                + seconds(d->observedRecord.leaseDurationSeconds) + milliseconds(1);
            if (expiry > now && expiry < next)
                next = expiry;
        }
    }
    d->retryTimer->reset(next);
}

void LeaderElector::onRetryTimer()
{
    if (d->state == Private::State::Leading && d->clock->now() >= d->leaseDeadline) {
        onDeadline(); // never renew a term that is already over (say, after a pause)
        return;
    }
    switch (d->state) {
    case Private::State::Candidate:
    case Private::State::Leading:
        startAttempt();
        return;
    case Private::State::Releasing:
        // The release ran out of time (renewDeadline); give up on it.
        qCWarning(lcLeaderElection).noquote()
            << "Failed to release lock" << d->desc() << "within renewDeadline";
        finishRelease(false);
        return;
    case Private::State::Idle:
    case Private::State::Ending:
    case Private::State::Stopped:
        return;
    }
}

void LeaderElector::onDeadline()
{
    if (d->state != Private::State::Leading)
        return;
    const TimePoint now = d->clock->now();
    if (now < d->leaseDeadline) {
        d->deadlineTimer->reset(d->leaseDeadline);
        return;
    }
    stepDown(QStringLiteral("failed to renew lease %1: no renewal succeeded for %2 ms, "
                            "renewDeadline is %3 ms")
                 .arg(d->desc())
                 .arg(toMs(now - (d->leaseDeadline - d->config.renewDeadline)))
                 .arg(toMs(d->config.renewDeadline)));
}

void LeaderElector::onAttemptTimeout()
{
    if (!d->attemptInFlight)
        return;
    const TimePoint now = d->clock->now();
    const TimePoint bound = d->attemptStart + d->config.renewDeadline;
    if (now < bound) {
        d->attemptTimer->reset(bound); // fired for an earlier attempt
        return;
    }
    qCWarning(lcLeaderElection).noquote()
        << "no reply from lock" << d->desc() << "within renewDeadline: abandoning the attempt";
    ++d->attempt; // its late results are ignored
    d->attemptInFlight = false;
    switch (d->state) {
    case Private::State::Leading:
        // The term's deadline is never later than this attempt's bound.
        if (now >= d->leaseDeadline) {
            onDeadline();
            return;
        }
        startAttempt();
        return;
    case Private::State::Candidate:
        startAttempt(); // it has waited renewDeadline (> 1.2 x retryPeriod) already
        return;
    case Private::State::Idle:
    case Private::State::Ending:
    case Private::State::Releasing:
    case Private::State::Stopped:
        return;
    }
}

void LeaderElector::onLockChanged()
{
    if (d->state == Private::State::Candidate)
        startAttempt();
}

// --- the end of a term ---------------------------------------------------------------------

void LeaderElector::stepDown(const QString &reason)
{
    qCWarning(lcLeaderElection).noquote() << reason;
    d->lost = true;
    endTerm();
    if (emitChecked([this] { emit stoppedLeading(); }))
        afterTerm();
}

// Leading -> Ending: the token is cancelled before any stoppedLeading() slot runs.
void LeaderElector::endTerm()
{
    d->setState(Private::State::Ending);
    ++d->attempt; // whatever is in flight no longer counts
    d->attemptInFlight = false;
    d->hintPending = false;
    d->retryTimer->stop();
    d->deadlineTimer->stop();
    d->attemptTimer->stop();
    {
        std::lock_guard lock(d->mutex);
        d->token.cancel();
        d->token = LeaderToken();
    }
    if (d->masterStatus)
        d->masterStatus->set(0);
    d->config.lock->recordEvent(QStringLiteral("stopped leading"));
}

// After the stoppedLeading() slots: release if asked to, then be a candidate again (Rejoin)
// or finish the run.
void LeaderElector::afterTerm()
{
    auto next = [this] {
        if (!d->stopRequested && d->config.mode == LeaderElectionConfig::Mode::Rejoin) {
            d->setState(Private::State::Candidate);
            d->lost = false;
            qCInfo(lcLeaderElection).noquote()
                << "attempting to acquire leader lease" << d->desc() << "again";
            startAttempt();
            return;
        }
        finishRun();
    };
    if (!d->config.releaseOnCancel) {
        next();
        return;
    }
    d->setState(Private::State::Releasing);
    release([next](bool) { next(); });
}

// The end of the run: finished(), and in RunOrDie mode after a loss the exit. A finished()
// slot may delete the elector or run it again, so nothing of it is read after the emit.
void LeaderElector::finishRun()
{
    d->setState(Private::State::Stopped);
    d->config.lock->setWatching(false);
    const bool exit = d->lost && d->config.mode == LeaderElectionConfig::Mode::RunOrDie;
    d->lost = false;
    const std::function<void(int)> exitProcess = d->config.exitProcess;
    if (exit)
        qCCritical(lcLeaderElection).noquote() << "leaderelection lost";
    emit finished();
    if (exit)
        exitProcess(1);
}

void LeaderElector::release(std::function<void(bool)> done)
{
    // Bounded by renewDeadline, as client-go's: onRetryTimer gives up then.
    d->releaseDone = std::move(done);
    d->retryTimer->reset(d->clock->now() + d->config.renewDeadline);
    releaseStep(++d->attempt);
}

void LeaderElector::finishRelease(bool released)
{
    ++d->attempt;
    d->retryTimer->stop();
    if (auto done = std::exchange(d->releaseDone, nullptr))
        done(released);
}

void LeaderElector::releaseStep(quint64 attempt)
{
    // Read first, for the current resourceVersion (client-go's release does too), and to
    // never clear a record that someone else holds by now.
    detail::whenFinished(
        d->config.lock->get(), d->mailbox, [this, attempt](const GetResult &current) {
            if (attempt != d->attempt)
                return;
            if (!current) {
                qCWarning(lcLeaderElection).noquote()
                    << "error retrieving resource lock" << d->desc() << current.error().toString();
                finishRelease(false);
                return;
            }
            if (!observedHolderIsMe()
                || current->record.holderIdentity != d->config.lock->identity()) {
                finishRelease(true);
                return;
            }
            LeaderElectionRecord record;
            record.leaseDurationSeconds = 1;
            record.renewTime = record.acquireTime = QDateTime::currentDateTimeUtc();
            record.leaderTransitions = current->record.leaderTransitions;
            detail::whenFinished(d->config.lock->update(record), d->mailbox,
                [this, attempt, record](const WriteResult &error) {
                    if (attempt != d->attempt)
                        return;
                    if (error && error->isConflict()) {
                        qCInfo(lcLeaderElection).noquote()
                            << "conflict releasing lock" << d->desc() << "- retrying";
                        releaseStep(attempt);
                        return;
                    }
                    if (error) {
                        qCWarning(lcLeaderElection).noquote()
                            << "Failed to release lock:" << error->toString();
                        finishRelease(false);
                        return;
                    }
                    setObservedRecord(record);
                    qCInfo(lcLeaderElection).noquote() << "released lease" << d->desc();
                    finishRelease(true);
                });
        });
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
