// SPDX-License-Identifier: Apache-2.0
// HealthzAdaptor: the leader-election health check, for /healthz (client-go's
// leaderelection.HealthzAdaptor).
//
// The health endpoint is set up before the elector exists, so the adaptor starts empty and
// is healthy until setLeaderElection(). Then check() fails when the elector last saw itself
// holding the lock longer ago than leaseDuration + timeout: it should have renewed or exited
// by then (a deadlock can prevent both), so the process is reported unhealthy and can be
// restarted.
//
// Thread safety: every method is safe from any thread. The elector must outlive the adaptor,
// or be unset first.
#pragma once

#include <qcm/clock.h>
#include <qcm/error.h>

#include <mutex>
#include <optional>

namespace qcm::leaderelection {

class LeaderElector;

class QCM_SDK_EXPORT HealthzAdaptor
{
public:
    // `timeout`: how long past the lease's expiry checks still pass.
    explicit HealthzAdaptor(Duration timeout);

    // "leaderElection", the check's name under /healthz.
    static QString name();
    void setLeaderElection(const LeaderElector *elector);
    // Nothing when healthy, otherwise the reason.
    std::optional<Error> check() const;

private:
    mutable std::mutex m_mutex;
    const LeaderElector *m_elector = nullptr; // guarded by m_mutex
    const Duration m_timeout;
};

} // namespace qcm::leaderelection
