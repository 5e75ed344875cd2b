// SPDX-License-Identifier: Apache-2.0
#include <qcm/sharding/shardgate.h>

#include <QtCore/QSet>

#include <limits>

namespace qcm::sharding {

ShardGate::ShardGate(QString incarnation, int virtualNodes)
    : m_incarnation(std::move(incarnation))
    , m_identity(identityOf(m_incarnation).toString())
    , m_virtualNodes(virtualNodes)
{ }

void ShardGate::setEpoch(const Epoch &epoch)
{
    if (!m_chain.empty() && epoch.number <= m_chain.back().epoch.number)
        return;
    QStringList identities;
    identities.reserve(epoch.members.size());
    for (const QString &member : epoch.members) {
        const QStringView identity = identityOf(member);
        if (identity == m_identity && member != m_incarnation)
            return; // lists an earlier incarnation of this member (or none yet): not served
        identities.append(identity.toString());
    }
    if (!m_chain.empty()
        && (epoch.number != m_chain.back().epoch.number + 1
            || epoch.previous != m_chain.back().epoch.id)) {
        // A gap: epochs this member never read, whose lists it cannot know (or an epoch
        // written over another one than it read). Others will count its ack of this one as
        // having gone through them, so it starts again from nothing: no base, and no ack
        // before every reconcile in flight has ended.
        m_chain.clear();
        m_basePassed = false;
    }
    m_chain.push_back(Link {epoch, HashRing(identities, m_virtualNodes)});
}

void ShardGate::setGroup(
    const QHash<QString, quint64> &acks, const QStringList &alive, const QStringList &gone)
{
    QHash<QString, Ack> withIds;
    for (auto it = acks.cbegin(); it != acks.cend(); ++it)
        withIds.insert(it.key(), Ack {it.value(), {}});
    setGroup(withIds, alive, gone);
}

void ShardGate::setGroup(
    const QHash<QString, Ack> &acks, const QStringList &alive, const QStringList &gone)
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

bool ShardGate::ownedThroughout(QStringView shardKey) const
{
    for (const Link &link : m_chain)
        if (!ownsIn(link.ring, shardKey))
            return false;
    return !m_chain.empty();
}

bool ShardGate::mayStart(QStringView shardKey) const
{
    return m_basePassed && ownedThroughout(shardKey);
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
    return !m_chain.empty() && ownsIn(m_chain.back().ring, shardKey);
}

QStringList ShardGate::inFlightLost() const
{
    QStringList lost;
    for (auto it = m_inFlight.cbegin(); it != m_inFlight.cend(); ++it)
        if (!m_basePassed || !ownedThroughout(it.key()))
            lost.append(it.key());
    return lost;
}

std::optional<quint64> ShardGate::pendingAck() const
{
    if (m_chain.empty() || m_chain.back().epoch.number <= m_acked)
        return std::nullopt;
    if (!inFlightLost().isEmpty())
        return std::nullopt; // step 1: what it may not run any more finishes first
    return m_chain.back().epoch.number;
}

Ack ShardGate::ackOf(quint64 number) const
{
    for (const Link &link : m_chain)
        if (link.epoch.number == number)
            return Ack {number, link.epoch.id};
    return Ack {number, {}};
}

quint64 ShardGate::effective(const Ack &ack) const
{
    for (const Link &link : m_chain)
        if (link.epoch.number == ack.number)
            return link.epoch.id == ack.epoch ? ack.number : std::numeric_limits<quint64>::max();
    return ack.number;
}

bool ShardGate::acknowledged(quint64 epoch)
{
    if (epoch <= m_acked)
        return false;
    m_acked = epoch;
    checkBarrier();
    return true;
}

void ShardGate::reset(const QString &incarnation)
{
    m_incarnation = incarnation;
    m_identity = identityOf(incarnation).toString();
    m_chain.clear();
    m_basePassed = false;
    m_acked = 0;
}

qsizetype ShardGate::servedIndex() const
{
    for (qsizetype i = qsizetype(m_chain.size()) - 1; i >= 0; --i)
        if (m_chain[size_t(i)].epoch.number <= m_acked)
            return i;
    return -1;
}

quint64 ShardGate::servingEpoch() const
{
    const qsizetype i = servedIndex();
    return i < 0 ? 0 : m_chain[size_t(i)].epoch.number;
}

quint64 ShardGate::targetEpoch() const
{
    return m_chain.empty() ? 0 : m_chain.back().epoch.number;
}

quint64 ShardGate::baseEpoch() const
{
    return m_basePassed ? m_chain.front().epoch.number : 0;
}

void ShardGate::checkBarrier()
{
    const qsizetype served = servedIndex();
    if (served < 0 || (m_basePassed && served == 0))
        return;
    const Epoch &epoch = m_chain[size_t(served)].epoch;
    const quint64 e = epoch.number;
    QSet<QString> waitFor(epoch.members.cbegin(), epoch.members.cend());
    for (const QString &m : std::as_const(m_alive))
        waitFor.insert(m);
    for (const QString &m : std::as_const(m_gone))
        waitFor.remove(m);
    for (const QString &m : std::as_const(waitFor))
        if (effective(m_acks.value(m)) < e)
            return; // not acked (or not seen yet): wait
    for (auto it = m_acks.cbegin(); it != m_acks.cend(); ++it)
        if (effective(it.value()) > e && !m_gone.contains(it.key()))
            return; // someone entered a newer epoch (or another epoch of a number in the
                    // chain): this one is stale, read that one first. A member known gone
                    // runs nothing: its ack, whatever it is, holds nothing up.
    // Passed: the served epoch is the new base; the epochs read after it stay in the chain.
    m_chain.erase(m_chain.begin(), m_chain.begin() + served);
    m_basePassed = true;
}

} // namespace qcm::sharding
