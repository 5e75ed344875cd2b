// SPDX-License-Identifier: Apache-2.0
// What the events tests share: a fake EventSink (client-go's testEventSink with its
// OnCreateFactory and OnPatchFactory), a channel to hand Events from the sink's thread to the
// test, client-go's SimpleIntervalClock, and the makeEvent/validateEvent helpers of
// events_cache_test.go.
#pragma once

#include <qcm/client/object.h>
#include <qcm/fakeclock.h>
#include <qcm/record/eventkeys.h>
#include <qcm/record/eventsink.h>

#include <QtCore/QHash>
#include <QtCore/QJsonDocument>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>

namespace qcm::record::testing {

using namespace std::chrono_literals;

// A Go channel without capacity limits: push() from one thread, pop() in the test. pop()
// waits (in real time, for another thread's hand-over) at most `timeout`.
template<typename T>
class Channel
{
public:
    void push(T value)
    {
        {
            std::lock_guard lock(m_mutex);
            m_items.push_back(std::move(value));
        }
        m_changed.notify_all();
    }

    std::optional<T> pop(std::chrono::milliseconds timeout = 10s)
    {
        std::unique_lock lock(m_mutex);
        if (!m_changed.wait_for(lock, timeout, [this] { return !m_items.empty(); }))
            return std::nullopt;
        T value = std::move(m_items.front());
        m_items.pop_front();
        return value;
    }

    int size() const
    {
        std::lock_guard lock(m_mutex);
        return int(m_items.size());
    }

private:
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<T> m_items;
};

// client-go's testEventSink: each call goes to its hook, or returns the event as written.
class FakeSink : public EventSink
{
public:
    std::function<SinkResult(const Event &)> onCreate;
    std::function<SinkResult(const Event &)> onUpdate;
    std::function<SinkResult(const Event &, const QByteArray &)> onPatch;

    SinkResult create(const Event &e) override { return onCreate ? onCreate(e) : SinkResult(e); }
    SinkResult update(const Event &e) override { return onUpdate ? onUpdate(e) : SinkResult(e); }
    SinkResult patch(const Event &e, const QByteArray &p) override
    {
        return onPatch ? onPatch(e, p) : SinkResult(e);
    }
};

// A "server" for FakeSink: creates store the event (OnCreateFactory); patches apply the patch
// to the stored event as a merge of its top-level fields, which is what a strategic-merge
// patch of count, lastTimestamp and message does (OnPatchFactory). Each success is pushed
// onto `created` or `patched`.
class FakeServer
{
public:
    Channel<Event> created;
    Channel<Event> patched;
    Channel<QByteArray> patches;

    void attach(FakeSink &sink)
    {
        sink.onCreate = [this](const Event &e) -> SinkResult {
            {
                std::lock_guard lock(m_mutex);
                m_cache.insert(getEventKey(e), e);
            }
            created.push(e);
            return e;
        };
        sink.onPatch = [this](const Event &e, const QByteArray &patch) -> SinkResult {
            std::optional<Event> stored;
            {
                std::lock_guard lock(m_mutex);
                if (m_cache.contains(getEventKey(e)))
                    stored = m_cache.value(getEventKey(e));
            }
            if (!stored)
                return client::Status::transportError(QStringLiteral("Test"),
                    QStringLiteral("unexpected error: couldn't find Event in testCache"));
            QJsonObject json = stored->toJson();
            const QJsonObject delta = QJsonDocument::fromJson(patch).object();
            for (auto it = delta.begin(); it != delta.end(); ++it) {
                if (it.value().isNull())
                    json.remove(it.key());
                else
                    json.insert(it.key(), it.value());
            }
            const Event result = Event::fromJson(json);
            patches.push(patch);
            patched.push(result);
            return result;
        };
    }

private:
    std::mutex m_mutex;
    QHash<QString, Event> m_cache;
};

// client-go's testclocks.SimpleIntervalClock: every now() returns the time and then moves
// it on by `interval`. Timers run on a FakeClock that follows it.
class SimpleIntervalClock : public Clock
{
public:
    explicit SimpleIntervalClock(Duration interval) : m_interval(interval) { }

