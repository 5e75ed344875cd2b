// SPDX-License-Identifier: Apache-2.0
// LeaderElector: campaigns for a ResourceLock and keeps it renewed (client-go's
// leaderelection.LeaderElector), with client-go's callbacks as Qt signals.
//
// run() makes it a candidate. It tries to acquire the lock at once and then retryPeriod ×
// [1, 2.2) (JitterFactor 1.2) after each failed try. Once it holds the lock it emits
// startedLeading(token) and renews: at once, then retryPeriod after each success (client-go's
// wait.Until); after a failed try, on the next retryPeriod tick counted from the first try of
// that renewal cycle, or at once if that tick passed while the try ran (the ticker of
// wait.PollUntilContextTimeout). Leadership lasts until the start of the last
// successful renewal + renewDeadline; if no renewal succeeds by then, it steps down.
// Every try is bounded by renewDeadline from its start (client-go's context timeout): one
// still unanswered then (a hung request) is abandoned, its late reply ignored, and the next
// try starts at once. An acquiring try whose success is seen only after that bound (the process
// was paused with the request in flight) does not start a term on an expired token: the
// elector tries again at once instead.
//
// tryAcquireOrRenew, as client-go's:
//   * fast path: a leader whose observed lease is still valid updates the record directly,
//     without a get; if that fails it falls back to the slow path;
//   * slow path: get the record (create it if there is none). If its raw form differs from
//     the one observed last, note it, with the *local* monotonic time at which it was seen
//     (the observed time). A record held by someone else whose observed time +
//     leaseDurationSeconds is still ahead is not taken. Otherwise update it: a new holder
//     increments leaderTransitions and sets acquireTime; the holder itself keeps both. The
//     update carries the resourceVersion read, so of two candidates only one wins.
//
// Coordinated leader election (KEP-4355, `coordinated` in the config): client-go's
// tryCoordinatedRenew instead. The elector never claims the lock: the API server's election
// controller writes the holder, picked among the LeaseCandidates (leasecandidate.h). Each try
// gets the record (none: no success), notes it as above, and succeeds only when the record
// names this elector, the lease has not expired as observed, and no preferredHolder marks the
// end of its term; then it renews the record, keeping acquireTime, leaderTransitions and the
// strategy. A leader whose term is marked ended renews no more and steps down at its deadline.
//
// Beyond client-go (docs/leaderelection.md says why):
//   * pause safety: the deadline is measured on the monotonic clock from the start of the
//     last successful renewal, and the token of the term (LeaderToken) checks it itself. A
//     process paused past the deadline holds an invalid token the instant it runs again, and
//     the elector steps down as soon as its thread runs; a late renewal reply cannot revive
//     the term, since the deadline counts from when that renewal was sent.
//   * a leader that reads the record and finds someone else holding it steps down at once
//     (client-go keeps polling until renewDeadline);
//   * with watchLock, candidates also try when the lock object changes and when the lease
//     they observe expires; the acquire and renew rules are unchanged;
//   * coordinated: a candidate that is not leading releases a Lease that names it and has
//     expired as observed, so that the election controller writes the holder again (it leaves
//     a lapsed Lease alone when it would elect the same holder).
//
// stop() cancels: the term's token is cancelled, stoppedLeading() is emitted, then, with
// releaseOnCancel, the lock is released (holder "", leaseDurationSeconds 1, retried on
// Conflict within renewDeadline), and finished() ends the run. As client-go's
// OnStoppedLeading, stoppedLeading() also ends a run that never led. Leadership lost without
// stop() emits stoppedLeading() and then, in RunOrDie mode, finished() and the process exits;
// in Rejoin mode the elector is a candidate again.
//
// Signals are emitted on the elector's thread, synchronously: stop() itself emits
// stoppedLeading() and, without releaseOnCancel, finished() before it returns. Slots may call
// stop() or run(), or delete the elector; the elector notices and goes no further. The run
// lasts until finished(): isRunning() is true in stoppedLeading() slots, where stop() only
// makes a Rejoin elector finish instead of campaigning again (a RunOrDie elector that lost the
// lease still exits) and run() does nothing; a finished() slot may run() it again. Other slots
// of the signal being emitted still run after one that stopped the elector; the token they get
// is then already invalid. newLeader(identity) reports each new holder observed, including
// the first and including "" (nobody) after a release.
//
// Destroying a running elector cancels the token, and emits nothing: no stoppedLeading(), no
// release (it needs the event loop; the others take over leaseDuration after its last
// renewal), no finished(). Signals from a destructor would reach slots whose objects are being
// torn down with it; leader work watches the token anyway. For an orderly end call stop() and
// destroy the elector after finished() (client-go's Run, which always calls
// OnStoppedLeading, ends only that way too).
//
// Thread safety: the elector belongs to the thread that created it (the host's main thread)
// and runs on that thread's event loop; every lock call is asynchronous, so it never blocks
// it. run() and stop() are called on that thread. isLeader(), token(), leader() and check()
// are safe from any thread.
#pragma once

