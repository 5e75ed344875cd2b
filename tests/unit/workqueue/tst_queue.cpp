// SPDX-License-Identifier: Apache-2.0
// Queue: the behaviour of client-go's util/workqueue/queue_test.go.
#include <qcm/workqueue/queue.h>

#include <QtCore/QSharedPointer>
#include <QtTest/QtTest>

#include <atomic>
#include <map>
#include <thread>

using qcm::workqueue::Queue;
using namespace std::chrono_literals;

class tst_Queue : public QObject
{
    Q_OBJECT

private slots:
    void basic_data();
    void basic();
    void addWhileProcessing_data();
    void addWhileProcessing();
    void len();
    void reinsert();
    void collapse();
    void collapseWhileProcessing();
    void itemsQueuedBeforeShutDownAreStillHandedOut();
    void addAfterShutDownIsIgnored();
    void queueDrainageUsingShutDownWithDrain();
    void noQueueDrainageUsingShutDown();
    void forceQueueShutdownUsingShutDown();
    void forceShutdownRacesTheDrain();
    void queueDrainageUsingShutDownWithDrainWithDirtyItem();
    void garbageCollection();
    void doneOfAQueuedItemQueuesItTwiceLikeClientGo();
    void concurrentAddsKeepEachThreadsOrder();
    void oneWakeUpReachesEveryWaiter();
};

void tst_Queue::basic_data()
{
    QTest::addColumn<bool>("drain");
    QTest::newRow("ShutDown") << false;
    QTest::newRow("ShutDownWithDrain") << true;
}

// TestBasic: 50 producers, 10 consumers; nothing added after shutdown is handed out.
void tst_Queue::basic()
{
    QFETCH(bool, drain);
    Queue<int> queue;
    constexpr int producers = 50;
    constexpr int consumers = 10;
    constexpr int addedAfterShutdown = -1;
    std::atomic<int> badItems {0};
    std::vector<std::thread> producerThreads;
    for (int i = 0; i < producers; ++i) {
        producerThreads.emplace_back([&queue, i] {
            for (int j = 0; j < 50; ++j) {
                queue.add(i);
                std::this_thread::sleep_for(1ms);
            }
        });
    }
    std::vector<std::thread> consumerThreads;
    for (int i = 0; i < consumers; ++i) {
        consumerThreads.emplace_back([&] {
            while (auto item = queue.get()) {
                if (*item == addedAfterShutdown)
                    ++badItems;
                std::this_thread::sleep_for(3ms);
                queue.done(*item);
            }
        });
    }
    for (auto &t : producerThreads)
        t.join();
    drain ? queue.shutDownWithDrain() : queue.shutDown();
    queue.add(addedAfterShutdown);
    for (auto &t : consumerThreads)
        t.join();
    QCOMPARE(badItems.load(), 0);
    QCOMPARE(queue.len(), 0);
}

void tst_Queue::addWhileProcessing_data()
{
    basic_data();
}

// TestAddWhileProcessing: every worker re-adds every item once while processing it.
void tst_Queue::addWhileProcessing()
{
    QFETCH(bool, drain);
    Queue<int> queue;
    std::vector<std::thread> producers;
    for (int i = 0; i < 50; ++i)
        producers.emplace_back([&queue, i] { queue.add(i); });
    std::atomic<int> processed {0};
    std::vector<std::thread> consumers;
    for (int i = 0; i < 10; ++i) {
        consumers.emplace_back([&] {
            std::map<int, int> counters;
            while (auto item = queue.get()) {
                ++processed;
                if (++counters[*item] < 2)
                    queue.add(*item);
                queue.done(*item);
            }
        });
    }
    for (auto &t : producers)
        t.join();
    // Let the consumers go through the re-adds before shutting down.
    while (queue.len() > 0)
        std::this_thread::yield();
    drain ? queue.shutDownWithDrain() : queue.shutDown();
    for (auto &t : consumers)
        t.join();
    QCOMPARE(queue.len(), 0);
    QVERIFY(processed.load() >= 50);
}

// TestLen
void tst_Queue::len()
{
    Queue<QString> q;
    q.add(QStringLiteral("foo"));
    QCOMPARE(q.len(), 1);
    q.add(QStringLiteral("bar"));
    QCOMPARE(q.len(), 2);
    q.add(QStringLiteral("foo")); // already there
    QCOMPARE(q.len(), 2);
}