    TimePoint now() const override
    {
        return TimePoint(Duration(m_now.fetch_add(m_interval.count())));
    }
    std::unique_ptr<Timer> newTimer(std::function<void()> callback) override
    {
        return m_timers.newTimer(std::move(callback));
    }

private:
    const Duration m_interval;
    mutable std::atomic<Duration::rep> m_now {Duration(std::chrono::hours(24)).count()};
    FakeClock m_timers;
};

// client-go's testPod: Pod baz/foo with uid "bar".
inline client::Object testPod()
{
    client::Object o;
    o.setApiVersion(QStringLiteral("v1"));
    o.setKind(QStringLiteral("Pod"));
    o.setNamespaceName(QStringLiteral("baz"));
    o.setName(QStringLiteral("foo"));
    QJsonObject metadata = o.json().value(QStringLiteral("metadata")).toObject();
    metadata.insert(QStringLiteral("uid"), QStringLiteral("bar"));
    o.json().insert(QStringLiteral("metadata"), metadata);
    return o;
}

inline WallTime wallNow()
{
    return std::chrono::time_point_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now());
}

inline ObjectReference makeObjectReference(
    const QString &kind, const QString &name, const QString &ns)
{
    ObjectReference ref;
    ref.kind = kind;
    ref.name = name;
    ref.namespaceName = ns;
    ref.uid = QStringLiteral("C934D34AFB20242");
    ref.apiVersion = QStringLiteral("version");
    ref.fieldPath = QStringLiteral("spec.containers{mycontainer}");
    return ref;
}

inline Event makeEvent(
    const QString &reason, const QString &message, const ObjectReference &involvedObject)
{
    Event e;
    e.reason = reason;
    e.message = message;
    e.involvedObject = involvedObject;
    e.source = {QStringLiteral("kubelet"), QStringLiteral("kublet.node1")};
    e.count = 1;
    e.firstTimestamp = e.lastTimestamp = wallNow();
    e.type = EventTypeNormal;
    return e;
}

inline QList<Event> makeEvents(int n, const Event &event)
{
    return QList<Event>(n, event);
}

inline QList<Event> makeUniqueEvents(int n)
{
    QList<Event> events;
    for (int i = 0; i < n; ++i) {
        events << makeEvent(QStringLiteral("reason-%1").arg(i), QStringLiteral("message-%1").arg(i),
            makeObjectReference(QStringLiteral("Pod"), QStringLiteral("pod-%1").arg(i),
                QStringLiteral("ns-%1").arg(i)));
    }
    return events;
}

inline QList<Event> makeSimilarEvents(int n, const Event &event, const QString &messagePrefix)
{
    QList<Event> events = makeEvents(n, event);
    for (int i = 0; i < n; ++i)
        events[i].message = messagePrefix + QStringLiteral("-%1-").arg(i) + events[i].message;
    return events;
}

inline Event withCount(Event e, int count)
{
    e.count = count;
    return e;
}

// client-go's validateEvent: the timestamps are set, equal for a single occurrence and
// different for a counted one; the name starts with the expected name; every other field is
// as expected (timestamps and reportingController aside). Returns what differs, or nothing.
inline QString validateEvent(const QString &prefix, const Event &actual, const Event &expected)
{
    QStringList problems;
    if (actual.firstTimestamp == WallTime() || actual.lastTimestamp == WallTime())
        problems << QStringLiteral("timestamp wasn't set");
    const bool same = Event::formatTimestamp(actual.firstTimestamp)
        == Event::formatTimestamp(actual.lastTimestamp);
    if (same && expected.count > 1)
        problems << QStringLiteral("firstTimestamp and lastTimestamp must differ to show that "
                                   "the event was counted, but both are %1")
                        .arg(Event::formatTimestamp(actual.firstTimestamp));
    if (!same && expected.count == 1)
        problems << QStringLiteral("firstTimestamp (%1) and lastTimestamp (%2) must be equal "
                                   "for a single occurrence")
                        .arg(Event::formatTimestamp(actual.firstTimestamp),
                            Event::formatTimestamp(actual.lastTimestamp));
    if (!actual.name.startsWith(expected.name))
        problems
            << QStringLiteral("name '%1' does not start with '%2'").arg(actual.name, expected.name);
    Event received = actual;
    received.firstTimestamp = expected.firstTimestamp;
    received.lastTimestamp = expected.lastTimestamp;
    received.reportingController = expected.reportingController;
    received.name = expected.name;
    if (received != expected) {
        problems << QStringLiteral("diff:\n  want %1\n  got  %2")
                        .arg(QString::fromUtf8(
                                 QJsonDocument(expected.toJson()).toJson(QJsonDocument::Compact)),
                            QString::fromUtf8(
                                QJsonDocument(received.toJson()).toJson(QJsonDocument::Compact)));
    }
    if (problems.isEmpty())
        return {};
    return prefix + QStringLiteral(": ") + problems.join(QStringLiteral("; "));
}

} // namespace qcm::record::testing
