// SPDX-License-Identifier: Apache-2.0
// Test doubles for the cache: a scripted ListerWatcher and a pushable watch (client-go's
// FakeListerWatcher and watch.FakeWatcher).
#pragma once

#include <qcm/cache/listerwatcher.h>

#include <condition_variable>
#include <deque>
#include <mutex>

namespace qcm::cache::testing {

using namespace qcm::client;

// A ConfigMap-like object in namespace "ns".
inline Object cm(const QString &name, const QString &rv)
{
    Object o;
    o.setNamespaceName(QStringLiteral("ns"));
    o.setName(name);
    o.setResourceVersion(rv);
    return o;
}

inline WatchEvent watchEvent(WatchEvent::Type type, const Object &o)
{
    WatchEvent e;
    e.type = type;
    e.object = o;
    return e;
}

// A list response (one page unless continueToken is set).
inline ObjectList listOf(QList<Object> items, const QString &rv, const QString &continueToken = {})
{
    ObjectList l;
    l.items = std::move(items);
    l.resourceVersion = rv;
    l.continueToken = continueToken;
    return l;
}

class FakeWatch : public WatchStream
{
public:
    void push(const WatchEvent &e)
    {
        std::lock_guard lock(m_mutex);
        m_events.push_back(e);
        m_changed.notify_all();
    }
    void close()
    {
        std::lock_guard lock(m_mutex);
        m_closed = true;
        m_changed.notify_all();
    }
    std::optional<WatchEvent> next(qcm::Duration) override
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [&] { return !m_events.empty() || m_closed; });
        if (m_events.empty())
            return std::nullopt;
        WatchEvent e = m_events.front();
        m_events.pop_front();
        return e;
    }
    void stop() override { close(); }

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<WatchEvent> m_events;
    bool m_closed = false;
};

class FakeListerWatcher : public ListerWatcher
{
public:
    // Scripted answers; once a script runs out, lists return an empty list at "1" and
    // watches a stream that stays open.
    std::deque<qcm::Result<ObjectList, Status>> lists;
    std::deque<qcm::Result<std::shared_ptr<WatchStream>, Status>> watches;
    // Whether the reflector may stream the initial state (WatchList) from the scripted
    // watches; off, as client-go's fakes are, so that tests of the list path need not say so.
    bool watchListSupported = false;
    bool isWatchListSemanticsUnsupported() const override { return !watchListSupported; }

    // Scripts the next watch as a stream the test feeds, and returns it.
    std::shared_ptr<FakeWatch> scriptWatch()
    {
        auto watch = std::make_shared<FakeWatch>();
        watches.push_back(std::shared_ptr<WatchStream>(watch));
        return watch;
    }

    qcm::Result<ObjectList, Status> list(const ListOptions &options) override
    {
        std::lock_guard lock(m_mutex);
        m_listCalls.push_back(options);
        if (lists.empty()) {
            ObjectList empty;
            empty.resourceVersion = QStringLiteral("1");
            return empty;
        }
        auto r = lists.front();
        lists.pop_front();
        return r;
    }
    qcm::Result<std::shared_ptr<WatchStream>, Status> watch(const ListOptions &options) override
    {
        std::lock_guard lock(m_mutex);
        m_watchCalls.push_back(options);
        if (watches.empty()) {
            auto open = std::make_shared<FakeWatch>();
            m_open.push_back(open);
            return std::shared_ptr<WatchStream>(open);
        }
        auto r = watches.front();
        watches.pop_front();
        return r;
    }
    QList<ListOptions> listCalls()
    {
        std::lock_guard lock(m_mutex);
        return m_listCalls;
    }
    QList<ListOptions> watchCalls()
    {
        std::lock_guard lock(m_mutex);
        return m_watchCalls;
    }

private:
    std::mutex m_mutex;
    QList<ListOptions> m_listCalls;
    QList<ListOptions> m_watchCalls;
    QList<std::shared_ptr<FakeWatch>> m_open;
};

} // namespace qcm::cache::testing
