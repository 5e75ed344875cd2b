// SPDX-License-Identifier: Apache-2.0
// HashRing and the placement functions: the same owners on every replica, an even spread,
// about 1/N of the keys moved by a join or a leave and only to or from that member, quotas
// that add up and differ by at most one, rendezvous order stable under a change.
#include <qcm/sharding/hashring.h>
#include <qcm/sharding/placement.h>

#include <QtTest/QtTest>

using namespace qcm::sharding;

class tst_HashRing : public QObject
{
    Q_OBJECT

private slots:
    void hashIsFixed();
    void sameMembersSameOwners();
    void emptyRingOwnsNothing();
    void spreadIsEven();
    void aJoinMovesAboutOneNthToTheNewMember();
    void aLeaveMovesOnlyTheLeaversKeys();
    void quotasAddUpAndDifferByAtMostOne();
    void rendezvousOrderIsStable();
    void assignmentHoldsEveryControllerOnceWithinQuota();
    void assignmentIsTheSameEverywhere();
    void aJoinMovesFewControllers();
    void placementCandidatesAreTheOldestEmulationVersion();
};

namespace {

QStringList keys(int n)
{
    QStringList result;
    for (int i = 0; i < n; ++i)
        result.append(QStringLiteral("namespace-%1/object-%2").arg(i % 37).arg(i));
    return result;
}

} // namespace

void tst_HashRing::hashIsFixed()
{
    // Pinned: every replica of a group, whatever its build, must compute the same ring. A
    // change of these values is a change of the protocol (docs/scale-out.md). The values
    // were checked against an independent Python implementation of FNV-1a + splitmix64.
    QCOMPARE(hash64(u""), Q_UINT64_C(0xf52a15e9a9b5e89b));
    QCOMPARE(hash64(u"default/foo"), Q_UINT64_C(0xe1aa84e0b0a134e2));
    QVERIFY(hash64(u"a") != hash64(u"b"));
    QCOMPARE(hash64(QStringLiteral("ü")), hash64(QString::fromUtf8("\xc3\xbc")));
    // The same bytes as QString::toUtf8(), without building them: two-, three- and four-byte
    // characters, and unpaired surrogates ('?', as toUtf8() writes them).
    const auto viaUtf8 = [](const QString &text) {
        quint64 h = 14695981039346656037ull;
        for (const char c : text.toUtf8()) {
            h ^= quint8(c);
            h *= 1099511628211ull;
        }
        h ^= h >> 30;
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 27;
        h *= 0x94d049bb133111ebull;
        h ^= h >> 31;
        return h;
    };
    const QChar lone[] = {QChar(0xD800), QChar(u'a'), QChar(0xDC00)};
    for (const QString &text : {QStringLiteral("ns/ü-名前"), QString::fromUcs4(U"🙂/key", 5),
             QString(lone, 3), QString(QChar(0xD83D))})
        QCOMPARE(hash64(text), viaUtf8(text));
}

void tst_HashRing::sameMembersSameOwners()
{
    const HashRing a({QStringLiteral("qcm-0"), QStringLiteral("qcm-1"), QStringLiteral("qcm-2")});
    const HashRing b({QStringLiteral("qcm-2"), QStringLiteral("qcm-0"), QStringLiteral("qcm-1"),
        QStringLiteral("qcm-0")});
    QCOMPARE(b.members(), a.members());
    for (const QString &key : keys(2000))
        QCOMPARE(b.owner(key), a.owner(key));
    QVERIFY(a.owns(a.owner(u"default/foo"), u"default/foo"));
    QVERIFY(!a.owns(QString(), u"default/foo"));
}

void tst_HashRing::emptyRingOwnsNothing()
{
    QVERIFY(HashRing().owner(u"default/foo").isEmpty());
    QVERIFY(HashRing({QString()}).isEmpty());
}

