// SPDX-License-Identifier: Apache-2.0
// MemberLiveness: alive while the Lease changed within its leaseDuration on the observer's
// clock; the writer's renewTime plays no part; a released or deleted Lease is not alive.
#include <qcm/sharding/memberliveness.h>

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::sharding;
using namespace std::chrono_literals;

class tst_MemberLiveness : public QObject
{
    Q_OBJECT

private slots:
    void aliveUntilTheLeaseStopsChanging();
    void theWritersClockPlaysNoPart();
    void releasedAndDeletedLeasesAreNotAlive();
    void nextExpiryIsTheEarliest();
};

namespace {

const TimePoint T0 {std::chrono::seconds(1000)};

QByteArray spec(int renewal)
{
    return QByteArray(R"({"holderIdentity":"a","renewTime":")") + QByteArray::number(renewal)
        + "\"}";
}

} // namespace

void tst_MemberLiveness::aliveUntilTheLeaseStopsChanging()
{
    MemberLiveness live;
    live.observe(QStringLiteral("g-a"), QStringLiteral("a"), spec(1), 15s, T0);
    QCOMPARE(live.alive(T0), QStringList {QStringLiteral("a")}); // first seen: just changed
    // The same spec again (an informer resync) does not refresh it.
    live.observe(QStringLiteral("g-a"), QStringLiteral("a"), spec(1), 15s, T0 + 10s);
    QVERIFY(live.isAlive(QStringLiteral("a"), T0 + 14s));
    QVERIFY(!live.isAlive(QStringLiteral("a"), T0 + 15s));
    QVERIFY(live.alive(T0 + 15s).isEmpty());
    const auto expired = live.expired(T0 + 15s);
    QCOMPARE(expired.size(), 1);
    QCOMPARE(expired[0].lease, QStringLiteral("g-a"));
    QCOMPARE(expired[0].holder, QStringLiteral("a"));
    QCOMPARE(expired[0].rawSpec, spec(1));
    QVERIFY(live.expired(T0 + 14s).isEmpty());
    // A renewal seen later makes it alive again, from the moment it was seen.
    live.observe(QStringLiteral("g-a"), QStringLiteral("a"), spec(2), 15s, T0 + 20s);
    QVERIFY(live.isAlive(QStringLiteral("a"), T0 + 34s));
    QVERIFY(!live.isAlive(QStringLiteral("a"), T0 + 35s));
}

void tst_MemberLiveness::theWritersClockPlaysNoPart()
{
    // The spec's renewTime says "long ago"; what counts is when this observer saw it change.
    MemberLiveness live;
    live.observe(QStringLiteral("g-b"), QStringLiteral("b"),
        R"({"holderIdentity":"b","renewTime":"1970-01-01T00:00:00.000000Z"})", 10s, T0);
    QVERIFY(live.isAlive(QStringLiteral("b"), T0 + 9s));
    QVERIFY(!live.isAlive(QStringLiteral("b"), T0 + 10s));
}

void tst_MemberLiveness::releasedAndDeletedLeasesAreNotAlive()
{
    MemberLiveness live;
    live.observe(QStringLiteral("g-a"), QStringLiteral("a"), spec(1), 15s, T0);
    live.observe(QStringLiteral("g-b"), QStringLiteral("b"), spec(1), 15s, T0);
    QCOMPARE(live.alive(T0), (QStringList {QStringLiteral("a"), QStringLiteral("b")}));
    live.observe(QStringLiteral("g-a"), QString(), R"({"holderIdentity":""})", 1s, T0 + 1s);
    QCOMPARE(live.alive(T0 + 1s), QStringList {QStringLiteral("b")});
    live.forget(QStringLiteral("g-b"));
    QVERIFY(live.alive(T0 + 1s).isEmpty());
    QVERIFY(!live.isAlive(QString(), T0 + 1s));
}

void tst_MemberLiveness::nextExpiryIsTheEarliest()
{
    MemberLiveness live;
    QVERIFY(!live.nextExpiry(T0));
    live.observe(QStringLiteral("g-a"), QStringLiteral("a"), spec(1), 15s, T0);
    live.observe(QStringLiteral("g-b"), QStringLiteral("b"), spec(1), 15s, T0 + 5s);
    QCOMPARE(live.nextExpiry(T0 + 5s), std::optional<TimePoint>(T0 + 15s));
    QCOMPARE(live.nextExpiry(T0 + 15s), std::optional<TimePoint>(T0 + 20s)); // a expired
    QVERIFY(!live.nextExpiry(T0 + 20s));
}

QTEST_APPLESS_MAIN(tst_MemberLiveness)
#include "tst_memberliveness.moc"
