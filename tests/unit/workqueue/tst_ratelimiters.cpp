// SPDX-License-Identifier: Apache-2.0
// Rate limiters: client-go's util/workqueue/default_rate_limiters_test.go, plus the bound
// on the per-item failure maps that client-go lacks.
#include <qcm/fakeclock.h>
#include <qcm/workqueue/bucketratelimiter.h>
#include <qcm/workqueue/defaultratelimiters.h>
#include <qcm/workqueue/itemexponentialfailureratelimiter.h>
#include <qcm/workqueue/itemfastslowratelimiter.h>
#include <qcm/workqueue/maxofratelimiter.h>
#include <qcm/workqueue/withmaxwaitratelimiter.h>

#include <QtTest/QtTest>

using namespace qcm::workqueue;
using qcm::Duration;
using namespace std::chrono_literals;

class tst_RateLimiters : public QObject
{
    Q_OBJECT

private slots:
    void itemExponentialFailureRateLimiter();
    void itemExponentialFailureRateLimiterOverFlow();
    void itemExponentialFailureRateLimiterAtTheOverflowLine();
    void itemFastSlowRateLimiter();
    void maxOfRateLimiter();
    void withMaxWaitRateLimiter();
    void bucketRateLimiter();
    void defaultControllerRateLimiter();
    void exponentialMapIsBounded();
    void fastSlowMapIsBounded();
};

// TestItemExponentialFailureRateLimiter
void tst_RateLimiters::itemExponentialFailureRateLimiter()
{
    ItemExponentialFailureRateLimiter<QString> limiter(1ms, 1s);
    const QString one = QStringLiteral("one");
    const QString two = QStringLiteral("two");
    QCOMPARE(limiter.when(one), Duration(1ms));
    QCOMPARE(limiter.when(one), Duration(2ms));
    QCOMPARE(limiter.when(one), Duration(4ms));
    QCOMPARE(limiter.when(one), Duration(8ms));
    QCOMPARE(limiter.when(one), Duration(16ms));
    QCOMPARE(limiter.numRequeues(one), 5);
    QCOMPARE(limiter.when(two), Duration(1ms));
    QCOMPARE(limiter.when(two), Duration(2ms));
    QCOMPARE(limiter.numRequeues(two), 2);
    limiter.forget(one);
    QCOMPARE(limiter.numRequeues(one), 0);
    QCOMPARE(limiter.when(one), Duration(1ms));
}

// TestItemExponentialFailureRateLimiterOverFlow
void tst_RateLimiters::itemExponentialFailureRateLimiterOverFlow()
{
    ItemExponentialFailureRateLimiter<QString> limiter(1ms, 1000s);
    for (int i = 0; i < 5; ++i)
        limiter.when(QStringLiteral("one"));
    QCOMPARE(limiter.when(QStringLiteral("one")), Duration(32ms));
    for (int i = 0; i < 1000; ++i)
        limiter.when(QStringLiteral("overflow1"));
    QCOMPARE(limiter.when(QStringLiteral("overflow1")), Duration(1000s));

    ItemExponentialFailureRateLimiter<QString> hours(1min, 1000h);
    for (int i = 0; i < 2; ++i)
        hours.when(QStringLiteral("two"));
    QCOMPARE(hours.when(QStringLiteral("two")), Duration(4min));
    for (int i = 0; i < 1000; ++i)
        hours.when(QStringLiteral("overflow2"));
    QCOMPARE(hours.when(QStringLiteral("overflow2")), Duration(1000h));
}

// baseDelay * 2^failures is exact up to the last value under 2^63 ns, and maxDelay from there
// on; a zero baseDelay stays zero.
void tst_RateLimiters::itemExponentialFailureRateLimiterAtTheOverflowLine()
{
    const Duration max = Duration::max();
    ItemExponentialFailureRateLimiter<QString> unit(Duration(1), max);
    for (int i = 0; i < 62; ++i)
        unit.when(QStringLiteral("k"));
    QCOMPARE(unit.when(QStringLiteral("k")), Duration(Duration::rep(1) << 62));
    QCOMPARE(unit.when(QStringLiteral("k")), max); // 2^63 ns
    QCOMPARE(unit.when(QStringLiteral("k")), max);
    QCOMPARE(unit.numRequeues(QStringLiteral("k")), 65);

    ItemExponentialFailureRateLimiter<QString> three(Duration(3), max);
    for (int i = 0; i < 61; ++i)
        three.when(QStringLiteral("k"));
    QCOMPARE(three.when(QStringLiteral("k")), Duration(Duration::rep(3) << 61));
    QCOMPARE(three.when(QStringLiteral("k")), max); // 3 * 2^62 ns

    ItemExponentialFailureRateLimiter<QString> zero(Duration(0), 1s);
    for (int i = 0; i < 2000; ++i)
        QCOMPARE(zero.when(QStringLiteral("k")), Duration(0));
}

// TestItemFastSlowRateLimiter
void tst_RateLimiters::itemFastSlowRateLimiter()
{
    ItemFastSlowRateLimiter<QString> limiter(5ms, 10s, 3);
    const QString one = QStringLiteral("one");
    const QString two = QStringLiteral("two");
    QCOMPARE(limiter.when(one), Duration(5ms));
    QCOMPARE(limiter.when(one), Duration(5ms));
    QCOMPARE(limiter.when(one), Duration(5ms));
    QCOMPARE(limiter.when(one), Duration(10s));
    QCOMPARE(limiter.when(one), Duration(10s));
    QCOMPARE(limiter.numRequeues(one), 5);
    QCOMPARE(limiter.when(two), Duration(5ms));
    QCOMPARE(limiter.when(two), Duration(5ms));
    QCOMPARE(limiter.numRequeues(two), 2);
    limiter.forget(one);
    QCOMPARE(limiter.numRequeues(one), 0);
    QCOMPARE(limiter.when(one), Duration(5ms));
}

