// SPDX-License-Identifier: Apache-2.0
// LeaderToken: one term of leadership, for the workers that do the leader's work.
//
// startedLeading() hands one out; it stays valid while the term lasts. A worker asks
// isValid() before each piece of leader work, on any thread, without a round trip to the
// elector's thread: the answer comes from the monotonic clock and the term's deadline (the
// start of the last successful renewal + renewDeadline), so after a pause (SIGSTOP, a long
// stall) the token is invalid the moment the process runs again, before the elector's thread
// has even noticed. The elector extends the deadline on each renewal and cancels the token
// when the term ends.
//
// What it cannot do: fence. The API server does not check it, so work already sent before
// the deadline may land after it. See docs/leaderelection.md.
//
// A default-constructed token is invalid. Copies share the term.
// Thread safety: every method is safe from any thread.
#pragma once

#include <qcm/clock.h>

#include <QtCore/QMetaType>

#include <memory>

namespace qcm::leaderelection {

class QCM_SDK_EXPORT LeaderToken
{
public:
    LeaderToken();

    // Not cancelled, and the deadline has not passed.
    bool isValid() const;
    bool isCancelled() const { return !isValid(); }
    // The current deadline on the elector's clock (it moves on with each renewal).
    TimePoint deadline() const;
    // When the term ended: the earlier of the cancellation and the deadline; while valid,
    // the deadline.
    TimePoint endedAt() const;
    // Blocks until the token is no longer valid or `timeout` has passed (real time; with a
    // fake clock only cancel() wakes it early). True when the token is no longer valid.
    bool waitUntilInvalid(Duration timeout) const;

private:
    friend class LeaderElector;
    LeaderToken(Clock *clock, TimePoint deadline);
    void extend(TimePoint deadline) const;
    void cancel() const;

    struct State;
    std::shared_ptr<State> d;
};

} // namespace qcm::leaderelection

Q_DECLARE_METATYPE(qcm::leaderelection::LeaderToken)
