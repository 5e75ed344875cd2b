// SPDX-License-Identifier: Apache-2.0
// The pure parts of kube-controller-manager's TTL-after-finished controller
// (pkg/controller/ttlafterfinished): when a Job needs cleaning up, when it finished, and how
// long it has left.
//
// A Job needs cleaning up when spec.ttlSecondsAfterFinished is set and it has finished: it has
// a Complete or Failed condition with status "True" (jobutil.IsJobFinished). It finished at
// that condition's lastTransitionTime, and expires ttlSecondsAfterFinished seconds later.
//
// Thread safety: reentrant.
#pragma once

#include <qcm/client/object.h>
#include <qcm/clock.h>
#include <qcm/result.h>

namespace qcm::samples {

// A Complete or Failed condition with status "True".
bool isJobFinished(const client::Object &job);
// spec.ttlSecondsAfterFinished is set and the Job has finished.
bool needsCleanup(const client::Object &job);
// The lastTransitionTime of the finishing condition; an error if the Job has not finished, or
// the condition carries no (valid) time.
Result<QDateTime> jobFinishTime(const client::Object &job);

// What the TTL of one Job says at `now` (upstream's processTTL and timeLeft).
struct TtlCheck
{
    enum class Kind {
        NoCleanup, // being deleted, not finished, or no TTL: nothing to do
        Expired, // delete it
        NotYet, // look again after `remaining`
    };
    Kind kind = Kind::NoCleanup;
    QDateTime finishAt; // set unless NoCleanup
    QDateTime expireAt; // finishAt + ttlSecondsAfterFinished
    Duration remaining {0}; // expireAt - now, with millisecond precision; <= 0 when Expired
};
// An error when the Job needs cleaning up but its finish time cannot be found.
Result<TtlCheck> checkTtl(const client::Object &job, const QDateTime &now);

} // namespace qcm::samples
