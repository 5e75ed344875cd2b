// SPDX-License-Identifier: Apache-2.0
// What the sample controllers' unit tests share: the kit's fakes (docs/kit.md) in one fixture.
// A testing::FakeClient holds the objects; the controller's informers list and watch it
// (FakeClient::informerFactory()), so that every write, the test's or the controller's, reaches
// the controller's handlers as a watch event; a record::FakeRecorder keeps the Events.
#pragma once

#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/context.h>
#include <qcm/fakeclock.h>
#include <qcm/metrics/registry.h>
#include <qcm/record/fakerecorder.h>
#include <qcm/testing/fakeclient.h>

#include <QtCore/QJsonObject>

#include <memory>

namespace qcm::samples::testing {

using namespace qcm::client;
using qcm::testing::Action;
using qcm::testing::FakeClient;

struct SampleFixture
{
    FakeClock clock;
    metrics::Registry registry;
    std::shared_ptr<FakeClient> client = std::make_shared<FakeClient>();
    // With the involved object's kind: "Normal Synced Foo synced successfully
    // involvedObject{kind=Foo,apiVersion=samplecontroller.k8s.io/v1alpha1}".
    std::shared_ptr<record::FakeRecorder> events = std::make_shared<record::FakeRecorder>(true);
    std::unique_ptr<cache::SharedInformerFactory> informers {client->informerFactory()};

    ~SampleFixture() { informers->shutdown(); }

    // The context a controller named `name` is created with: these informers, clock, metrics
    // registry and recorder.
    ControllerContext context(
        const QString &name, const QVariantMap &settings = {}, int workers = 1)
    {
        ControllerContext c(name);
        c.setInformerFactory(informers.get());
        c.setClock(&clock);
        c.setMetricsRegistry(&registry);
        c.setEventRecorder(events);
        c.setSettings(settings);
        c.setWorkers(workers);
        return c;
    }
    // Seeds `objects` (FakeClient::add) and returns them as stored.
    QList<Object> seed(const GroupVersionResource &gvr, const QList<Object> &objects)
    {
        QList<Object> stored;
        for (const Object &o : objects) {
            const ObjectResult added = client->add(gvr, o);
            if (!added)
                qFatal("seeding %s failed: %s", qPrintable(o.key()),
                    qPrintable(added.error().toString()));
            stored.append(*added);
        }
        return stored;
    }
    // Starts the informers and waits for them to sync.
    bool startInformers()
    {
        informers->start();
        return informers->waitForCacheSync(std::chrono::seconds(10));
    }
};

// An object as the API server returns it: apiVersion, kind, namespace, name and uid
// ("<name>-uid"), which FakeClient::add() keeps.
inline Object newObject(
    const QString &apiVersion, const QString &kind, const QString &ns, const QString &name)
{
    Object o;
    o.setApiVersion(apiVersion);
    o.setKind(kind);
    o.setNamespaceName(ns);
    o.setName(name);
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

} // namespace qcm::samples::testing
