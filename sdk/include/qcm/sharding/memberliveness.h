// SPDX-License-Identifier: Apache-2.0
// MemberLiveness: which members of a scale-out group are alive, as one observer sees them
// (docs/scale-out.md, "Terms"). A member is alive while its membership Lease names it as
// holder and this observer saw the Lease change within the Lease's own leaseDurationSeconds,
// on the observer's monotonic clock; a Lease seen for the first time counts as just changed.
// That is the LeaderElector's rule for a lease it observes, and it never reads the writer's
// wall clock (renewTime), so clock skew between replicas changes nothing.
//
// Thread safety: a value; not synchronized.
#pragma once

#include <qcm/clock.h>

#include <QtCore/QHash>
#include <QtCore/QStringList>

#include <optional>

namespace qcm::sharding {

class QCM_SDK_EXPORT MemberLiveness
{
public:
    // A membership Lease as read: its name (the cache key), the holder it names, its spec as
    // raw bytes (to see it change: every renewal writes a new renewTime) and its
    // leaseDurationSeconds.
    void observe(const QString &lease, const QString &holder, const QByteArray &rawSpec,
        Duration leaseDuration, TimePoint now);
    // The Lease was deleted (a graceful leave).
    void forget(const QString &lease);

    // The alive members' identities, sorted, without duplicates.
    QStringList alive(TimePoint now) const;
    bool isAlive(const QString &identity, TimePoint now) const;
    // When the next alive member expires unless its Lease changes; nullopt when none is alive.
    std::optional<TimePoint> nextExpiry(TimePoint now) const;

    // The Leases that name a holder and have expired: what the observer saw last of each.
    struct Expired
    {
        QString lease;
        QString holder;
        QByteArray rawSpec;
    };
    QList<Expired> expired(TimePoint now) const;

private:
    struct Seen
    {
        QString holder;
        QByteArray rawSpec;
        Duration leaseDuration {0};
        TimePoint changedAt;
        TimePoint expiresAt() const { return changedAt + leaseDuration; }
    };
    QHash<QString, Seen> m_leases;
};

} // namespace qcm::sharding
