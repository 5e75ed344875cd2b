// SPDX-License-Identifier: Apache-2.0
// CachedClient: reads from the informers' caches (here informers running on a FakeClient),
// writes through the other client; a read waits for the cache to sync, and says so when it
// does not.
#include <qcm/client/cachedclient.h>
#include <qcm/testing/fakeclient.h>

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::client;

namespace {

const GroupVersionResource ConfigMaps {
    QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};

Object configMap(const QString &ns, const QString &name, const QMap<QString, QString> &labels = {})
{
    Object o(QJsonObject {{QStringLiteral("apiVersion"), QStringLiteral("v1")},
        {QStringLiteral("kind"), QStringLiteral("ConfigMap")}});
    o.setNamespaceName(ns);
    o.setName(name);
    if (!labels.isEmpty())
        o.setLabels(labels);
    return o;
}

} // namespace

class tst_CachedClient : public QObject
{
    Q_OBJECT

private slots:
    void readsFromTheCacheWritesThrough();
    void listSelects();
    void unsyncedCacheIsAnError();
};

void tst_CachedClient::readsFromTheCacheWritesThrough()
{
    testing::FakeClient server;
    QVERIFY(server.create(ConfigMaps, configMap(QStringLiteral("a"), QStringLiteral("old"))));
    QObject owner;
    cache::SharedInformerFactory *informers = server.informerFactory(&owner);
    informers->start();
    CachedClient client(informers, &server);
    // The first read starts the informer and waits for its sync.
    auto old = client.get(ConfigMaps, QStringLiteral("a"), QStringLiteral("old"));
    QVERIFY2(old, qPrintable(old.ok() ? QString() : old.error().toString()));
    // A write goes to the server; the cache sees it once the watch event is in.
    auto created = client.create(ConfigMaps, configMap(QStringLiteral("a"), QStringLiteral("new")));
    QVERIFY(created);
    QVERIFY(server.get(ConfigMaps, QStringLiteral("a"), QStringLiteral("new")));
    QTRY_VERIFY_WITH_TIMEOUT(
        client.get(ConfigMaps, QStringLiteral("a"), QStringLiteral("new")).ok(), 5000);
    QVERIFY(client.remove(ConfigMaps, QStringLiteral("a"), QStringLiteral("new")));
    auto gone = [&] {
        const auto r = client.get(ConfigMaps, QStringLiteral("a"), QStringLiteral("new"));
        return !r.ok() && r.error().isNotFound();
    };
    QTRY_VERIFY_WITH_TIMEOUT(gone(), 5000);
    QCOMPARE(client.get(ConfigMaps, QStringLiteral("a"), QStringLiteral("new")).error().message,
        QStringLiteral("configmaps \"new\" not found"));
    informers->shutdown();
}

void tst_CachedClient::listSelects()
{
    testing::FakeClient server;
    QVERIFY(server.create(ConfigMaps,
        configMap(QStringLiteral("a"), QStringLiteral("x"),
            {{QStringLiteral("app"), QStringLiteral("web")}})));
    QVERIFY(server.create(ConfigMaps,
        configMap(QStringLiteral("b"), QStringLiteral("y"),
            {{QStringLiteral("app"), QStringLiteral("web")}})));
    QVERIFY(server.create(ConfigMaps, configMap(QStringLiteral("a"), QStringLiteral("z"))));
    QObject owner;
    cache::SharedInformerFactory *informers = server.informerFactory(&owner);
    informers->start();
    CachedClient client(informers, &server);
    ListOptions options;
    options.labelSelector = QStringLiteral("app=web");
    auto all = client.list(ConfigMaps, {}, options);
    QVERIFY(all);
    QCOMPARE(all->items.size(), 2);
    QCOMPARE(all->items.at(0).key(), QStringLiteral("a/x"));
    QCOMPARE(client.list(ConfigMaps, QStringLiteral("a"), options)->items.size(), 1);
    QCOMPARE(client.list(ConfigMaps, QStringLiteral("a"))->items.size(), 2);
    options.fieldSelector = QStringLiteral("metadata.name=x");
    QCOMPARE(client.list(ConfigMaps, {}, options).error().reason,
        QStringLiteral("FieldSelectorUnsupported"));
    informers->shutdown();
}

void tst_CachedClient::unsyncedCacheIsAnError()
{
    testing::FakeClient server;
    QObject owner;
    cache::SharedInformerFactory *informers = server.informerFactory(&owner); // never started
    CachedClient client(informers, &server, std::chrono::milliseconds(50));
    auto r = client.get(ConfigMaps, QStringLiteral("a"), QStringLiteral("b"));
    QVERIFY(!r);
    QCOMPARE(r.error().reason, QStringLiteral("CacheNotSynced"));
}

QTEST_MAIN(tst_CachedClient)
#include "tst_cachedclient.moc"
