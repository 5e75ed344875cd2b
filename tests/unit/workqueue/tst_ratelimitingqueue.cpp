// SPDX-License-Identifier: Apache-2.0
// RateLimitingQueue: client-go's util/workqueue/rate_limiting_queue_test.go, observed through
// the queue on a FakeClock instead of through the internal channel.
#include <qcm/fakeclock.h>
#include <qcm/workqueue/itemexponentialfailureratelimiter.h>
#include <qcm/workqueue/ratelimitingqueue.h>

#include <QtTest/QtTest>

using namespace qcm::workqueue;
using namespace std::chrono_literals;

class tst_RateLimitingQueue : public QObject
{
    Q_OBJECT

private slots:
    void rateLimitingQueue();
    void processNextWorkItemPattern();
    void limiterRecordsEvenAfterShutDown();
};

static QueueConfig fakeConfig(qcm::FakeClock *clock)
{
    QueueConfig config;
    config.clock = clock;
    return config;
}

// TestRateLimitingQueue
void tst_RateLimitingQueue::rateLimitingQueue()
{
    qcm::FakeClock clock;
    RateLimitingQueue<QString> queue(
        std::make_unique<ItemExponentialFailureRateLimiter<QString>>(1ms, 1s), fakeConfig(&clock));
    const QString one = QStringLiteral("one");
    const QString two = QStringLiteral("two");

    queue.addRateLimited(one); // ready in 1 ms
    queue.addRateLimited(one); // 2 ms: the earlier time is kept
    QCOMPARE(queue.numRequeues(one), 2);
    queue.addRateLimited(two); // 1 ms
    queue.addRateLimited(two); // 2 ms
    QCOMPARE(queue.waitingLen(), 2);
    clock.step(999us);
    QCOMPARE(queue.len(), 0);
    clock.step(1us);
    QCOMPARE(queue.len(), 2);

    queue.forget(one);
    QCOMPARE(queue.numRequeues(one), 0);
    QCOMPARE(queue.numRequeues(two), 2);
    QCOMPARE(*queue.get(), one);
    queue.done(one);
    queue.addRateLimited(one); // back to the base delay
    clock.step(999us);
    QCOMPARE(queue.waitingLen(), 1);
    clock.step(1us);
    QCOMPARE(queue.waitingLen(), 0);
    QCOMPARE(queue.len(), 2);
}

// The seed's processNextWorkItem loop: forget on success, addRateLimited on error, done always.
void tst_RateLimitingQueue::processNextWorkItemPattern()
{
    qcm::FakeClock clock;
    RateLimitingQueue<QString> queue(
        std::make_unique<ItemExponentialFailureRateLimiter<QString>>(10ms, 1s), fakeConfig(&clock));
    queue.add(QStringLiteral("ns/a"));
    int attempts = 0;
    for (;;) {
        clock.step(1s);
        if (queue.len() == 0)
            break;
        const auto key = queue.get();
        const bool success = ++attempts == 4;
        if (success)
            queue.forget(*key);
        else
            queue.addRateLimited(*key);
        queue.done(*key);
    }
    QCOMPARE(attempts, 4);
    QCOMPARE(queue.numRequeues(QStringLiteral("ns/a")), 0);
}

// client-go computes when() before AddAfter checks for shutdown.
void tst_RateLimitingQueue::limiterRecordsEvenAfterShutDown()
{
    qcm::FakeClock clock;
    RateLimitingQueue<QString> queue(
        std::make_unique<ItemExponentialFailureRateLimiter<QString>>(1ms, 1s), fakeConfig(&clock));
    queue.shutDown();
    queue.addRateLimited(QStringLiteral("x"));
    QCOMPARE(queue.numRequeues(QStringLiteral("x")), 1);
    QCOMPARE(queue.waitingLen(), 0);
}

QTEST_GUILESS_MAIN(tst_RateLimitingQueue)
#include "tst_ratelimitingqueue.moc"