// TestReinsert
void tst_Queue::reinsert()
{
    Queue<QString> q;
    q.add(QStringLiteral("foo"));
    auto item = q.get();
    QCOMPARE(*item, QStringLiteral("foo"));
    q.add(*item); // add it back while processing
    QCOMPARE(q.len(), 0); // not queued while processing
    q.done(*item);
    QCOMPARE(q.len(), 1); // it should be back on the queue
    item = q.get();
    QCOMPARE(*item, QStringLiteral("foo"));
    q.done(*item);
    QCOMPARE(q.len(), 0);
}

// TestCollapse
void tst_Queue::collapse()
{
    Queue<QString> q;
    q.add(QStringLiteral("bar"));
    q.add(QStringLiteral("bar"));
    auto item = q.get();
    QCOMPARE(*item, QStringLiteral("bar"));
    q.done(*item);
    QCOMPARE(q.len(), 0);
}

// TestCollapseWhileProcessing: two adds while processing give one more processing, and
// a second worker cannot take the item before the first is done with it.
void tst_Queue::collapseWhileProcessing()
{
    Queue<QString> q;
    q.add(QStringLiteral("bar"));
    auto item = q.get();
    q.add(QStringLiteral("bar"));
    q.add(QStringLiteral("bar"));
    std::atomic<bool> secondGot {false};
    std::thread worker([&] {
        auto again = q.get();
        QCOMPARE(*again, QStringLiteral("bar"));
        secondGot = true;
        q.done(*again);
    });
    std::this_thread::sleep_for(100ms); // give the worker a chance to pick the item up
    QVERIFY(!secondGot.load());
    q.done(*item);
    worker.join();
    QVERIFY(secondGot.load());
    QCOMPARE(q.len(), 0);
}

void tst_Queue::itemsQueuedBeforeShutDownAreStillHandedOut()
{
    Queue<QString> q;
    q.add(QStringLiteral("a"));
    q.add(QStringLiteral("b"));
    q.shutDown();
    QVERIFY(q.shuttingDown());
    QCOMPARE(q.get(), std::optional<QString>(QStringLiteral("a")));
    QCOMPARE(q.get(), std::optional<QString>(QStringLiteral("b")));
    QCOMPARE(q.get(), std::nullopt);
}

void tst_Queue::addAfterShutDownIsIgnored()
{
    Queue<QString> q;
    q.shutDown();
    q.add(QStringLiteral("a"));
    QCOMPARE(q.len(), 0);
    QCOMPARE(q.get(), std::nullopt);
}

// TestQueueDrainageUsingShutDownWithDrain: the drain waits for every item handed out.
void tst_Queue::queueDrainageUsingShutDownWithDrain()
{
    Queue<QString> q;
    q.add(QStringLiteral("foo"));
    q.add(QStringLiteral("bar"));
    auto first = q.get();
    auto second = q.get();
    std::atomic<bool> finished {false};
    std::thread drainer([&] {
        q.shutDownWithDrain();
        finished = true;
    });
    // Get returns "shut down" only once ShutDownWithDrain has started.
    while (q.get())
        ;
    QVERIFY(!finished.load()); // two items are still processing
    q.done(*first);
    QVERIFY(!finished.load()); // one item is still processing
    q.done(*second);
    drainer.join();
    QVERIFY(finished.load());
}

// TestNoQueueDrainageUsingShutDown: ShutDown does not wait for items being processed.
void tst_Queue::noQueueDrainageUsingShutDown()
{
    Queue<QString> q;
    q.add(QStringLiteral("foo"));
    q.add(QStringLiteral("bar"));
    q.get();
    q.get();
    q.shutDown(); // returns although two items were never done
    QVERIFY(q.shuttingDown());
}

// TestForceQueueShutdownUsingShutDown: a later ShutDown ends a blocked drain.
void tst_Queue::forceQueueShutdownUsingShutDown()
{
    Queue<QString> q;
    q.add(QStringLiteral("foo"));
    q.add(QStringLiteral("bar"));
    q.get();
    q.get();
    std::thread drainer([&] { q.shutDownWithDrain(); });
    while (q.get())
        ;
    q.shutDown();
    drainer.join(); // would hang without the forced shutdown
}

// forceQueueShutdownUsingShutDown's race, many times: get() may return nothing as soon as
// shutDownWithDrain() began, and the shutDown() that follows must end the drain however it
// interleaves with it. (shutDownWithDrain() once set shuttingDown and the drain flag in two
// steps, and a shutDown() between them was undone: the drainer waited forever. Found by the
// TSan run of forceQueueShutdownUsingShutDown on a loaded machine: 3 runs in 160.) The window
// is a few instructions wide, so this repeats the race rather than forcing it: it catches a
// regression under TSan's slowdown, not reliably in a plain build.
void tst_Queue::forceShutdownRacesTheDrain()
{
    for (int round = 0; round < 1000; ++round) {
        Queue<QString> q;
        q.add(QStringLiteral("foo"));
        QVERIFY(q.get());
        std::thread drainer([&] { q.shutDownWithDrain(); });
        while (q.get())
            ;
        q.shutDown();
        drainer.join(); // hangs (and the test times out) if the shutDown() was undone
    }
}

