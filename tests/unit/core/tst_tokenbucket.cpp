// SPDX-License-Identifier: Apache-2.0
// TokenBucket: golang.org/x/time/rate's reservation arithmetic (rate_test.go's cases).
#include <qcm/tokenbucket.h>

#include <QtTest/QtTest>

#include <limits>

using namespace qcm;
using namespace std::chrono_literals;

class tst_TokenBucket : public QObject
{
    Q_OBJECT

private slots:
    void startsFull();
    void debtAndRefill();
    void allowDoesNotGoIntoDebt();
    void burstOverflowIsRefused();
    void infiniteLimit();
    void zeroLimit();
    void timeGoingBackwards();
};

static const TimePoint t0 = TimePoint(std::chrono::hours(100));

void tst_TokenBucket::startsFull()
{
    TokenBucket bucket(10, 3);
    QCOMPARE(bucket.tokensAt(t0), 3.0);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(bucket.reserve(t0), Duration::zero());
    QCOMPARE(bucket.reserve(t0), Duration(100ms));
}

void tst_TokenBucket::debtAndRefill()
{
    TokenBucket bucket(2, 1); // one token every 500 ms
    QCOMPARE(bucket.reserve(t0), Duration::zero());
    QCOMPARE(bucket.reserve(t0), Duration(500ms));
    QCOMPARE(bucket.reserve(t0), Duration(1s));
    // 250 ms later the debt is 2 - 0.5 = 1.5 tokens; one more waits (2.5 / 2) s.
    QCOMPARE(bucket.reserve(t0 + 250ms), Duration(1250ms));
    QCOMPARE(bucket.tokensAt(t0 + 10s), 1.0); // capped at burst
}

void tst_TokenBucket::allowDoesNotGoIntoDebt()
{
    TokenBucket bucket(1, 2);
    QVERIFY(bucket.allow(t0));
    QVERIFY(bucket.allow(t0));
    QVERIFY(!bucket.allow(t0));
    QVERIFY(!bucket.allow(t0 + 999ms));
    QVERIFY(bucket.allow(t0 + 1s));
}

void tst_TokenBucket::burstOverflowIsRefused()
{
    TokenBucket bucket(10, 2);
    QCOMPARE(bucket.reserve(t0, 3), TokenBucket::InfDuration);
    QCOMPARE(bucket.tokensAt(t0), 2.0); // nothing was taken
}

void tst_TokenBucket::infiniteLimit()
{
    TokenBucket bucket(std::numeric_limits<double>::max(), 0);
    for (int i = 0; i < 1000; ++i)
        QCOMPARE(bucket.reserve(t0), Duration::zero());
    QVERIFY(bucket.allow(t0, 100));
}

void tst_TokenBucket::zeroLimit()
{
    TokenBucket bucket(0, 1);
    QCOMPARE(bucket.reserve(t0), Duration::zero());
    QCOMPARE(bucket.reserve(t0 + 1h), TokenBucket::InfDuration);
}

void tst_TokenBucket::timeGoingBackwards()
{
    TokenBucket bucket(1, 1);
    QCOMPARE(bucket.reserve(t0), Duration::zero());
    // x/time/rate treats an earlier time as "no time has passed".
    QCOMPARE(bucket.reserve(t0 - 10s), Duration(1s));
}

QTEST_GUILESS_MAIN(tst_TokenBucket)
#include "tst_tokenbucket.moc"
