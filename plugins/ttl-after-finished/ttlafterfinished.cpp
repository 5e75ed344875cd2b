// SPDX-License-Identifier: Apache-2.0
#include "ttlafterfinished.h"

#include <QtCore/QJsonArray>

namespace qcm::samples {

using namespace qcm::client;

namespace {
// The first Complete or Failed condition with status "True" (jobutil.FinishedCondition).
std::optional<QJsonObject> finishedCondition(const Object &job)
{
    const QJsonArray conditions = job.json()
                                      .value(QLatin1String("status"))
                                      .toObject()
                                      .value(QLatin1String("conditions"))
                                      .toArray();
    for (const QJsonValue &value : conditions) {
        const QJsonObject condition = value.toObject();
        const QString type = condition.value(QLatin1String("type")).toString();
        if ((type == QLatin1String("Complete") || type == QLatin1String("Failed"))
            && condition.value(QLatin1String("status")).toString() == QLatin1String("True"))
            return condition;
    }
    return std::nullopt;
}

std::optional<qint64> ttlSecondsAfterFinished(const Object &job)
{
    const QJsonValue ttl = job.json()
                               .value(QLatin1String("spec"))
                               .toObject()
                               .value(QLatin1String("ttlSecondsAfterFinished"));
    if (!ttl.isDouble())
        return std::nullopt;
    return ttl.toInteger();
}

QString jobName(const Object &job)
{
    return job.namespaceName() + QLatin1Char('/') + job.name();
}
} // namespace

bool isJobFinished(const Object &job)
{
    return finishedCondition(job).has_value();
}

bool needsCleanup(const Object &job)
{
    return ttlSecondsAfterFinished(job).has_value() && isJobFinished(job);
}

Result<QDateTime> jobFinishTime(const Object &job)
{
    const std::optional<QJsonObject> condition = finishedCondition(job);
    if (!condition)
        return Error {QString(), QString(),
            QStringLiteral("unable to find the status of the finished Job %1").arg(jobName(job))};
    const QDateTime finishAt = QDateTime::fromString(
        condition->value(QLatin1String("lastTransitionTime")).toString(), Qt::ISODate);
    if (!finishAt.isValid())
        return Error {QString(), QString(),
            QStringLiteral("unable to find the time when the Job %1 finished").arg(jobName(job))};
    return finishAt;
}

Result<TtlCheck> checkTtl(const Object &job, const QDateTime &now)
{
    TtlCheck check;
    if (job.deletionTimestamp() || !needsCleanup(job))
        return check;
    const Result<QDateTime> finishAt = jobFinishTime(job);
    if (!finishAt)
        return finishAt.error();
    check.finishAt = *finishAt;
    check.expireAt = finishAt->addSecs(*ttlSecondsAfterFinished(job));
    check.remaining = std::chrono::milliseconds(now.msecsTo(check.expireAt));
    check.kind
        = check.remaining <= Duration::zero() ? TtlCheck::Kind::Expired : TtlCheck::Kind::NotYet;
    return check;
}

} // namespace qcm::samples
