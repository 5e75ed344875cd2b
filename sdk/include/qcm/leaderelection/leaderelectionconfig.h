// SPDX-License-Identifier: Apache-2.0
// LeaderElectionConfig: how a LeaderElector campaigns (client-go's LeaderElectionConfig).
//
// validate() applies client-go's rules, with a precise error for the first one broken:
//   leaseDuration > renewDeadline > 1.2 × retryPeriod (JitterFactor), a lock, and a
//   non-empty lock identity. Beyond client-go (which asks only for more than zero): each
//   duration is at least 1 s, and leaseDuration is whole seconds, because the record stores
//   it in seconds and a rounded-down lease could expire for others before renewDeadline.
// client-go's required OnStartedLeading/OnStoppedLeading callbacks are Qt signals here.
//
// Plain data; copy it freely (copies share the lock). One lock per elector: a lock remembers
// the object it last read (whose resourceVersion its next write carries) and the elector
// follows its changed() signal, so two electors on one lock would write over each other's
// versions and wake each other. Give each elector a lock of its own, even on the same object.
#pragma once

#include <qcm/clock.h>
#include <qcm/leaderelection/resourcelock.h>

#include <functional>
#include <memory>

namespace qcm::metrics {
class Registry;
}

namespace qcm::leaderelection {

// client-go's JitterFactor: acquire retries wait retryPeriod × [1, 2.2).
inline constexpr double JitterFactor = 1.2;

struct QCM_SDK_EXPORT LeaderElectionConfig
{
    enum class Mode {
        // kube-controller-manager's: when leadership is lost, stoppedLeading() and finished()
        // are emitted, and then the process exits with status 1 (exitProcess).
        RunOrDie,
        // After leadership is lost the elector is a candidate again. stop() ends it.
        Rejoin,
    };

    // The elector's own lock (see above); it stays alive as long as any copy of the config.
    std::shared_ptr<ResourceLock> lock;

    // How long candidates wait, from the moment they last saw the record change, before
    // taking the lock over. Written into the record in whole seconds.
    Duration leaseDuration = std::chrono::seconds(15);
    // How long the leader keeps leading after the start of its last successful renewal:
    // past it, the leader steps down, even if it was paused the whole time.
    Duration renewDeadline = std::chrono::seconds(10);
    // Between attempts to acquire (with jitter) and to renew.
    Duration retryPeriod = std::chrono::seconds(2);

    // On stop(), hand the lock over at once: write holder "" and leaseDurationSeconds 1.
    // The stoppedLeading() handlers run before that write: stop the work guarded by the
    // lease there, or before calling stop().
    bool releaseOnCancel = false;

    Mode mode = Mode::RunOrDie;

    // Candidates also watch the lock object and try again as soon as it changes (a release
    // is seen at once), and try exactly when the lease they observe expires. Beyond
    // client-go, which only polls; it shortens failover and changes no safety rule.
    bool watchLock = true;

    // Coordinated leader election (KEP-4355): follow the holder the API server's election
    // controller writes, never claim the lock (leaderelector.h). Needs a LeaseCandidate of
    // this identity for the lock's Lease (leasecandidate.h) and a LeaseLock.
    bool coordinated = false;

    // The label `name` of the metrics, and the lock's name in messages.
    QString name;

    // Null: no metrics. Otherwise leader_election_master_status{name} and
    // leader_election_slowpath_total{name} are registered there.
    metrics::Registry *metrics = nullptr;

    // The monotonic clock of timers, of the observed time and of the renew deadline.
    // Null: Clock::system(). The record's timestamps use the wall clock.
    Clock *clock = nullptr;

    // RunOrDie's exit. Null: flush stdout and stderr, then std::_Exit(code) at once, as
    // klog.FlushAndExit does: no destructor of the process runs after leadership is lost.
    std::function<void(int code)> exitProcess;

    // The first rule broken, or nothing.
    std::optional<Error> validate() const;
};

} // namespace qcm::leaderelection
