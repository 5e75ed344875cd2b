// SPDX-License-Identifier: Apache-2.0
// LeaderElectionConfig::validate: client-go's NewLeaderElector checks, in its order.
#include <qcm/leaderelection/leaderelectionconfig.h>
#include <qcm/leaderelection/resourcelock.h>

namespace qcm::leaderelection {

using namespace std::chrono;

std::optional<Error> LeaderElectionConfig::validate() const
{
    auto error = [](const char *field, const QString &reason) {
        return Error {QString(), QString::fromLatin1(field), reason};
    };
    // client-go's NewLeaderElector, in its order.
    if (leaseDuration <= renewDeadline)
        return error(
            "leaseDuration", QStringLiteral("leaseDuration must be greater than renewDeadline"));
    if (renewDeadline <= Duration(qint64(JitterFactor * double(retryPeriod.count()))))
        return error("renewDeadline",
            QStringLiteral("renewDeadline must be greater than retryPeriod*JitterFactor"));
    for (const auto &[field, value] : {std::pair {"leaseDuration", leaseDuration},
             std::pair {"renewDeadline", renewDeadline}, std::pair {"retryPeriod", retryPeriod}}) {
        if (value < seconds(1))
            return error(field, QStringLiteral("%1 must be at least 1s").arg(QLatin1String(field)));
    }
    if (leaseDuration % seconds(1) != Duration::zero())
        return error("leaseDuration",
            QStringLiteral("leaseDuration must be whole seconds (the lock records seconds)"));
    if (!lock)
        return error("lock", QStringLiteral("Lock must not be nil."));
    if (lock->identity().isEmpty())
        return error("lock", QStringLiteral("Lock identity is empty"));
    return std::nullopt;
}

} // namespace qcm::leaderelection
