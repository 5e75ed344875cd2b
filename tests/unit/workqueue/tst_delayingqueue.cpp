// SPDX-License-Identifier: Apache-2.0
// DelayingQueue: the behaviour of client-go's util/workqueue/delaying_queue_test.go, on a
// FakeClock. addAfter() is synchronous here, so no test polls or sleeps.
#include <qcm/fakeclock.h>
#include <qcm/workqueue/delayingqueue.h>

#include <QtTest/QtTest>

using qcm::FakeClock;
using qcm::workqueue::DelayingQueue;
using qcm::workqueue::QueueConfig;
using namespace std::chrono_literals;

class tst_DelayingQueue : public QObject
{
    Q_OBJECT

private slots:
    void simpleQueue();
    void deduping();
    void addTwoFireEarly();
    void copyShifting();
    void nonPositiveDelayAddsAtOnce();
    void oneTimerForManyItems();
    void heartbeatKeepsTheTimerArmed();
    void shutDownDropsWaitingItems();
    void realClock();

private:
    static QueueConfig config(FakeClock *clock)
    {
        QueueConfig c;
        c.clock = clock;
        return c;
    }
};

// TestSimpleQueue
void tst_DelayingQueue::simpleQueue()
{
    FakeClock clock;
    DelayingQueue<QString> q(config(&clock));
    q.addAfter(QStringLiteral("foo"), 50ms);
    QCOMPARE(q.waitingLen(), 1);
    QCOMPARE(q.len(), 0);
    clock.step(60ms);
    QCOMPARE(q.len(), 1);
    auto item = q.get();
    q.done(*item);
    // step past the next heartbeat
    clock.step(10s);
    QCOMPARE(q.len(), 0);
    QCOMPARE(q.waitingLen(), 0);
}

// TestDeduping: a second addAfter only ever moves the ready time earlier.
void tst_DelayingQueue::deduping()
{
    FakeClock clock;
    DelayingQueue<QString> q(config(&clock));
    const QString first = QStringLiteral("foo");
    q.addAfter(first, 50ms);
    q.addAfter(first, 70ms);
    QCOMPARE(q.waitingLen(), 1);
    clock.step(60ms); // the earlier time wins
    QCOMPARE(q.len(), 1);
    q.done(*q.get());
    clock.step(20ms); // nothing left from the later add
    QCOMPARE(q.len(), 0);

    q.addAfter(first, 70ms);
    q.addAfter(first, 50ms); // moves it earlier
    clock.step(60ms);
    QCOMPARE(q.len(), 1);
    q.done(*q.get());
    clock.step(20ms);
    QCOMPARE(q.len(), 0);
}

// TestAddTwoFireEarly
void tst_DelayingQueue::addTwoFireEarly()
{
    FakeClock clock;
    DelayingQueue<QString> q(config(&clock));
    const QString first = QStringLiteral("foo");
    const QString second = QStringLiteral("bar");
    const QString third = QStringLiteral("baz");
    q.addAfter(first, 1s);
    q.addAfter(second, 50ms);
    clock.step(60ms);
    QCOMPARE(q.len(), 1);
    QCOMPARE(*q.get(), second);
    q.addAfter(third, 2s);
    clock.step(1s);
    QCOMPARE(q.len(), 1);
    QCOMPARE(*q.get(), first);
    clock.step(2s);
    QCOMPARE(q.len(), 1);
    QCOMPARE(*q.get(), third);
}

// TestCopyShifting: items due together come out in ready-time order.
void tst_DelayingQueue::copyShifting()
{
    FakeClock clock;
    DelayingQueue<QString> q(config(&clock));
    q.addAfter(QStringLiteral("foo"), 1s);
    q.addAfter(QStringLiteral("bar"), 500ms);
    q.addAfter(QStringLiteral("baz"), 250ms);
    QCOMPARE(q.len(), 0);
    clock.step(2s);
    QCOMPARE(q.len(), 3);
    QCOMPARE(*q.get(), QStringLiteral("baz"));
    QCOMPARE(*q.get(), QStringLiteral("bar"));
    QCOMPARE(*q.get(), QStringLiteral("foo"));
}

void tst_DelayingQueue::nonPositiveDelayAddsAtOnce()
{
    FakeClock clock;
    DelayingQueue<QString> q(config(&clock));
    q.addAfter(QStringLiteral("now"), 0ns);
    q.addAfter(QStringLiteral("past"), -5s);
    QCOMPARE(q.len(), 2);
    QCOMPARE(q.waitingLen(), 0);
}

// One timer serves the whole heap: 1000 waiting items arm exactly one timer.
void tst_DelayingQueue::oneTimerForManyItems()
{
    FakeClock clock;
    DelayingQueue<int> q(config(&clock));
    const int before = clock.waiterCount();
    QCOMPARE(before, 1); // the heartbeat
    for (int i = 0; i < 1000; ++i)
        q.addAfter(i, std::chrono::milliseconds(1 + (i * 7919) % 5000));
    QCOMPARE(q.waitingLen(), 1000);
    QCOMPARE(clock.waiterCount(), 1);
    clock.step(5s);
    QCOMPARE(q.len(), 1000);
    // Items come out in ready-time order.
    int previousDelay = 0;
    for (int i = 0; i < 1000; ++i) {
        const int item = *q.get();
        const int delay = 1 + (item * 7919) % 5000;
        QVERIFY(delay >= previousDelay);
        previousDelay = delay;
    }
}

// The timer is re-armed every 10 s even when nothing waits, like client-go's heartbeat.
void tst_DelayingQueue::heartbeatKeepsTheTimerArmed()
{
    FakeClock clock;
    DelayingQueue<QString> q(config(&clock));
    for (int i = 0; i < 5; ++i) {
        clock.step(10s);
        QCOMPARE(clock.waiterCount(), 1);
    }
    q.addAfter(QStringLiteral("late"), 25s);
    clock.step(24s);
    QCOMPARE(q.len(), 0);
    clock.step(1s);
    QCOMPARE(q.len(), 1);
}

void tst_DelayingQueue::shutDownDropsWaitingItems()
{
    FakeClock clock;
    DelayingQueue<QString> q(config(&clock));
    q.addAfter(QStringLiteral("foo"), 1s);
    q.shutDown();
    QCOMPARE(clock.waiterCount(), 0);
    clock.step(2s);
    QCOMPARE(q.len(), 0);
    q.addAfter(QStringLiteral("bar"), 1s); // ignored after shutdown
    QCOMPARE(q.waitingLen(), 0);
    QCOMPARE(q.get(), std::nullopt);
}

// With the real clock, get() blocks until the delayed item is due.
void tst_DelayingQueue::realClock()
{
    DelayingQueue<QString> q;
    const auto start = std::chrono::steady_clock::now();
    q.addAfter(QStringLiteral("foo"), 30ms);
    QCOMPARE(*q.get(), QStringLiteral("foo"));
    QVERIFY(std::chrono::steady_clock::now() - start >= 30ms);
}

QTEST_GUILESS_MAIN(tst_DelayingQueue)
#include "tst_delayingqueue.moc"
