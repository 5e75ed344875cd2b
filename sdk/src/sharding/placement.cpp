// SPDX-License-Identifier: Apache-2.0
#include <qcm/sharding/placement.h>

#include <qcm/leaderelection/leasecandidate.h>
#include <qcm/sharding/hashring.h>

#include <QtCore/QSet>

#include <algorithm>
#include <vector>

namespace qcm::sharding {

namespace {

// Sorted, unique, non-empty.
QStringList distinct(QStringList members)
{
    members.removeAll(QString());
    members.sort();
    members.erase(std::unique(members.begin(), members.end()), members.end());
    return members;
}

quint64 score(const QString &member, const QString &controller)
{
    return hash64(QString(member + QLatin1Char('/') + controller));
}

} // namespace

int controllerQuota(const QStringList &members, const QString &member, qsizetype controllers)
{
    QStringList ranked = distinct(members);
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
    std::sort(controllers.begin(), controllers.end(), [&](const QString &a, const QString &b) {
        const quint64 sa = score(member, a);
        const quint64 sb = score(member, b);
        return sa != sb ? sa > sb : a < b;
    });
    return controllers;
}

QMap<QString, QStringList> assignControllers(
    const QStringList &members, const QStringList &controllers)
{
    const QStringList ranked = distinct(members);
    const QStringList names = distinct(controllers);
    QMap<QString, QStringList> held;
    QMap<QString, int> left;
    for (const QString &member : ranked) {
        held.insert(member, {});
        left.insert(member, controllerQuota(ranked, member, names.size()));
    }
    // Every (member, controller) pair by its score, highest first: a pair is taken when the
    // controller is still free and the member has quota left, so that strong affinities hold.
    struct Pair
    {
        quint64 score;
        QString member;
        QString controller;
    };
    std::vector<Pair> pairs;
    for (const QString &member : ranked)
        for (const QString &controller : names)
            pairs.push_back({score(member, controller), member, controller});
    std::sort(pairs.begin(), pairs.end(), [](const Pair &a, const Pair &b) {
        if (a.score != b.score)
            return a.score > b.score;
        return a.member != b.member ? a.member < b.member : a.controller < b.controller;
    });
    QSet<QString> taken;
    for (const Pair &pair : pairs) {
        if (taken.contains(pair.controller) || left.value(pair.member) == 0)
            continue;
        taken.insert(pair.controller);
        held[pair.member] << pair.controller;
        --left[pair.member];
    }
    for (QStringList &mine : held)
        mine.sort();
    return held;
}

QStringList oldestEmulationVersion(const QMap<QString, QString> &versions)
{
    QStringList oldest;
    QString version;
    for (auto it = versions.cbegin(); it != versions.cend(); ++it) {
        const std::optional<int> c = version.isEmpty()
            ? leaderelection::LeaseCandidate::compareVersions(it.value(), it.value())
            : leaderelection::LeaseCandidate::compareVersions(it.value(), version);
        if (!c || it.key().isEmpty())
            continue; // unreadable
        if (version.isEmpty() || *c < 0) {
            oldest = {it.key()};
            version = it.value();
        } else if (*c == 0) {
            oldest << it.key();
        }
    }
    return oldest.isEmpty() ? distinct(versions.keys()) : oldest;
}

} // namespace qcm::sharding
