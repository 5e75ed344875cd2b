// SPDX-License-Identifier: Apache-2.0
// What the sample controllers' unit tests share: informers over scripted lister-watchers
// (FakeInformers), a recorder of Events (EventLog, the text form of client-go's
// record.FakeRecorder), and the context a controller is created with.
#pragma once

#include "../cache/fakelisterwatcher.h"
#include "fakeobjectclient.h"
#include "recordevent.h"

#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/context.h>
#include <qcm/fakeclock.h>
#include <qcm/metrics/registry.h>

#include <map>
#include <mutex>

namespace qcm::samples::testing {

using namespace qcm::cache::testing;

// A SharedInformerFactory whose informers list the objects seeded for their resource (at
// resourceVersion "1") and then watch a stream the test pushes events into (or a
// FakeObjectClient does: follow()).
class FakeInformers
{
public:
    explicit FakeInformers(Clock *clock)
        : m_factory(
            [this](const GroupVersionResource &gvr,
                const cache::SharedInformerFactory::InformerOptions &) {
                return listerWatcher(gvr);
            },
            Duration::zero(), clock)
    { }
    ~FakeInformers() { m_factory.shutdown(); }

    // The objects the informer of `gvr` lists; before the informer is made.
    void seed(const GroupVersionResource &gvr, const QList<Object> &objects)
    {
        std::lock_guard lock(m_mutex);
        m_seeds[gvr.toString()] += objects;
    }
    // The ListerWatcher of the informer of `gvr`: the seeded objects, then watch(gvr).
    std::unique_ptr<cache::ListerWatcher> listerWatcher(const GroupVersionResource &gvr)
    {
        std::lock_guard lock(m_mutex);
        auto lw = std::make_unique<FakeListerWatcher>();
        lw->lists.push_back(listOf(m_seeds.value(gvr.toString()), QStringLiteral("1")));
        m_watches[gvr.toString()] = lw->scriptWatch();
        return lw;
    }
    // The watch of the informer of `gvr`, once made.
    std::shared_ptr<FakeWatch> watch(const GroupVersionResource &gvr)
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_watches.find(gvr.toString());
        return it == m_watches.end() ? nullptr : it->second;
    }
    cache::SharedInformerFactory *factory() { return &m_factory; }

    // Passes every write of `client` to the watch of the informer of its resource, if there is
    // one (client-go's fake clientset feeds its informers the same way).
    void follow(FakeObjectClient &client)
    {
        client.setWatcher(
            [this](const GroupVersionResource &gvr, WatchEvent::Type type, const Object &object) {
                if (const std::shared_ptr<FakeWatch> w = watch(gvr))
                    w->push(watchEvent(type, object));
            });
    }

private:
    std::mutex m_mutex;
    QHash<QString, QList<Object>> m_seeds; // guarded by m_mutex
    std::map<QString, std::shared_ptr<FakeWatch>> m_watches; // guarded by m_mutex
    cache::SharedInformerFactory m_factory;
};

// Records Events as "<type> <reason> <message>" (client-go's FakeRecorder), with the object's
// key in objects().
class EventLog
{
public:
    RecordEvent recorder()
    {
        return [this](const Object &object, const QString &type, const QString &reason,
                   const QString &message) {
            std::lock_guard lock(m_mutex);
            m_events.push_back(type + QLatin1Char(' ') + reason + QLatin1Char(' ') + message);
            m_objects.push_back(object.kind() + QLatin1Char(' ') + object.key());
        };
    }
    QStringList events() const
    {
        std::lock_guard lock(m_mutex);
        return QStringList(m_events.begin(), m_events.end());
    }
    QStringList objects() const
    {
        std::lock_guard lock(m_mutex);
        return QStringList(m_objects.begin(), m_objects.end());
    }

private:
    mutable std::mutex m_mutex;
    std::vector<QString> m_events; // guarded by m_mutex
    std::vector<QString> m_objects; // guarded by m_mutex
};

// An object as the API server returns it: apiVersion, kind, namespace, name, uid
// ("<name>-uid") and resourceVersion "1".
inline Object newObject(
    const QString &apiVersion, const QString &kind, const QString &ns, const QString &name)
{
    Object o;
    o.setApiVersion(apiVersion);
    o.setKind(kind);
    o.setNamespaceName(ns);
    o.setName(name);
    o.setResourceVersion(QStringLiteral("1"));
    QJsonObject metadata = o.json().value(QLatin1String("metadata")).toObject();
    metadata.insert(QStringLiteral("uid"), name + QStringLiteral("-uid"));
    o.json().insert(QStringLiteral("metadata"), metadata);
    return o;
}

// `object` with metadata.<field> set to `value` (the fields Object has no setter for: uid,
// deletionTimestamp).
inline Object withMetadata(Object object, const QString &field, const QJsonValue &value)
{
    QJsonObject metadata = object.json().value(QLatin1String("metadata")).toObject();
    metadata.insert(field, value);
    object.json().insert(QStringLiteral("metadata"), metadata);
    return object;
}

inline ControllerContext testContext(const QString &name, FakeInformers &informers,
    FakeClock &clock, metrics::Registry &registry, const QVariantMap &settings = {})
{
    ControllerContext context(name);
    context.setInformerFactory(informers.factory());
    context.setClock(&clock);
    context.setMetricsRegistry(&registry);
    context.setSettings(settings);
    return context;
}

// Starts the factory's informers and waits for them to sync.
inline bool startInformers(FakeInformers &informers)
{
    informers.factory()->start();
    return informers.factory()->waitForCacheSync(std::chrono::seconds(10));
}

} // namespace qcm::samples::testing
