// SPDX-License-Identifier: Apache-2.0
// LeaderElector::Private: the elector's state. Private to the SDK; the unit tests include it
// to set up the observed record as client-go's tests do.
#pragma once

#include <qcm/leaderelection/leaderelector.h>
#include <qcm/metrics/counter.h>
#include <qcm/metrics/gauge.h>

#include "mailbox_p.h"

#include <mutex>

namespace qcm::leaderelection {

struct LeaderElector::Private
{
    // Ending: a term or a run is ending and its stoppedLeading() slots run; stop() then only
    // records the request, and run() does nothing (the run lasts until finished()).
    enum class State { Idle, Candidate, Leading, Ending, Releasing, Stopped };

    LeaderElectionConfig config;
    Clock *clock = nullptr;
    std::shared_ptr<detail::Mailbox> mailbox;
    std::unique_ptr<Timer> retryTimer;
    std::unique_ptr<Timer> deadlineTimer;
    std::unique_ptr<Timer> attemptTimer; // abandons an attempt still in flight at its bound
    metrics::Gauge *masterStatus = nullptr;
    metrics::Counter *slowpath = nullptr;

    // Owner thread only.
    State state = State::Idle;
    quint64 epoch = 0; // counts state changes: a slot that changed the course is noticed
    bool stopRequested = false;
    bool lost = false; // the term ended because leadership was lost, not by stop()
    quint64 attempt = 0; // a result of an older attempt is ignored
    bool attemptInFlight = false;
    bool hintPending = false;
    TimePoint attemptStart;
    // The renew loop's cycle (client-go's PollUntilContextTimeout): its first try's start is
    // the origin of the retryPeriod ticks on which failed tries are retried.
    TimePoint renewCycleStart;
    bool renewCycleDue = false; // the next renewal starts a cycle
    TimePoint leaseDeadline; // of the current term
    QString reportedLeader;
    QByteArray observedRawRecord;
    std::function<void(bool)> releaseDone; // while Releasing
    TimePoint releaseDeadline; // while Releasing: when the release gives up

    // Read from any thread.
    mutable std::mutex mutex;
    LeaderElectionRecord observedRecord; // guarded by mutex
    TimePoint observedTime; // guarded by mutex
    LeaderToken token; // guarded by mutex; the current term's

    QString desc() const { return config.lock->describe(); }
    void setState(State next)
    {
        state = next;
        ++epoch;
    }
};

} // namespace qcm::leaderelection
