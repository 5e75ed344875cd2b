// SPDX-License-Identifier: Apache-2.0
// What the sharding e2e tests share: the short timings (lease 3 s, renew 2 s, retry 1 s) and
// a real term of a group's leadership, held on a Lease of its own.
#pragma once

#include "../e2esupport.h"

#include <qcm/leaderelection/leaderelector.h>
#include <qcm/leaderelection/leaselock.h>

namespace qcm::e2e {

inline constexpr Duration TestLeaseDuration = std::chrono::seconds(3);
inline constexpr Duration TestRenewDeadline = std::chrono::seconds(2);
inline constexpr Duration TestRetryPeriod = std::chrono::seconds(1);

// A running elector for `identity` on the Lease <group>-leader, in Rejoin mode; the caller
// waits until it leads. Aborts the test program if the config is refused.
inline std::unique_ptr<leaderelection::LeaderElector> groupLeader(
    client::RestClient &client, const QString &ns, const QString &group, const QString &identity)
{
    leaderelection::LeaderElectionConfig config;
    config.lock = std::make_shared<leaderelection::LeaseLock>(ns, group + QStringLiteral("-leader"),
        &client, leaderelection::ResourceLockConfig {identity, nullptr});
    config.leaseDuration = TestLeaseDuration;
    config.renewDeadline = TestRenewDeadline;
    config.retryPeriod = TestRetryPeriod;
    config.mode = leaderelection::LeaderElectionConfig::Mode::Rejoin;
    auto elector = leaderelection::LeaderElector::create(config);
    if (!elector)
        qFatal("%s", qPrintable(elector.error().toString()));
    (*elector)->run();
    return std::move(*elector);
}

} // namespace qcm::e2e
