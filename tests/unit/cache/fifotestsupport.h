// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the FIFO tests: client-go's testFifoObject (an object named by
// metadata.name carrying a "val"), testFifoObjectKeyFunc and literalListerGetter.
#pragma once

#include <qcm/cache/delta.h>
#include <qcm/cache/keylistergetter.h>
#include <qcm/cache/queue.h>
#include <qcm/result.h>

#include <QtCore/QStringList>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace fifotest {

using qcm::cache::DeletedFinalStateUnknown;
using qcm::cache::Delta;
using qcm::cache::Deltas;
using qcm::cache::KeyListerGetter;
using qcm::cache::Object;

inline Object obj(const QString &name, int val)
{
    Object o;
    o.setName(name);
    o.json().insert(QStringLiteral("val"), val);
    return o;
}

inline int val(const Object &o)
{
    return o.json().value(QStringLiteral("val")).toInt();
}

// testFifoObjectKeyFunc: the name alone.
inline qcm::Result<QString> nameKey(const Object &o)
{
    return o.name();
}

// literalListerGetter: a fixed store of known objects.
class Known : public KeyListerGetter
{
public:
    explicit Known(QList<Object> objects = {}) : m_objects(std::move(objects)) { }
    QStringList listKeys() const override
    {
        QStringList keys;
        for (const Object &o : m_objects)
            keys << o.name();
        return keys;
    }
    std::optional<Object> getByKey(const QString &key) const override
    {
        for (const Object &o : m_objects)
            if (o.name() == key)
                return o;
        return std::nullopt;
    }

private:
    QList<Object> m_objects;
};

// "Added foo=10, Deleted DFSU(bar) bar=6": a Deltas in one line, for comparisons.
inline QString text(const Deltas &deltas)
{
    QStringList out;
    for (const Delta &d : deltas) {
        QString s = QString::fromLatin1(deltaTypeName(d.type)) + QLatin1Char(' ');
        if (const auto *t = std::get_if<DeletedFinalStateUnknown>(&d.object))
            s += QStringLiteral("DFSU(%1) ").arg(t->key);
        const Object &o = d.lastKnown();
        s += o.isEmpty() ? QStringLiteral("<none>")
                         : QStringLiteral("%1=%2").arg(o.name()).arg(val(o));
        out << s;
    }
    return out.join(QStringLiteral(", "));
}

// Blocks `poppers` threads in pop() on an empty queue, closes it, and returns how many of them
// came back with the closed error (TestDeltaFIFO_PopShouldUnblockWhenClosed).
inline int popsReleasedByClose(qcm::cache::Queue &queue, int poppers)
{
    std::atomic<int> closedErrors {0};
    std::vector<std::thread> threads;
    for (int i = 0; i < poppers; ++i) {
        threads.emplace_back([&] {
            auto result = queue.pop({});
            if (!result && result.error().reason == qcm::cache::Queue::closedError())
                ++closedErrors;
        });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    queue.close();
    for (auto &t : threads)
        t.join();
    return closedErrors.load();
}

// Rounds of `producers` threads adding `keys` objects each (distinct names, one update
// each; the last key after a pause) while `consumers` threads pop, for about `duration`, each
// round on a fresh queue from `make`. A consumer asleep while deltas are queued (a lost
// wake-up) strands them: a round that has not seen every delta after 20 s closes its queue and
// the function returns the shortfall (0: every delta came out in every round).
inline int deltasStrandedUnderConcurrentPops(
    const std::function<std::unique_ptr<qcm::cache::Queue>()> &make, int producers, int consumers,
    int keys, std::chrono::milliseconds duration)
{
    const int expected = producers * keys * 2;
    const auto end = std::chrono::steady_clock::now() + duration;
    do {
        const std::unique_ptr<qcm::cache::Queue> queue = make();
        std::atomic<int> seen {0};
        const qcm::cache::Queue::Process count = [&](const Deltas &deltas, bool) {
            seen += int(deltas.size());
            return std::optional<qcm::Error>();
        };
        std::vector<std::thread> threads;
        for (int c = 0; c < consumers; ++c)
            threads.emplace_back([&] {
                while (seen.load() < expected && queue->pop(count)) { }
            });
        for (int p = 0; p < producers; ++p)
            threads.emplace_back([&, p] {
                for (int i = 0; i < keys; ++i) {
                    // The last key after a pause, into a queue the consumers have emptied and
                    // gone to sleep on: its push alone must wake one.
                    if (i == keys - 1)
                        std::this_thread::sleep_for(std::chrono::milliseconds(3));
                    const QString name = QStringLiteral("p%1-%2").arg(p).arg(i);
                    queue->add(obj(name, 1));
                    queue->update(obj(name, 2));
                }
            });
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (seen.load() < expected && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        const int seenInTime = seen.load(); // close() below wakes every consumer: count first
        queue->close(); // releases the consumers still in pop()
        for (auto &t : threads)
            t.join();
        if (seenInTime != expected)
            return expected - seenInTime;
    } while (std::chrono::steady_clock::now() < end);
    return 0;
}

} // namespace fifotest