void tst_HashRing::spreadIsEven()
{
    for (int n : {2, 3, 5}) {
        QStringList members;
        for (int i = 0; i < n; ++i)
            members.append(QStringLiteral("qcm-controller-manager-%1").arg(i));
        const HashRing ring(members);
        QHash<QString, int> count;
        const QStringList all = keys(30000);
        for (const QString &key : all)
            ++count[ring.owner(key)];
        QCOMPARE(count.size(), n);
        for (auto it = count.cbegin(); it != count.cend(); ++it) {
            const double share = double(it.value()) * n / all.size();
            // 100 virtual nodes: within about 20% of the fair share.
            QVERIFY2(share > 0.8 && share < 1.2,
                qPrintable(QStringLiteral("%1 of %2 members holds %3 of a fair share")
                               .arg(it.key())
                               .arg(n)
                               .arg(share)));
        }
    }
}

void tst_HashRing::aJoinMovesAboutOneNthToTheNewMember()
{
    const QStringList three {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")};
    const HashRing before(three);
    const HashRing after(three + QStringList {QStringLiteral("d")});
    int moved = 0;
    const QStringList all = keys(20000);
    for (const QString &key : all) {
        if (before.owner(key) != after.owner(key)) {
            ++moved;
            QCOMPARE(after.owner(key), QStringLiteral("d")); // only to the new member
        }
    }
    const double fraction = double(moved) / all.size();
    QVERIFY2(fraction > 0.18 && fraction < 0.32, qPrintable(QString::number(fraction)));
}

void tst_HashRing::aLeaveMovesOnlyTheLeaversKeys()
{
    const HashRing before({QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")});
    const HashRing after({QStringLiteral("a"), QStringLiteral("c")});
    for (const QString &key : keys(20000))
        if (before.owner(key) != QLatin1String("b"))
            QCOMPARE(after.owner(key), before.owner(key));
}

void tst_HashRing::quotasAddUpAndDifferByAtMostOne()
{
    for (int n = 1; n <= 6; ++n) {
        QStringList members;
        for (int i = 0; i < n; ++i)
            members.append(QStringLiteral("member-%1").arg(i));
        for (int c = 0; c <= 13; ++c) {
            int sum = 0;
            int low = c;
            int high = 0;
            for (const QString &m : std::as_const(members)) {
                const int q = controllerQuota(members, m, c);
                sum += q;
                low = std::min(low, q);
                high = std::max(high, q);
            }
            QCOMPARE(sum, c);
            QVERIFY(high - low <= 1);
            QCOMPARE(high, (c + n - 1) / n);
        }
    }
    QCOMPARE(controllerQuota({QStringLiteral("a")}, QStringLiteral("stranger"), 5), 0);
    // The same answer whatever order the members come in.
    const QStringList abc {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")};
    const QStringList cab {QStringLiteral("c"), QStringLiteral("a"), QStringLiteral("b")};
    for (const QString &m : abc)
        QCOMPARE(controllerQuota(cab, m, 4), controllerQuota(abc, m, 4));
}

void tst_HashRing::rendezvousOrderIsStable()
{
    QStringList controllers;
    for (int i = 0; i < 12; ++i)
        controllers.append(QStringLiteral("controller-%1").arg(i));
    const QStringList order = rendezvousOrder(QStringLiteral("member-0"), controllers);
    QCOMPARE(order.size(), controllers.size());
    QStringList reversed(controllers.crbegin(), controllers.crend());
    QCOMPARE(rendezvousOrder(QStringLiteral("member-0"), reversed), order);
    // Without one controller, the others keep their order.
    QStringList fewer = controllers;
    fewer.removeAt(5);
    QStringList expected = order;
    expected.removeAll(QStringLiteral("controller-5"));
    QCOMPARE(rendezvousOrder(QStringLiteral("member-0"), fewer), expected);
    // Another member ranks them differently (else every member would release the same ones).
    QVERIFY(rendezvousOrder(QStringLiteral("member-1"), controllers) != order);
}

namespace {

QStringList names(const char *prefix, int n)
{
    QStringList out;
    for (int i = 0; i < n; ++i)
        out << QStringLiteral("%1-%2").arg(QLatin1String(prefix)).arg(i);
    return out;
}

} // namespace

// Every controller on exactly one member, each member at its quota, max - min <= 1.
void tst_HashRing::assignmentHoldsEveryControllerOnceWithinQuota()
{
    for (int n = 1; n <= 6; ++n) {
        for (int c = 0; c <= 13; ++c) {
            const QStringList members = names("member", n);
            const QStringList controllers = names("controller", c);
            const QMap<QString, QStringList> held = assignControllers(members, controllers);
            QCOMPARE(held.size(), n);
            QStringList all;
            int most = 0;
            int least = c;
            for (const QString &member : members) {
                const QStringList mine = held.value(member);
                QCOMPARE(mine.size(), controllerQuota(members, member, c));
                all += mine;
                most = std::max(most, int(mine.size()));
                least = std::min(least, int(mine.size()));
            }
            all.sort();
            QStringList expected = controllers;
            expected.sort();
            QCOMPARE(all, expected);
            QVERIFY(most - least <= 1);
        }
    }
    QVERIFY(assignControllers({}, names("controller", 3)).isEmpty());
}

// The order of the lists, empty and repeated members change nothing: every member computes
// the same placement.
void tst_HashRing::assignmentIsTheSameEverywhere()
{
    const QStringList members = names("member", 4);
    const QStringList controllers = names("controller", 9);
    QStringList shuffled {members[2], QString(), members[0], members[3], members[1], members[0]};
    QStringList backwards = controllers;
    std::reverse(backwards.begin(), backwards.end());
    QCOMPARE(assignControllers(shuffled, backwards), assignControllers(members, controllers));
}

// A join moves the controllers the newcomer takes, and few others: over 40 sets of controller
// names and joins from 2 to 5 members, the controllers that moved between the members who
// were there are at most half as many as those the newcomers took (146 against 440 when
// written).
void tst_HashRing::aJoinMovesFewControllers()
{
    int taken = 0;
    int shuffled = 0;
    for (int set = 0; set < 40; ++set) {
        const QStringList controllers = names(qPrintable(QStringLiteral("set%1-c").arg(set)), 12);
        for (int n = 2; n <= 5; ++n) {
            const QMap<QString, QStringList> before = assignControllers(names("m", n), controllers);
            const QMap<QString, QStringList> after
                = assignControllers(names("m", n + 1), controllers);
            taken += int(after.value(QStringLiteral("m-%1").arg(n)).size());
            for (const QString &member : names("m", n))
                for (const QString &controller : before.value(member))
                    shuffled += !after.value(member).contains(controller)
                        && !after.value(QStringLiteral("m-%1").arg(n)).contains(controller);
        }
    }
    QVERIFY2(shuffled * 2 <= taken,
        qPrintable(QStringLiteral("%1 moved between old members, %2 taken by newcomers")
                       .arg(shuffled)
                       .arg(taken)));
}

// Coordinated election in controller scope places only on the members of the oldest emulation
// version; unreadable versions count only when no member has a readable one.
void tst_HashRing::placementCandidatesAreTheOldestEmulationVersion()
{
    const QString a = QStringLiteral("a"), b = QStringLiteral("b"), c = QStringLiteral("c");
    QCOMPARE(oldestEmulationVersion({{a, QStringLiteral("0.1.0")}, {b, QStringLiteral("0.0.9")},
                 {c, QStringLiteral("0.0.9")}}),
        (QStringList {b, c}));
    QCOMPARE(oldestEmulationVersion({{a, QStringLiteral("0.1.0")}, {b, QStringLiteral("0.1.0")}}),
        (QStringList {a, b}));
    QCOMPARE(oldestEmulationVersion(
                 {{a, QStringLiteral("0.1.0")}, {b, QString()}, {c, QStringLiteral("v0.0.1")}}),
        QStringList {a});
    QCOMPARE(
        oldestEmulationVersion({{b, QString()}, {a, QStringLiteral("x")}}), (QStringList {a, b}));
    QCOMPARE(
        oldestEmulationVersion({{a, QStringLiteral("1.0.0")}, {b, QStringLiteral("1.0.0-rc.1")}}),
        QStringList {b});
    QVERIFY(oldestEmulationVersion({}).isEmpty());
}

QTEST_MAIN(tst_HashRing)
#include "tst_hashring.moc"
