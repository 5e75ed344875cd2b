// SPDX-License-Identifier: Apache-2.0
#include "ttlafterfinished.h"

namespace qcm::samples {

using api::batch::v1::Job;
using api::batch::v1::JobCondition;

namespace {
// The first Complete or Failed condition with status "True" (jobutil.FinishedCondition).
std::optional<JobCondition> finishedCondition(const Job &job)
{
    for (const JobCondition &condition : job.status().conditions()) {
        if ((condition.type() == QLatin1String("Complete")
                || condition.type() == QLatin1String("Failed"))
            && condition.status() == QLatin1String("True"))
            return condition;
    }
    return std::nullopt;
}

// The informer's Object, seen as a Job (the predicate gets untyped objects).
bool wantsCleanup(const client::Object &object)
{
    const Job job(object);
    return !job.metadata().deletionTimestamp() && needsCleanup(job);
}
} // namespace

bool isJobFinished(const Job &job)
{
    return finishedCondition(job).has_value();
}

bool needsCleanup(const Job &job)
{
    return job.spec().ttlSecondsAfterFinished().has_value() && isJobFinished(job);
}

Result<QDateTime> jobFinishTime(const Job &job)
{
    const std::optional<JobCondition> condition = finishedCondition(job);
    if (!condition)
        return Error {QString(), QString(),
            QStringLiteral("unable to find the status of the finished Job %1").arg(job.key())};
    const std::optional<QDateTime> finishAt = condition->lastTransitionTime();
    if (!finishAt)
        return Error {QString(), QString(),
            QStringLiteral("unable to find the time when the Job %1 finished").arg(job.key())};
    return *finishAt;
}

Result<TtlCheck> checkTtl(const Job &job, const QDateTime &now)
{
    TtlCheck check;
    if (job.metadata().deletionTimestamp() || !needsCleanup(job))
        return check;
    const Result<QDateTime> finishAt = jobFinishTime(job);
    if (!finishAt)
        return finishAt.error();
    check.finishAt = *finishAt;
    check.expireAt = finishAt->addSecs(*job.spec().ttlSecondsAfterFinished());
    check.remaining = std::chrono::milliseconds(now.msecsTo(check.expireAt));
    check.kind
        = check.remaining <= Duration::zero() ? TtlCheck::Kind::Expired : TtlCheck::Kind::NotYet;
    return check;
}

predicate::Predicate jobsToCleanUp()
{
    return {wantsCleanup,
        [](const client::Object &, const client::Object &job) { return wantsCleanup(job); },
        [](const client::Object &) { return false; }};
}

} // namespace qcm::samples
