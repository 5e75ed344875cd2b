// SPDX-License-Identifier: Apache-2.0
#include <qcm/leaderelection/healthzadaptor.h>
#include <qcm/leaderelection/leaderelector.h>

namespace qcm::leaderelection {

HealthzAdaptor::HealthzAdaptor(Duration timeout) : m_timeout(timeout) { }

QString HealthzAdaptor::name()
{
    return QStringLiteral("leaderElection");
}

void HealthzAdaptor::setLeaderElection(const LeaderElector *elector)
{
    std::lock_guard lock(m_mutex);
    m_elector = elector;
}

std::optional<Error> HealthzAdaptor::check() const
{
    std::lock_guard lock(m_mutex);
    if (!m_elector)
        return std::nullopt;
    return m_elector->check(m_timeout);
}

} // namespace qcm::leaderelection
