// SPDX-License-Identifier: Apache-2.0
// e2e: a Reflector, and a SharedIndexInformer, kept in step with a real apiserver.
#include <qcm/cache/deltafifo.h>
#include <qcm/cache/indexer.h>
#include <qcm/cache/reflector.h>
#include <qcm/cache/sharedindexinformer.h>
#include <qcm/cache/sharedinformerfactory.h>

#include "../e2esupport.h"

#include <QtTest/QtTest>

#include <thread>

using namespace qcm::cache;
using namespace qcm::client;
using namespace qcm::e2e;

class tst_ReflectorE2e : public QObject
{
    Q_OBJECT

private slots:
    void listThenWatchConfigMaps();
    void informerCacheEqualsTheServer();
    void factoryOnTheRealServer();
};

void tst_ReflectorE2e::listThenWatchConfigMaps()
{
    RestClient client(clusterConfig(QStringLiteral("admin")));
    const QString ns = createNamespace(client, QStringLiteral("reflector"));
    auto make = [&](const QString &name) {
        return client.create(ConfigMaps, ns, configMap(ns, name)).ok();
    };
    for (int i = 0; i < 30; ++i)
        QVERIFY(make(QStringLiteral("before-%1").arg(i)));

    RestListerWatcher lw(&client, ConfigMaps, ns);
    Indexer store;
    DeltaFifo::Options options;
    options.knownObjects = &store;
    DeltaFifo fifo(options);
    Reflector::Options reflectorOptions;
    reflectorOptions.pageSize = 7; // several pages
    reflectorOptions.useWatchList = false; // the paged list, not the default stream
    Reflector reflector(&lw, &fifo, reflectorOptions);
    std::thread thread([&] { reflector.run(); });

    // The list: 30 objects, then the watch delivers one more and a delete.
    QTRY_COMPARE_WITH_TIMEOUT(fifo.listKeys().size(), 30, 20000);
    QVERIFY(!reflector.lastSyncResourceVersion().isEmpty());
    QVERIFY(make(QStringLiteral("after")));
    QVERIFY(client.remove(ConfigMaps, ns, QStringLiteral("before-0")));
    QTRY_VERIFY_WITH_TIMEOUT(fifo.getByKey(ns + QStringLiteral("/after")).has_value(), 20000);
    QTRY_VERIFY_WITH_TIMEOUT(fifo.getByKey(ns + QStringLiteral("/before-0")).has_value()
            && fifo.getByKey(ns + QStringLiteral("/before-0"))->last().type == DeltaType::Deleted,
        20000);
    reflector.stop();
    thread.join();
}

void tst_ReflectorE2e::informerCacheEqualsTheServer()
{
    RestClient client(clusterConfig(QStringLiteral("admin")));
    const QString ns = createNamespace(client, QStringLiteral("informer"));
    auto make = [&](const QString &name) {
        return client.create(ConfigMaps, ns, configMap(ns, name)).ok();
    };
    for (int i = 0; i < 50; ++i)
        QVERIFY(make(QStringLiteral("cm-%1").arg(i)));

    RestListerWatcher lw(&client, ConfigMaps, ns);
    SharedIndexInformer informer(&lw, {});
    QStringList seen;
    informer.addEventHandler(this,
        {[&](const Object &o, bool initial) {
             seen << (initial ? QStringLiteral("initial ") : QStringLiteral("add ")) + o.name();
         },
            [&](const Object &, const Object &o) { seen << QStringLiteral("update ") + o.name(); },
            [&](const Object &o, bool) { seen << QStringLiteral("delete ") + o.name(); }});
    informer.start();
    QVERIFY(waitForCacheSync({&informer}, std::chrono::seconds(30)));
    QTRY_COMPARE(seen.size(), 50);
    QVERIFY(std::all_of(seen.begin(), seen.end(),
        [](const QString &s) { return s.startsWith(QLatin1String("initial ")); }));

    QVERIFY(client.patch(
        ConfigMaps, ns, QStringLiteral("cm-1"), PatchType::Merge, R"({"data":{"k":"v"}})"));
    QVERIFY(client.remove(ConfigMaps, ns, QStringLiteral("cm-2")));
    QVERIFY(make(QStringLiteral("late")));
    QTRY_COMPARE_WITH_TIMEOUT(seen.size(), 53, 20000);
    QCOMPARE(seen.mid(50),
        (QStringList {QStringLiteral("update cm-1"), QStringLiteral("delete cm-2"),
            QStringLiteral("add late")}));

    // The cache equals the server, key for key and version for version.
    const ObjectList server = *client.list(ConfigMaps, ns);
    QCOMPARE(informer.indexer().size(), server.items.size());
    for (const Object &o : server.items) {
        const auto cached = informer.lister().get(ns, o.name());
        QVERIFY2(cached.has_value(), qPrintable(o.name()));
        QCOMPARE(cached->resourceVersion(), o.resourceVersion());
    }
    informer.stop();
}

void tst_ReflectorE2e::factoryOnTheRealServer()
{
    RestClient client(clusterConfig(QStringLiteral("admin")));
    SharedInformerFactory factory(&client, {});
    SharedIndexInformer *informer = factory.informerFor(Namespaces);
    QCOMPARE(factory.informerFor(Namespaces), informer);
    factory.start();
    QVERIFY(factory.waitForCacheSync(std::chrono::seconds(30)));
    QVERIFY(informer->lister().get({}, QStringLiteral("default")).has_value());
    QVERIFY(informer->lister().get({}, QStringLiteral("kube-system")).has_value());

    // Metadata only: PartialObjectMetadata, without the ConfigMap's data.
    const QString ns = createNamespace(client, QStringLiteral("metadata"));
    Object big = configMap(ns, QStringLiteral("big"),
        QJsonObject {{QStringLiteral("blob"), QString(100000, QLatin1Char('z'))}},
        {{QStringLiteral("tier"), QStringLiteral("x")}});
    QVERIFY(client.create(ConfigMaps, ns, big));
    SharedInformerFactory::InformerOptions metadataOnly;
    metadataOnly.namespaceName = ns;
    metadataOnly.metadataOnly = true;
    SharedIndexInformer *metadata = factory.informerFor(ConfigMaps, metadataOnly);
    QVERIFY(metadata != factory.informerFor(ConfigMaps, {ns, {}, {}, false}));
    QVERIFY(factory.waitForCacheSync(std::chrono::seconds(30)));
    const auto cached = metadata->lister().get(ns, QStringLiteral("big"));
    QVERIFY(cached.has_value());
    QCOMPARE(cached->kind(), QStringLiteral("PartialObjectMetadata"));
    QCOMPARE(cached->labels().value(QStringLiteral("tier")), QStringLiteral("x"));
    QVERIFY(!cached->json().contains(QStringLiteral("data")));
    QVERIFY(!cached->resourceVersion().isEmpty());
    // Watch events are metadata only too.
    QVERIFY(client.patch(ConfigMaps, ns, QStringLiteral("big"), PatchType::Merge,
        R"({"metadata":{"labels":{"tier":"y"}}})"));
    QTRY_COMPARE_WITH_TIMEOUT(
        metadata->lister().get(ns, QStringLiteral("big"))->labels().value(QStringLiteral("tier")),
        QStringLiteral("y"), 20000);
    QVERIFY(!metadata->lister()
                 .get(ns, QStringLiteral("big"))
                 ->json()
                 .contains(QStringLiteral("data")));
    factory.shutdown();
}

QTEST_GUILESS_MAIN(tst_ReflectorE2e)
#include "tst_reflector.moc"
