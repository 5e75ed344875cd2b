// SPDX-License-Identifier: Apache-2.0
// The pure parts of kube-controller-manager's TTL-after-finished controller
// (pkg/controller/ttlafterfinished): which Jobs need cleaning up, when they finished, how long
// they have left, and which informer events are worth queueing.
//
// A Job needs cleaning up when spec.ttlSecondsAfterFinished is set and it has finished: it has
// a Complete or Failed condition with status "True" (jobutil.IsJobFinished). It finished at
// that condition's lastTransitionTime, and expires ttlSecondsAfterFinished seconds later.
//
// Thread safety: reentrant.
#pragma once

#include <qcm/api/batch/v1.h>
#include <qcm/clock.h>
#include <qcm/predicate/predicate.h>
#include <qcm/result.h>

namespace qcm::samples {

// A Complete or Failed condition with status "True".
bool isJobFinished(const api::batch::v1::Job &job);
// spec.ttlSecondsAfterFinished is set and the Job has finished.
bool needsCleanup(const api::batch::v1::Job &job);
// The lastTransitionTime of the finishing condition; an error if the Job has not finished
// ("unable to find the status of the finished Job ns/name"), or the condition carries no
// (valid) time ("unable to find the time when the Job ns/name finished").
Result<QDateTime> jobFinishTime(const api::batch::v1::Job &job);

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
Result<TtlCheck> checkTtl(const api::batch::v1::Job &job, const QDateTime &now);

// Upstream's addJob/updateJob filter, for the Jobs watch: an add or update (resyncs too)
// passes when the new Job needs cleaning up and is not being deleted; a delete never passes
// (upstream has no delete handler: a Job that is gone has nothing left to clean up).
predicate::Predicate jobsToCleanUp();

} // namespace qcm::samples
