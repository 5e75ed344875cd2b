// SPDX-License-Identifier: Apache-2.0
#include <qcm/sharding/shardgate.h>

#include <QtCore/QSet>

namespace qcm::sharding {

ShardGate::ShardGate(QString identity, int virtualNodes)
    : m_identity(std::move(identity)), m_virtualNodes(virtualNodes)
{ }

void ShardGate::setEpoch(const Epoch &epoch)
{
    if (m_target && epoch.number <= m_target->epoch.number)
        return;
    if (!m_served.empty() && epoch.number <= m_served.back().epoch.number)
        return;
    m_target = Served {epoch, HashRing(epoch.members, m_virtualNodes)};
}

void ShardGate::setGroup(
    const QHash<QString, quint64> &acks, const QStringList &alive, const QStringList &gone)
{
    m_acks = acks;
    m_alive = alive;
    m_gone = gone;
    checkBarrier();
}

bool ShardGate::ownsIn(const HashRing &ring, QStringView shardKey) const
{
    return ring.owns(m_identity, shardKey);
}

bool ShardGate::mayStart(QStringView shardKey) const
{
    if (m_served.empty() || !m_basePassed)
        return false;
    for (const Served &s : m_served)
        if (!ownsIn(s.ring, shardKey))
            return false;
    // A newer epoch read: nothing it takes away starts any more.
    return !m_target || m_target->epoch.number <= m_served.back().epoch.number
        || ownsIn(m_target->ring, shardKey);
}

void ShardGate::started(const QString &shardKey)
{
    ++m_inFlight[shardKey];
}

void ShardGate::finished(const QString &shardKey)
{
    auto it = m_inFlight.find(shardKey);
    if (it != m_inFlight.end() && --*it <= 0)
        m_inFlight.erase(it);
}

bool ShardGate::owns(QStringView shardKey) const
{
    return m_target && ownsIn(m_target->ring, shardKey);
}

QStringList ShardGate::inFlightLost() const
{
    QStringList lost;
    for (auto it = m_inFlight.cbegin(); it != m_inFlight.cend(); ++it)
        if (!owns(it.key()))
            lost.append(it.key());
    return lost;
}

std::optional<quint64> ShardGate::pendingAck() const
{
    if (!m_target || (!m_served.empty() && m_target->epoch.number <= servingEpoch()))
        return std::nullopt;
    if (!inFlightLost().isEmpty())
        return std::nullopt; // step 1: the lost keys finish first
    return m_target->epoch.number;
}

void ShardGate::acknowledged(quint64 epoch)
{
    if (!m_target || m_target->epoch.number != epoch || servingEpoch() >= epoch)
        return;
    m_served.push_back(*m_target);
    if (m_served.size() == 1)
        m_basePassed = false; // the first epoch served: its own barrier is the base's
    checkBarrier();
}

quint64 ShardGate::servingEpoch() const
{
    return m_served.empty() ? 0 : m_served.back().epoch.number;
}

quint64 ShardGate::targetEpoch() const
{
    return m_target ? m_target->epoch.number : 0;
}

quint64 ShardGate::baseEpoch() const
{
    return m_basePassed && !m_served.empty() ? m_served.front().epoch.number : 0;
}

void ShardGate::checkBarrier()
{
    if (m_served.empty())
        return;
    const Served &latest = m_served.back();
    const quint64 e = latest.epoch.number;
    QSet<QString> waitFor(latest.epoch.members.cbegin(), latest.epoch.members.cend());
    for (const QString &m : std::as_const(m_alive))
        waitFor.insert(m);
    for (const QString &m : std::as_const(m_gone))
        waitFor.remove(m);
    for (const QString &m : std::as_const(waitFor))
        if (m_acks.value(m, 0) < e)
            return; // not acked (or not seen yet): wait
    // Passed: the latest served epoch is the new base.
    Served base = latest;
    m_served.clear();
    m_served.push_back(std::move(base));
    m_basePassed = true;
}

} // namespace qcm::sharding