// TestMaxOfRateLimiter
void tst_RateLimiters::maxOfRateLimiter()
{
    auto limiter = MaxOfRateLimiter<QString>::of(
        std::make_unique<ItemFastSlowRateLimiter<QString>>(5ms, 3s, 3),
        std::make_unique<ItemExponentialFailureRateLimiter<QString>>(1ms, 1s));
    const QString one = QStringLiteral("one");
    const QString two = QStringLiteral("two");
    QCOMPARE(limiter->when(one), Duration(5ms));
    QCOMPARE(limiter->when(one), Duration(5ms));
    QCOMPARE(limiter->when(one), Duration(5ms));
    QCOMPARE(limiter->when(one), Duration(3s));
    QCOMPARE(limiter->when(one), Duration(3s));
    QCOMPARE(limiter->numRequeues(one), 5);
    QCOMPARE(limiter->when(two), Duration(5ms));
    QCOMPARE(limiter->when(two), Duration(5ms));
    QCOMPARE(limiter->numRequeues(two), 2);
    limiter->forget(one);
    QCOMPARE(limiter->numRequeues(one), 0);
    QCOMPARE(limiter->when(one), Duration(5ms));
}

// client-go's test-only StepRateLimiter: a global count, base delay up to a threshold.
class StepRateLimiter : public RateLimiter<int>
{
public:
    StepRateLimiter(Duration base, Duration max, int threshold)
        : m_base(base), m_max(max), m_threshold(threshold)
    { }
    Duration when(const int &) override { return ++m_count <= m_threshold ? m_base : m_max; }
    void forget(const int &) override { }
    int numRequeues(const int &) override { return 0; }

private:
    Duration m_base;
    Duration m_max;
    int m_threshold;
    int m_count = 0;
};

// TestWithMaxWaitRateLimiter
void tst_RateLimiters::withMaxWaitRateLimiter()
{
    WithMaxWaitRateLimiter<int> limiter(std::make_unique<StepRateLimiter>(5ms, 1000s, 100), 500s);
    for (int i = 0; i < 100; ++i)
        QCOMPARE(limiter.when(i), Duration(5ms));
    for (int i = 100; i < 200; ++i)
        QCOMPARE(limiter.when(i), Duration(500s));
}

// golang.org/x/time/rate: the bucket starts full, then hands out debt at 1/qps per token.
void tst_RateLimiters::bucketRateLimiter()
{
    qcm::FakeClock clock;
    BucketRateLimiter<QString> limiter(10, 100, &clock);
    for (int i = 0; i < 100; ++i)
        QCOMPARE(limiter.when(QStringLiteral("x")), Duration::zero());
    QCOMPARE(limiter.when(QStringLiteral("x")), Duration(100ms));
    QCOMPARE(limiter.when(QStringLiteral("y")), Duration(200ms));
    clock.step(1s); // ten tokens back: -2 + 10 = 8
    for (int i = 0; i < 8; ++i)
        QCOMPARE(limiter.when(QStringLiteral("x")), Duration::zero());
    QCOMPARE(limiter.when(QStringLiteral("x")), Duration(100ms));
    QCOMPARE(limiter.numRequeues(QStringLiteral("x")), 0);
}

// DefaultControllerRateLimiter: exponential per item, under an overall 10 qps bucket.
void tst_RateLimiters::defaultControllerRateLimiter()
{
    qcm::FakeClock clock;
    auto limiter = qcm::workqueue::defaultControllerRateLimiter<QString>(&clock);
    QCOMPARE(limiter->when(QStringLiteral("a")), Duration(5ms));
    QCOMPARE(limiter->when(QStringLiteral("a")), Duration(10ms));
    QCOMPARE(limiter->numRequeues(QStringLiteral("a")), 2);
    for (int i = 0; i < 98; ++i)
        limiter->when(QString::number(i));
    // The bucket is empty now: the 101st failure waits for a token.
    QCOMPARE(limiter->when(QStringLiteral("b")), Duration(100ms));
    limiter->forget(QStringLiteral("a"));
    QCOMPARE(limiter->numRequeues(QStringLiteral("a")), 0);
}

// client-go's maps grow forever without forget(); qcm's stop tracking new items at the
// bound and give them the slowest delay.
void tst_RateLimiters::exponentialMapIsBounded()
{
    ItemExponentialFailureRateLimiter<int> limiter(1ms, 1000s, 3);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(limiter.when(i), Duration(1ms));
    QCOMPARE(limiter.when(99), Duration(1000s));
    QCOMPARE(limiter.numRequeues(99), 0);
    QCOMPARE(limiter.when(0), Duration(2ms)); // tracked items are unaffected
    limiter.forget(1);
    QCOMPARE(limiter.when(99), Duration(1ms)); // room again
}

void tst_RateLimiters::fastSlowMapIsBounded()
{
    ItemFastSlowRateLimiter<int> limiter(5ms, 10s, 3, 2);
    QCOMPARE(limiter.when(1), Duration(5ms));
    QCOMPARE(limiter.when(2), Duration(5ms));
    QCOMPARE(limiter.when(3), Duration(10s));
    QCOMPARE(limiter.numRequeues(3), 0);
}

QTEST_GUILESS_MAIN(tst_RateLimiters)
#include "tst_ratelimiters.moc"
