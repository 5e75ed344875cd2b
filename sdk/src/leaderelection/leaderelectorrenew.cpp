// SPDX-License-Identifier: Apache-2.0
// LeaderElector, acquiring and renewing the lease: client-go's acquire and renew loops
// (tryAcquireOrRenew and its slow path, the retry and deadline timers). The rest of the elector
// is in leaderelector.cpp and leaderelectorterm.cpp.
#include <qcm/leaderelection/leaderelector.h>

#include "leaderelector_p.h"
#include "logging_p.h"

#include <QtCore/QRandomGenerator>

#include <mutex>
#include <utility>

namespace qcm::leaderelection {

using namespace std::chrono;

namespace {

qint64 toMs(Duration d)
{
    return duration_cast<milliseconds>(d).count();
}

} // namespace

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
    auto done = [this, attempt](bool succeeded) {
        if (attempt != d->attempt)
            return;
        d->attemptInFlight = false;
        d->attemptTimer->stop();
        onAttemptDone(succeeded);
    };
    if (d->config.coordinated)
        tryCoordinatedRenew(attempt, std::move(done));
    else
        tryAcquireOrRenew(attempt, std::move(done));
    if (d->state == Private::State::Leading && d->renewCycleDue) {
        d->renewCycleStart = d->attemptStart;
        d->renewCycleDue = false;
    }
    // The attempt's own bound, as client-go's context timeout: a request that hangs (a client
    // without a timeout, a dead connection) must not stop the elector from trying again.
    d->attemptTimer->reset(d->attemptStart + d->config.renewDeadline);
}

void LeaderElector::keepCoordination(LeaderElectionRecord &record, const LeaderElectionRecord &from)
{
    // Coordinated leader election (KEP-4355) puts strategy and preferredHolder on the Lease;
    // client-go's plain tryAcquireOrRenew writes them away on every renewal (only its
    // coordinated path keeps the strategy). qcm keeps both, so that a renewal never undoes
    // what the API server's election controller wrote (docs/leaderelection.md).
    record.strategy = from.strategy;
    record.preferredHolder = from.preferredHolder;
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
            keepCoordination(record, d->observedRecord);
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
            observe(old);
            if (!old->record.holderIdentity.isEmpty() && isLeaseValid(now)
                && !observedHolderIsMe()) {
                qCDebug(lcLeaderElection).noquote()
                    << "lock is held by" << old->record.holderIdentity << "and has not yet expired";
                done(false);
                return;
            }

            // 4. We're going to try to update: correct the record first.
            keepCoordination(record, old->record);
            if (observedHolderIsMe()) {
                record.acquireTime = old->record.acquireTime;
                record.leaderTransitions = old->record.leaderTransitions;
                if (d->slowpath)
                    d->slowpath->increment();
            } else {
                record.acquireTime = record.renewTime;
                record.leaderTransitions = old->record.leaderTransitions + 1;
            }
            writeRecord(attempt, record, std::move(done));
        });
}

void LeaderElector::observe(const GetResult &read)
{
    if (d->observedRawRecord != read->raw) {
        setObservedRecord(read->record);
        d->observedRawRecord = read->raw;
    }
}

void LeaderElector::writeRecord(
    quint64 attempt, const LeaderElectionRecord &record, std::function<void(bool)> done)
{
    detail::whenFinished(d->config.lock->update(record), d->mailbox,
        [this, attempt, record, done](const WriteResult &error) {
            if (attempt != d->attempt)
                return;
            if (error) {
                qCInfo(lcLeaderElection).noquote() << "Failed to update lock:" << error->toString();
                done(false);
                return;
            }
            setObservedRecord(record);
            done(true);
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
        // A firing of the renewal timer that waited in the event queue while the loop was
        // blocked (the host stops its controllers first): not the release's deadline.
        if (d->clock->now() < d->releaseDeadline)
            return;
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

} // namespace qcm::leaderelection
