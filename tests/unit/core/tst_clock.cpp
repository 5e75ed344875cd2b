// SPDX-License-Identifier: Apache-2.0
// Clock and FakeClock: timers fire in deadline order, stop() really stops, re-arming works.
#include <qcm/fakeclock.h>

#include <QtTest/QtTest>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace qcm;
using namespace std::chrono_literals;

class tst_Clock : public QObject
{
    Q_OBJECT

private slots:
    void fakeTimersFireInDeadlineOrder();
    void fakeTimerResetReplacesDeadline();
    void fakeTimerRearmFromCallback();
    void stopFromCallbackDoesNotDeadlock();
    void destroyingATimerStopsIt();
    void systemTimerFires();
    void systemStopWaitsForRunningCallback();
};

void tst_Clock::fakeTimersFireInDeadlineOrder()
{
    FakeClock clock;
    QStringList fired;
    auto a = clock.newTimer([&] { fired << QStringLiteral("a"); });
    auto b = clock.newTimer([&] { fired << QStringLiteral("b"); });
    auto c = clock.newTimer([&] { fired << QStringLiteral("c"); });
    const TimePoint t0 = clock.now();
    a->reset(t0 + 30ms);
    b->reset(t0 + 10ms);
    c->reset(t0 + 20ms);
    QCOMPARE(clock.waiterCount(), 3);
    clock.step(15ms);
    QCOMPARE(fired, QStringList {QStringLiteral("b")});
    clock.step(15ms);
    QCOMPARE(fired, (QStringList {QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("a")}));
    QVERIFY(!clock.hasWaiters());
}

void tst_Clock::fakeTimerResetReplacesDeadline()
{
    FakeClock clock;
    int fired = 0;
    auto t = clock.newTimer([&] { ++fired; });
    t->reset(clock.now() + 10ms);
    t->reset(clock.now() + 50ms);
    QCOMPARE(clock.waiterCount(), 1);
    clock.step(20ms);
    QCOMPARE(fired, 0);
    clock.step(30ms);
    QCOMPARE(fired, 1);
    t->reset(clock.now() + 1ms);
    t->stop();
    clock.step(1s);
    QCOMPARE(fired, 1);
}

void tst_Clock::fakeTimerRearmFromCallback()
{
    FakeClock clock;
    int fired = 0;
    std::unique_ptr<Timer> t;
    t = clock.newTimer([&] {
        ++fired;
        t->reset(clock.now() + 10ms);
    });
    t->reset(clock.now() + 10ms);
    for (int i = 0; i < 5; ++i)
        clock.step(10ms);
    QCOMPARE(fired, 5);
}

void tst_Clock::stopFromCallbackDoesNotDeadlock()
{
    FakeClock clock;
    std::unique_ptr<Timer> t;
    int fired = 0;
    t = clock.newTimer([&] {
        ++fired;
        t->stop();
    });
    t->reset(clock.now());
    clock.step(0ns);
    QCOMPARE(fired, 1);
}

void tst_Clock::destroyingATimerStopsIt()
{
    FakeClock clock;
    int fired = 0;
    clock.newTimer([&] { ++fired; })->reset(clock.now() + 1ms);
    QVERIFY(!clock.hasWaiters());
    clock.step(1s);
    QCOMPARE(fired, 0);
}

void tst_Clock::systemTimerFires()
{
    std::mutex m;
    std::condition_variable cv;
    bool fired = false;
    auto t = Clock::system()->newTimer([&] {
        std::lock_guard lock(m);
        fired = true;
        cv.notify_all();
    });
    const TimePoint start = Clock::system()->now();
    t->reset(start + 20ms);
    std::unique_lock lock(m);
    QVERIFY(cv.wait_for(lock, 10s, [&] { return fired; }));
    QVERIFY(Clock::system()->since(start) >= 20ms);
}

// stop() from another thread returns only once a running callback has finished.
void tst_Clock::systemStopWaitsForRunningCallback()
{
    std::atomic<bool> entered {false};
    std::atomic<bool> release {false};
    std::atomic<bool> finished {false};
    auto t = Clock::system()->newTimer([&] {
        entered = true;
        while (!release)
            std::this_thread::yield();
        finished = true;
    });
    t->reset(Clock::system()->now());
    while (!entered)
        std::this_thread::yield();
    std::thread releaser([&] {
        std::this_thread::sleep_for(20ms);
        release = true;
    });
    t->stop();
    QVERIFY(finished.load());
    releaser.join();
}

QTEST_GUILESS_MAIN(tst_Clock)
#include "tst_clock.moc"
