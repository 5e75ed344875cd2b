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

} // namespace fifotest
