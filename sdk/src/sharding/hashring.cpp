// SPDX-License-Identifier: Apache-2.0
#include <qcm/sharding/hashring.h>

#include <qcm/detail/keyhash.h>

#include <algorithm>

namespace qcm::sharding {

namespace {

constexpr quint64 FnvOffset = 14695981039346656037ull;
constexpr quint64 FnvPrime = 1099511628211ull;

inline void feed(quint64 &h, quint8 byte)
{
    h ^= byte;
    h *= FnvPrime;
}

} // namespace

quint64 hash64(QStringView text)
{
    // FNV-1a over the UTF-8 bytes, encoded here without allocating (this runs for every key
    // enqueued and started). An unpaired surrogate is '?', as QString::toUtf8() writes it.
    quint64 h = FnvOffset;
    const qsizetype n = text.size();
    for (qsizetype i = 0; i < n; ++i) {
        char32_t c = text[i].unicode();
        if (QChar::isHighSurrogate(c) && i + 1 < n && QChar::isLowSurrogate(text[i + 1].unicode()))
            c = QChar::surrogateToUcs4(char16_t(c), text[++i].unicode());
        else if (QChar::isSurrogate(c))
            c = u'?';
        if (c < 0x80) {
            feed(h, quint8(c));
        } else if (c < 0x800) {
            feed(h, quint8(0xC0 | (c >> 6)));
            feed(h, quint8(0x80 | (c & 0x3F)));
        } else if (c < 0x10000) {
            feed(h, quint8(0xE0 | (c >> 12)));
            feed(h, quint8(0x80 | ((c >> 6) & 0x3F)));
            feed(h, quint8(0x80 | (c & 0x3F)));
        } else {
            feed(h, quint8(0xF0 | (c >> 18)));
            feed(h, quint8(0x80 | ((c >> 12) & 0x3F)));
            feed(h, quint8(0x80 | ((c >> 6) & 0x3F)));
            feed(h, quint8(0x80 | (c & 0x3F)));
        }
    }
    // splitmix64's finalizer: FNV alone leaves keys that differ in their last byte close.
    return detail::splitMix64Finalize(h);
}

HashRing::HashRing(const QStringList &members, int virtualNodes) : m_members(members)
{
    m_members.removeAll(QString());
    m_members.sort();
    m_members.erase(std::unique(m_members.begin(), m_members.end()), m_members.end());
    virtualNodes = std::max(1, virtualNodes);
    m_points.reserve(size_t(m_members.size()) * size_t(virtualNodes));
    for (int m = 0; m < m_members.size(); ++m)
        for (int i = 0; i < virtualNodes; ++i)
            m_points.emplace_back(hash64(QStringLiteral("%1#%2").arg(m_members[m]).arg(i)), m);
    // Ties (two points at one place, which a 64-bit hash makes all but impossible) go to the
    // smaller identity, on every replica alike.
    std::sort(m_points.begin(), m_points.end());
}

QString HashRing::owner(QStringView shardKey) const
{
    if (m_points.empty())
        return {};
    const quint64 h = hash64(shardKey);
    auto it = std::lower_bound(m_points.begin(), m_points.end(), std::make_pair(h, 0));
    if (it == m_points.end())
        it = m_points.begin(); // past the last point: around the circle to the first
    return m_members[it->second];
}

} // namespace qcm::sharding