#include <qcm/leaderelection/leaderelectionconfig.h>
#include <qcm/leaderelection/leadertoken.h>

#include <QtCore/QObject>

#include <memory>

struct LeaderElectorHarness; // the unit tests' access to the internals

namespace qcm::leaderelection {

class QCM_SDK_EXPORT LeaderElector : public QObject
{
    Q_OBJECT

public:
    // A validated elector, or the first rule the config breaks (LeaderElectionConfig).
    // The unique_ptr owns it. With a `parent` there are two owners until you pick one: either
    // call release() on the unique_ptr so that the parent owns it, or keep the unique_ptr and
    // destroy it before the parent (the parent would otherwise delete it a second time).
    static Result<std::unique_ptr<LeaderElector>> create(
        LeaderElectionConfig config, QObject *parent = nullptr);
    ~LeaderElector() override;

    // Starts campaigning. Does nothing while running.
    void run();
    // Cancels the run. stoppedLeading() is emitted before it returns; so is finished(),
    // unless releaseOnCancel, when finished() follows the release (at most renewDeadline).
    void stop();
    bool isRunning() const;

    // Leading now: the term has not ended and its deadline has not passed.
    bool isLeader() const;
    // The token of the current term; an invalid token when not leading.
    LeaderToken token() const;
    // The holder last observed (client-go's GetLeader); empty before any.
    QString leader() const;
    QString identity() const;
    // client-go's Check, for /healthz: an error when the record this elector last observed
    // names it as holder, but was observed longer ago than leaseDuration +
    // maxTolerableExpiredLease (it should have renewed or exited by then, e.g. a deadlock stops
    // it). Candidates that have observed another holder (or none) are healthy. As in client-go,
    // the record decides, not the state: a Rejoin candidate that lost its term in a partition
    // still last observed itself, and fails the check until it
    // observes another holder or holds the lock again.
    std::optional<Error> check(Duration maxTolerableExpiredLease) const;
    const LeaderElectionConfig &config() const;

signals:
    void startedLeading(const qcm::leaderelection::LeaderToken &token);
    void stoppedLeading();
    void newLeader(const QString &identity);
    void finished();

private:
    friend struct ::LeaderElectorHarness;
    explicit LeaderElector(LeaderElectionConfig config, QObject *parent);

    void startAttempt();
    void tryAcquireOrRenew(quint64 attempt, std::function<void(bool)> done);
    void slowPath(quint64 attempt, TimePoint now, LeaderElectionRecord record,
        std::function<void(bool)> done);
    void tryCoordinatedRenew(quint64 attempt, std::function<void(bool)> done);
    void handBackLapsedLease(
        quint64 attempt, const LeaderElectionRecord &current, std::function<void(bool)> done);
    void observe(const GetResult &read);
    void writeRecord(
        quint64 attempt, const LeaderElectionRecord &record, std::function<void(bool)> done);
    void onAttemptDone(bool succeeded);
    void becomeLeader();
    void scheduleAcquire();
    void onRetryTimer();
    void onDeadline();
    void onAttemptTimeout();
    void onLockChanged();
    void stepDown(const QString &reason);
    void endTerm();
    void afterTerm();
    void finishRun();
    void release(std::function<void(bool)> done);
    void releaseStep(quint64 attempt);
    static LeaderElectionRecord releasedRecord(const LeaderElectionRecord &current);
    void finishRelease(bool released);
    bool maybeReportTransition();
    bool emitChecked(const std::function<void()> &emitSignal);
    void setObservedRecord(const LeaderElectionRecord &record);
    static void keepCoordination(LeaderElectionRecord &record, const LeaderElectionRecord &from);
    bool isLeaseValid(TimePoint now) const;
    bool observedHolderIsMe() const;

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::leaderelection
