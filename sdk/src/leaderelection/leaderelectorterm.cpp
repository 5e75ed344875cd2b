// SPDX-License-Identifier: Apache-2.0
// LeaderElector, the end of a term: the token cancelled, stoppedLeading(), the optional
// release of the lock, and then a new candidacy or the end of the run.
#include <qcm/leaderelection/leaderelector.h>

#include "leaderelector_p.h"
#include "logging_p.h"

#include <mutex>
#include <utility>

namespace qcm::leaderelection {

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
    d->releaseDeadline = d->clock->now() + d->config.renewDeadline;
    d->retryTimer->reset(d->releaseDeadline);
    releaseStep(++d->attempt);
}

void LeaderElector::finishRelease(bool released)
{
    ++d->attempt;
    d->retryTimer->stop();
    if (auto done = std::exchange(d->releaseDone, nullptr))
        done(released);
}

// client-go's release record: no holder, a lease of 1 s, the transitions kept.
LeaderElectionRecord LeaderElector::releasedRecord(const LeaderElectionRecord &current)
{
    LeaderElectionRecord record;
    record.leaseDurationSeconds = 1;
    record.renewTime = record.acquireTime = QDateTime::currentDateTimeUtc();
    record.leaderTransitions = current.leaderTransitions;
    keepCoordination(record, current);
    return record;
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
            const LeaderElectionRecord record = releasedRecord(current->record);
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

} // namespace qcm::leaderelection
