// SPDX-License-Identifier: Apache-2.0
// Mutex and WaitQueue (qcm/detail/mutex.h), the lock and wait under the work queues and FIFOs:
// no wake-up is lost and the lock excludes, with more threads than cores.
//
// noWakeupIsLost is the regression test of a lost wake-up (a notifier that counted out a
// waiter which then slept uncounted; see mutex.cpp). The window needs a notifier preempted
// between its two steps, so a natural run rarely opens it: with a 20-120 us pause put into
// notify() between them by hand, the old protocol failed the 2 x 2 case within seconds in
// both of two runs, and the new one passed it.
#include <qcm/detail/mutex.h>

#include <QtTest/QtTest>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

using namespace qcm::detail;
using namespace std::chrono_literals;

class tst_WaitQueue : public QObject
{
    Q_OBJECT

private slots:
    void noWakeupIsLost_data();
    void noWakeupIsLost();
    void notifyAllWakesEveryWaiter();
    void mutexExcludes();
};

namespace {

// Runs `threads`, then waits for them until `deadline`. A thread still blocked then is a lost
// wake-up: the test fails with `what` and exits, because it cannot join a thread that sleeps
// forever.
void joinBefore(std::vector<std::thread> &threads, std::atomic<int> &finished,
    std::chrono::steady_clock::duration deadline, const char *what)
{
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (finished.load() < int(threads.size())) {
        if (std::chrono::steady_clock::now() > end) {
            qCritical("FAIL: %s: %d of %d threads still blocked after %lld s", what,
                int(threads.size()) - finished.load(), int(threads.size()),
                qlonglong(std::chrono::duration_cast<std::chrono::seconds>(deadline).count()));
            std::_Exit(1);
        }
        std::this_thread::sleep_for(200us);
    }
    for (auto &t : threads)
        t.join();
}

} // namespace

void tst_WaitQueue::noWakeupIsLost_data()
{
    QTest::addColumn<int>("producers");
    QTest::addColumn<int>("consumers");
    QTest::newRow("1 producer, 1 consumer (a FIFO)") << 1 << 1;
    QTest::newRow("2 producers, 2 consumers (the queue benchmark)") << 2 << 2;
    QTest::newRow("4 producers, 4 consumers") << 4 << 4;
}

// Producers hand out tokens one at a time (notifyOne each), consumers take them (waiting while
// there are none). Every token must be taken: a consumer asleep while a token waits, with no
// wake-up coming, blocks the run. Each round is short, and there are many, because a lost
// wake-up needs a notifier preempted between its increment and its check of the sleepers.
void tst_WaitQueue::noWakeupIsLost()
{
    QFETCH(int, producers);
    QFETCH(int, consumers);
    constexpr int TokensPerRound = 20000;
    const auto runFor = 4s;
    const auto start = std::chrono::steady_clock::now();
    int rounds = 0;
    while (std::chrono::steady_clock::now() - start < runFor) {
        Mutex mutex;
        WaitQueue waitQueue;
        int tokens = 0; // guarded by mutex
        int waiters = 0; // consumers in wait(); guarded by mutex
        std::atomic<int> finished {0};
        std::vector<std::thread> threads;
        const int perProducer = TokensPerRound / producers;
        const int perConsumer = perProducer * producers / consumers;
        for (int c = 0; c < consumers; ++c) {
            threads.emplace_back([&] {
                for (int i = 0; i < perConsumer; ++i) {
                    std::unique_lock lock(mutex);
                    while (tokens == 0) {
                        ++waiters;
                        waitQueue.wait(lock);
                        --waiters;
                    }
                    --tokens;
                }
                ++finished;
            });
        }
        for (int p = 0; p < producers; ++p) {
            threads.emplace_back([&] {
                for (int i = 0; i < perProducer; ++i) {
                    std::unique_lock lock(mutex);
                    ++tokens;
                    const bool wake = waiters > 0; // as the work queue decides
                    lock.unlock();
                    if (wake)
                        waitQueue.notifyOne();
                }
                ++finished;
            });
        }
        joinBefore(threads, finished, 20s, "a consumer slept through a token");
        QCOMPARE(tokens, 0);
        ++rounds;
    }
    qInfo("%d rounds of %d tokens", rounds, TokensPerRound);
}

// notifyAll() wakes every waiter, also those that registered just before it.
void tst_WaitQueue::notifyAllWakesEveryWaiter()
{
    for (int round = 0; round < 500; ++round) {
        Mutex mutex;
        WaitQueue waitQueue;
        bool open = false; // guarded by mutex
        std::atomic<int> finished {0};
        std::vector<std::thread> threads;
        for (int w = 0; w < 4; ++w) {
            threads.emplace_back([&] {
                std::unique_lock lock(mutex);
                while (!open)
                    waitQueue.wait(lock);
                lock.unlock();
                ++finished;
            });
        }
        if (round % 2)
            std::this_thread::yield(); // sometimes before the waiters wait, sometimes after
        {
            std::lock_guard lock(mutex);
            open = true;
        }
        waitQueue.notifyAll();
        joinBefore(threads, finished, 20s, "a waiter slept through notifyAll()");
    }
}

// Four threads increment a plain counter under the lock; no increment is lost.
void tst_WaitQueue::mutexExcludes()
{
    Mutex mutex;
    qint64 counter = 0; // guarded by mutex
    std::vector<std::thread> threads;
    constexpr int PerThread = 200000;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < PerThread; ++i) {
                std::lock_guard lock(mutex);
                ++counter;
            }
        });
    }
    for (auto &t : threads)
        t.join();
    QCOMPARE(counter, qint64(4) * PerThread);
}

QTEST_GUILESS_MAIN(tst_WaitQueue)
#include "tst_waitqueue.moc"
