// LeaderElector: campaigns for a ResourceLock and keeps it renewed (client-go's
// leaderelection.LeaderElector), with client-go's callbacks as Qt signals.
//
// run() makes it a candidate. It tries to acquire the lock at once and then every
// retryPeriod × [1, 2.2) (JitterFactor 1.2). Once it holds the lock it emits
// startedLeading(token) and renews: at once, then every retryPeriod, retrying every
// retryPeriod after a failure. Leadership lasts until the start of the last successful
// renewal + renewDeadline; if no renewal succeeds by then, it steps down.
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
// Beyond client-go (docs/leaderelection.md says why):
//   * pause safety: the deadline is measured on the monotonic clock from the start of the
//     last successful renewal, and the token of the term (LeaderToken) checks it itself. A
//     process paused past the deadline holds an invalid token the instant it runs again, and
//     the elector steps down as soon as its thread runs; a late renewal reply cannot revive
//     the term, since the deadline counts from when that renewal was sent.
//   * a leader that reads the record and finds someone else holding it steps down at once
//     (client-go keeps polling until renewDeadline);
//   * with watchLock, candidates also try when the lock object changes and when the lease
//     they observe expires; the acquire and renew rules are unchanged.
//
// stop() cancels: the term's token is cancelled, stoppedLeading() is emitted, then, with
// releaseOnCancel, the lock is released (holder "", leaseDurationSeconds 1, retried on
// Conflict within renewDeadline), and finished() ends the run. As client-go's
// OnStoppedLeading, stoppedLeading() also ends a run that never led. Leadership lost without
// stop() emits stoppedLeading() and then, in RunOrDie mode, finished() and the process exits;
// in Rejoin mode the elector is a candidate again.
//
// Signals are emitted on the elector's thread. newLeader(identity) reports each new holder
// observed, including the first and including "" (nobody) after a release.
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
    // The unique_ptr owns it; with a `parent`, release() it to the parent or let it die first.
    static Result<std::unique_ptr<LeaderElector>> create(
        LeaderElectionConfig config, QObject *parent = nullptr);
    ~LeaderElector() override;

    // Starts campaigning. Does nothing while running.
    void run();
    // Cancels the run; finished() follows, after the release if releaseOnCancel.
    void stop();
    bool isRunning() const;

    // Leading now: the term has not ended and its deadline has not passed.
    bool isLeader() const;
    // The token of the current term; an invalid token when not leading.
    LeaderToken token() const;
    // The holder last observed (client-go's GetLeader); empty before any.
    QString leader() const;
    QString identity() const;
    // client-go's Check, for /healthz: an error when this elector last saw itself holding the
    // lock, but longer ago than leaseDuration + maxTolerableExpiredLease (it should have
    // renewed or exited by then, e.g. a deadlock stops it). Candidates are always healthy.
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
    void finishRelease(bool released);
    bool maybeReportTransition();
    bool emitChecked(const std::function<void()> &emitSignal);
    void setObservedRecord(const LeaderElectionRecord &record);
    bool isLeaseValid(TimePoint now) const;
    bool observedHolderIsMe() const;

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::leaderelection
