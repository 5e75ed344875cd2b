// SPDX-License-Identifier: Apache-2.0
// HashRing: which member of a scale-out group owns a key (docs/scale-out.md, "The ring of an
// epoch"). Consistent hashing with virtual nodes: each member has `virtualNodes` points on a
// 64-bit circle at hash64(identity + "#" + i), and a key belongs to the member whose point
// follows hash64(shardKey) on the circle. A member joining or leaving moves about 1/N of the
// keys, and every replica that builds a ring from the same members computes the same owners
// (the hash is fixed, not seeded per process as qHash is).
//
// Thread safety: a value; const methods are safe from any thread.
#pragma once

#include <qcm/global.h>

#include <QtCore/QStringList>

#include <utility>
#include <vector>

namespace qcm::sharding {

// A fixed 64-bit hash of the UTF-8 bytes of `text` (FNV-1a, then splitmix64's finalizer for
// an even spread of nearby inputs). The same on every replica, build and architecture.
QCM_SDK_EXPORT quint64 hash64(QStringView text);

class QCM_SDK_EXPORT HashRing
{
public:
    static constexpr int DefaultVirtualNodes = 100;

    HashRing() = default;
    // `members` in any order; duplicates count once.
    explicit HashRing(const QStringList &members, int virtualNodes = DefaultVirtualNodes);

    // The owner of `shardKey`; empty when the ring has no members.
    QString owner(QStringView shardKey) const;
    bool owns(const QString &member, QStringView shardKey) const
    {
        return !member.isEmpty() && owner(shardKey) == member;
    }
    // Sorted, without duplicates.
    const QStringList &members() const { return m_members; }
    bool isEmpty() const { return m_members.isEmpty(); }

private:
    QStringList m_members;
    std::vector<std::pair<quint64, int>> m_points; // (point, index into m_members), sorted
};

} // namespace qcm::sharding
