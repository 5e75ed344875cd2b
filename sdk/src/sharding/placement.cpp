// SPDX-License-Identifier: Apache-2.0
#include <qcm/sharding/placement.h>

#include <qcm/sharding/hashring.h>

#include <algorithm>

namespace qcm::sharding {

int controllerQuota(const QStringList &members, const QString &member, qsizetype controllers)
{
    QStringList ranked = members;
    ranked.removeAll(QString());
    ranked.sort();
    ranked.erase(std::unique(ranked.begin(), ranked.end()), ranked.end());
    const qsizetype n = ranked.size();
    if (n == 0 || !ranked.contains(member) || controllers <= 0)
        return 0;
    std::stable_sort(ranked.begin(), ranked.end(),
        [](const QString &a, const QString &b) { return hash64(a) < hash64(b); });
    const qsizetype rank = ranked.indexOf(member);
    return int(controllers / n + (rank < controllers % n ? 1 : 0));
}

QStringList rendezvousOrder(const QString &member, QStringList controllers)
{
    const auto score = [&](const QString &controller) {
        return hash64(QString(member + QLatin1Char('/') + controller));
    };
    std::sort(controllers.begin(), controllers.end(), [&](const QString &a, const QString &b) {
        const quint64 sa = score(a);
        const quint64 sb = score(b);
        return sa != sb ? sa > sb : a < b;
    });
    return controllers;
}

} // namespace qcm::sharding
