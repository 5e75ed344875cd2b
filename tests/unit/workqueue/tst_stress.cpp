// SPDX-License-Identifier: Apache-2.0
// Stress: many producers and consumers over a shared key space (run under TSan as well).
// Asserts the two promises controllers live by:
//   * no key is ever processed by two workers at once;
//   * no add is lost: every key is processed at least once after its last add.
#include <qcm/workqueue/ratelimitingqueue.h>

#include <QtTest/QtTest>

#include <atomic>
#include <random>
#include <thread>

using namespace qcm::workqueue;
using namespace std::chrono_literals;

namespace {

constexpr int Keys = 500;

struct KeyState
{
    std::atomic<int> inFlight {0};
    std::atomic<quint64> addedVersion {0}; // bumped by a producer before each add
    std::atomic<quint64> processedVersion {0}; // the newest version a worker has seen
};

struct Harness
{
    std::vector<KeyState> state = std::vector<KeyState>(Keys);
    QStringList names;
    std::atomic<int> overlaps {0};
    std::atomic<quint64> processed {0};

    Harness()
    {
        for (int i = 0; i < Keys; ++i)
            names << QStringLiteral("ns/key-%1").arg(i);
    }

    int indexOf(const QString &key) const { return key.mid(7).toInt(); }

    // What a worker does between get() and done().
    void process(const QString &key)
    {
        KeyState &s = state[size_t(indexOf(key))];
        if (s.inFlight.fetch_add(1) != 0)
            ++overlaps;
        const quint64 seen = s.addedVersion.load();
        quint64 current = s.processedVersion.load();
        while (current < seen && !s.processedVersion.compare_exchange_weak(current, seen))
            ;
        ++processed;
        s.inFlight.fetch_sub(1);
    }

    int lost() const
    {
        int lostKeys = 0;
        for (const KeyState &s : state)
            lostKeys += s.processedVersion.load() != s.addedVersion.load();
        return lostKeys;
    }
};

} // namespace

class tst_Stress : public QObject
{
    Q_OBJECT

private slots:
    void queue_data();
    void queue();
    void rateLimitingQueueWithRetries();
};

void tst_Stress::queue_data()
{
    QTest::addColumn<int>("producers");
    QTest::addColumn<int>("consumers");
    QTest::newRow("2x2") << 2 << 2;
    QTest::newRow("8x4") << 8 << 4;
    QTest::newRow("4x16") << 4 << 16;
}

void tst_Stress::queue()
{
    QFETCH(int, producers);
    QFETCH(int, consumers);
    Harness h;
    Queue<QString> q;
    std::vector<std::thread> threads;
    for (int c = 0; c < consumers; ++c) {
        threads.emplace_back([&] {
            while (auto key = q.get()) {
                h.process(*key);
                q.done(*key);
            }
        });
    }
    std::vector<std::thread> producerThreads;
    for (int p = 0; p < producers; ++p) {
        producerThreads.emplace_back([&, p] {
            std::mt19937 rng {quint32(p)};
            for (int n = 0; n < 20000; ++n) {
                const int k = int(rng() % Keys);
                h.state[size_t(k)].addedVersion.fetch_add(1);
                q.add(h.names[k]);
            }
        });
    }
    for (auto &t : producerThreads)
        t.join();
    // Items queued before shutDown() are still handed out, and done() still re-queues
    // dirty items, so the consumers finish every outstanding add before they exit.
    q.shutDown();
    for (auto &t : threads)
        t.join();
    QCOMPARE(h.overlaps.load(), 0);
    QCOMPARE(h.lost(), 0);
    QCOMPARE(q.len(), 0);
    QVERIFY(h.processed.load() >= quint64(Keys) / 2);
}

// Workers fail a third of the time and retry through the rate limiter on the real clock.
void tst_Stress::rateLimitingQueueWithRetries()
{
    Harness h;
    RateLimitingQueue<QString> q(
        std::make_unique<ItemExponentialFailureRateLimiter<QString>>(10us, 2ms));
    std::vector<std::thread> threads;
    for (int c = 0; c < 4; ++c) {
        threads.emplace_back([&, c] {
            std::mt19937 rng {quint32(100 + c)};
            while (auto key = q.get()) {
                if (rng() % 3 == 0) {
                    q.addRateLimited(*key); // failed: retry later, not processed yet
                } else {
                    h.process(*key);
                    q.forget(*key);
                }
                q.done(*key);
            }
        });
    }
    std::vector<std::thread> producerThreads;
    for (int p = 0; p < 4; ++p) {
        producerThreads.emplace_back([&, p] {
            std::mt19937 rng {quint32(p)};
            for (int n = 0; n < 10000; ++n) {
                const int k = int(rng() % Keys);
                h.state[size_t(k)].addedVersion.fetch_add(1);
                if (n % 5 == 0)
                    q.addAfter(h.names[k], std::chrono::microseconds(rng() % 500));
                else
                    q.add(h.names[k]);
            }
        });
    }
    for (auto &t : producerThreads)
        t.join();
    // Delayed retries still have to come due; wait for convergence, bounded.
    QTRY_VERIFY_WITH_TIMEOUT(h.lost() == 0 && q.waitingLen() == 0 && q.len() == 0, 60000);
    q.shutDownWithDrain();
    for (auto &t : threads)
        t.join();
    QCOMPARE(h.overlaps.load(), 0);
    QCOMPARE(h.lost(), 0);
}

QTEST_GUILESS_MAIN(tst_Stress)
#include "tst_stress.moc"