// TestQueueDrainageUsingShutDownWithDrainWithDirtyItem
void tst_Queue::queueDrainageUsingShutDownWithDrainWithDirtyItem()
{
    Queue<QString> q;
    q.add(QStringLiteral("foo"));
    auto gotten = q.get();
    q.add(QStringLiteral("foo"));
    std::thread drainer([&] { q.shutDownWithDrain(); });
    while (q.get())
        ;
    q.done(*gotten);
    // done() put the dirty item back, so the queue is not done yet.
    auto again = q.get();
    QVERIFY(again.has_value());
    q.done(*again);
    QCOMPARE(q.get(), std::nullopt);
    drainer.join();
}

// TestGarbageCollection: the queue keeps no reference to an item once it is done.
void tst_Queue::garbageCollection()
{
    struct BigObject
    {
        QByteArray data = QByteArrayLiteral("hello");
    };
    Queue<QSharedPointer<BigObject>> q;
    QWeakPointer<BigObject> weak;
    {
        auto object = QSharedPointer<BigObject>::create();
        weak = object;
        q.add(object);
        auto item = q.get();
        q.done(*item);
    }
    QVERIFY(weak.isNull());
}

// client-go's Done pushes an item that is dirty even if it was not being processed, so a
// misused done() queues the item twice. qcm behaves the same, so traces agree.
void tst_Queue::doneOfAQueuedItemQueuesItTwiceLikeClientGo()
{
    Queue<QString> q;
    q.add(QStringLiteral("x"));
    q.done(QStringLiteral("x"));
    QCOMPARE(q.len(), 2);
    QCOMPARE(*q.get(), QStringLiteral("x"));
    QCOMPARE(*q.get(), QStringLiteral("x"));
    q.done(QStringLiteral("x"));
    QCOMPARE(q.len(), 0);
}

// add() pushes onto a lock-free inbox that the next lock holder applies: the items of each
// producer must still come out in the order that producer added them (Fair), while others add
// and a consumer takes them at the same time.
void tst_Queue::concurrentAddsKeepEachThreadsOrder()
{
    Queue<int> q;
    constexpr int producers = 4;
    constexpr int perProducer = 20000;
    std::vector<std::thread> threads;
    for (int p = 0; p < producers; ++p) {
        threads.emplace_back([&q, p] {
            for (int j = 0; j < perProducer; ++j)
                q.add(p * perProducer + j);
        });
    }
    std::vector<int> last(producers, -1);
    int received = 0;
    int outOfOrder = 0;
    while (received < producers * perProducer) {
        const std::optional<int> item = q.get();
        QVERIFY(item);
        const int p = *item / perProducer;
        if (*item <= last[size_t(p)])
            ++outOfOrder;
        last[size_t(p)] = *item;
        q.done(*item);
        ++received;
    }
    for (auto &t : threads)
        t.join();
    QCOMPARE(outOfOrder, 0);
    QCOMPARE(q.len(), 0);
}

// Two consumers wait in get(); two adds in a row must wake both, each getting one item without
// anyone calling done(). (When the second add finds the lock held and pushes onto a non-empty
// inbox, it notifies nobody, and the consumer woken for the first passes the wake-up on; this
// test does not force that interleaving, so it checks the contract, not that path.)
void tst_Queue::oneWakeUpReachesEveryWaiter()
{
    for (int round = 0; round < 20; ++round) {
        Queue<int> q;
        std::atomic<int> got {0};
        std::thread consumers[2];
        for (auto &c : consumers) {
            c = std::thread([&q, &got] {
                if (q.get())
                    ++got;
            });
        }
        std::this_thread::sleep_for(20ms); // both are asleep in get() by now, most rounds
        q.add(1);
        q.add(2);
        (void)QTest::qWaitFor([&got] { return got.load() == 2; }, 5000);
        const int woke = got.load();
        q.shutDown(); // releases a consumer left asleep
        for (auto &c : consumers)
            c.join();
        QVERIFY2(
            woke == 2, qPrintable(QStringLiteral("round %1: %2 of 2 woke").arg(round).arg(woke)));
    }
}

QTEST_GUILESS_MAIN(tst_Queue)
#include "tst_queue.moc"
