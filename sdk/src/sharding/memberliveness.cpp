// SPDX-License-Identifier: Apache-2.0
#include <qcm/sharding/memberliveness.h>

#include <algorithm>

namespace qcm::sharding {

void MemberLiveness::observe(const QString &lease, const QString &holder, const QByteArray &rawSpec,
    Duration leaseDuration, TimePoint now)
{
    auto it = m_leases.find(lease);
    if (it == m_leases.end()) {
        m_leases.insert(lease, Seen {holder, rawSpec, leaseDuration, now});
        return;
    }
    if (it->rawSpec != rawSpec || it->holder != holder) {
        *it = Seen {holder, rawSpec, leaseDuration, now};
        return;
    }
    it->leaseDuration = leaseDuration; // unchanged spec, unchanged duration
}

void MemberLiveness::forget(const QString &lease)
{
    m_leases.remove(lease);
}

QStringList MemberLiveness::alive(TimePoint now) const
{
    QStringList result;
    for (const Seen &seen : m_leases)
        if (!seen.holder.isEmpty() && now < seen.expiresAt())
            result.append(seen.holder);
    result.sort();
    result.erase(std::unique(result.begin(), result.end()), result.end());
    return result;
}

bool MemberLiveness::isAlive(const QString &identity, TimePoint now) const
{
    for (const Seen &seen : m_leases)
        if (seen.holder == identity && !identity.isEmpty() && now < seen.expiresAt())
            return true;
    return false;
}

std::optional<TimePoint> MemberLiveness::nextExpiry(TimePoint now) const
{
    std::optional<TimePoint> next;
    for (const Seen &seen : m_leases)
        if (!seen.holder.isEmpty() && now < seen.expiresAt() && (!next || seen.expiresAt() < *next))
            next = seen.expiresAt();
    return next;
}

QList<MemberLiveness::Expired> MemberLiveness::expired(TimePoint now) const
{
    QList<Expired> result;
    for (auto it = m_leases.cbegin(); it != m_leases.cend(); ++it)
        if (!it->holder.isEmpty() && now >= it->expiresAt())
            result.append(Expired {it.key(), it->holder, it->rawSpec});
    return result;
}

} // namespace qcm::sharding
