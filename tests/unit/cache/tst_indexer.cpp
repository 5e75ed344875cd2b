// SPDX-License-Identifier: Apache-2.0
// Indexer and Lister: client-go's index_test.go and thread_safe_store_test.go.
#include <qcm/cache/lister.h>
#include <qcm/client/codec.h>

#include <QtTest/QtTest>

#include <map>
#include <random>
#include <thread>

using namespace qcm::cache;
using qcm::client::Object;

namespace {

Object pod(const QString &ns, const QString &name, const QMap<QString, QString> &labels = {})
{
    Object o;
    o.setNamespaceName(ns);
    o.setName(name);
    o.setLabels(labels);
    return o;
}

// testIndexFunc: the value of label "foo", split on ','.
QStringList fooIndex(const Object &o)
{
    const QString value = o.labels().value(QStringLiteral("foo"));
    return value.isEmpty() ? QStringList() : value.split(QLatin1Char(','));
}

} // namespace

class tst_Indexer : public QObject
{
    Q_OBJECT

private slots:
    void storeBasics();
    void exchangeHandsBackThePrevious();
    void namespaceIndexFollowsAMove();
    void getIndexFuncValues();
    void multiIndexKeys();
    void addIndexerAfterAdd();
    void indexerConflict();
    void unknownIndexIsAnError();
    void deletingLeavesNoEmptySets();
    void replaceRebuildsIndexes();
    void concurrentReadersAndWriter();
    void lister();
    void churnAgainstAModel();
    void removedObjectsAreReleased();
};

void tst_Indexer::storeBasics()
{
    Indexer store;
    QVERIFY(!store.add(pod(QStringLiteral("ns"), QStringLiteral("a"))).has_value());
    store.add(pod(QStringLiteral("ns"), QStringLiteral("b")));
    store.add(pod(QString(), QStringLiteral("cluster-scoped")));
    QCOMPARE(store.size(), 3);
    QVERIFY(store.getByKey(QStringLiteral("ns/a")).has_value());
    QVERIFY(store.getByKey(QStringLiteral("cluster-scoped")).has_value());
    Object a2 = pod(
        QStringLiteral("ns"), QStringLiteral("a"), {{QStringLiteral("v"), QStringLiteral("2")}});
    store.update(a2);
    QCOMPARE(store.get(a2)->labels().value(QStringLiteral("v")), QStringLiteral("2"));
    store.remove(a2);
    QVERIFY(!store.getByKey(QStringLiteral("ns/a")).has_value());
    QCOMPARE(store.size(), 2);
    QVERIFY(store.add(Object()).has_value()); // no name, no key
}

// exchange(): update() that returns what the key held, in one lookup (the informer's path).
void tst_Indexer::exchangeHandsBackThePrevious()
{
    Indexer store({}, {{QStringLiteral("foo"), fooIndex}});
    const auto labelled = [](const QString &foo) {
        return pod(QStringLiteral("ns"), QStringLiteral("a"), {{QStringLiteral("foo"), foo}});
    };
    auto first = store.exchange(labelled(QStringLiteral("x")));
    QVERIFY(first.ok());
    QVERIFY(!first->has_value()); // a new key
    auto second = store.exchange(labelled(QStringLiteral("y")));
    QVERIFY(second.ok());
    QVERIFY(second->has_value());
    QCOMPARE((*second)->labels().value(QStringLiteral("foo")), QStringLiteral("x"));
    QCOMPARE(store.getByKey(QStringLiteral("ns/a"))->labels().value(QStringLiteral("foo")),
        QStringLiteral("y"));
    QCOMPARE(store.indexKeys(QStringLiteral("foo"), QStringLiteral("x"))->size(), 0);
    QCOMPARE(*store.indexKeys(QStringLiteral("foo"), QStringLiteral("y")),
        QStringList {QStringLiteral("ns/a")});
    QCOMPARE(store.size(), 1);
    QVERIFY(!store.exchange(Object()).ok()); // no name, no key: an error, nothing stored
    QCOMPARE(store.size(), 1);
}

// The namespace index skips an update whose two objects' cached keys show the same namespace;
// an update under the same key that changes the namespace (a key function by name alone, or
// a namespace too long to be cached) still moves the key, decoded objects as built ones.
void tst_Indexer::namespaceIndexFollowsAMove()
{
    const auto decoded = [](const QString &ns, const QString &name) {
        const QString json = QStringLiteral(
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%1","namespace":"%2"}})")
                                 .arg(name, ns);
        return *qcm::client::Codec::defaultCodec()->decodeObject(json.toUtf8());
    };
    const KeyFunction byName = [](const Object &o) -> qcm::Result<QString> { return o.name(); };
    const QString longNamespace(0x10000, QLatin1Char('n'));
    for (const bool fromBytes : {false, true}) {
        const auto make = [&](const QString &ns, const QString &name) {
            return fromBytes ? decoded(ns, name) : pod(ns, name);
        };
        Indexer index(byName, {{NamespaceIndex, metaNamespaceIndexFunc}});
        index.add(make(QStringLiteral("ns1"), QStringLiteral("a")));
        index.update(make(QStringLiteral("ns1"), QStringLiteral("a"))); // nothing moves
        QCOMPARE(*index.indexKeys(NamespaceIndex, QStringLiteral("ns1")),
            QStringList {QStringLiteral("a")});
        index.update(make(QStringLiteral("ns2"), QStringLiteral("a"))); // same key, moved
        QCOMPARE(index.indexKeys(NamespaceIndex, QStringLiteral("ns1"))->size(), 0);
        QCOMPARE(*index.indexKeys(NamespaceIndex, QStringLiteral("ns2")),
            QStringList {QStringLiteral("a")});
        index.update(make(longNamespace, QStringLiteral("a"))); // its length not cached
        index.update(make(longNamespace + QLatin1Char('x'), QStringLiteral("a")));
        QCOMPARE(index.indexKeys(NamespaceIndex, longNamespace)->size(), 0);
        QCOMPARE(index.listIndexFuncValues(NamespaceIndex),
            QStringList {longNamespace + QLatin1Char('x')});
        index.update(make(QString(), QStringLiteral("a"))); // to cluster scope
        QCOMPARE(index.listIndexFuncValues(NamespaceIndex), QStringList {QString()});
    }
}

// TestGetIndexFuncValues
void tst_Indexer::getIndexFuncValues()
{
    Indexer index({}, {{QStringLiteral("testmodes"), fooIndex}});
    index.add(pod(QStringLiteral("ns"), QStringLiteral("one"),
        {{QStringLiteral("foo"), QStringLiteral("bar")}}));
    index.add(pod(QStringLiteral("ns"), QStringLiteral("tre"),
        {{QStringLiteral("foo"), QStringLiteral("biz")}}));
    index.add(pod(QStringLiteral("ns"), QStringLiteral("two"),
        {{QStringLiteral("foo"), QStringLiteral("bar")}}));
    QCOMPARE(index.listIndexFuncValues(QStringLiteral("testmodes")),
        (QStringList {QStringLiteral("bar"), QStringLiteral("biz")}));
}

// TestMultiIndexKeys: an object indexed under several values; updates move it.
void tst_Indexer::multiIndexKeys()
{
    Indexer index({}, {{QStringLiteral("byUser"), fooIndex}});
    index.add(pod(
        QString(), QStringLiteral("one"), {{QStringLiteral("foo"), QStringLiteral("ernie,bert")}}));
    index.add(pod(
        QString(), QStringLiteral("two"), {{QStringLiteral("foo"), QStringLiteral("bert,oscar")}}));
    index.add(pod(
        QString(), QStringLiteral("tre"), {{QStringLiteral("foo"), QStringLiteral("ernie,elmo")}}));
    QCOMPARE(*index.indexKeys(QStringLiteral("byUser"), QStringLiteral("ernie")),
        (QStringList {QStringLiteral("one"), QStringLiteral("tre")}));
    QCOMPARE(*index.indexKeys(QStringLiteral("byUser"), QStringLiteral("bert")),
        (QStringList {QStringLiteral("one"), QStringLiteral("two")}));
    QCOMPARE(*index.indexKeys(QStringLiteral("byUser"), QStringLiteral("elmo")),
        QStringList {QStringLiteral("tre")});
    QCOMPARE(index.byIndex(QStringLiteral("byUser"), QStringLiteral("oscar"))->size(), 1);
    QVERIFY(index.indexKeys(QStringLiteral("byUser"), QStringLiteral("nobody"))->isEmpty());

    // Index(): every object sharing a value with the given one.
    const Object probe = pod(
        QString(), QStringLiteral("x"), {{QStringLiteral("foo"), QStringLiteral("oscar,elmo")}});
    QCOMPARE(index.index(QStringLiteral("byUser"), probe)->size(), 2);

    // Moving "two" from oscar to ernie.
    index.update(
        pod(QString(), QStringLiteral("two"), {{QStringLiteral("foo"), QStringLiteral("ernie")}}));
    QCOMPARE(*index.indexKeys(QStringLiteral("byUser"), QStringLiteral("ernie")),
        (QStringList {QStringLiteral("one"), QStringLiteral("tre"), QStringLiteral("two")}));
    QVERIFY(index.indexKeys(QStringLiteral("byUser"), QStringLiteral("oscar"))->isEmpty());
    index.remove(pod(QString(), QStringLiteral("tre")));
    QCOMPARE(*index.indexKeys(QStringLiteral("byUser"), QStringLiteral("elmo")), QStringList());
}

// TestAddIndexerAfterAdd: indexes added to a store that holds objects index them.
void tst_Indexer::addIndexerAfterAdd()
{
    Indexer index;
    index.add(pod(QStringLiteral("ns1"), QStringLiteral("a")));
    index.add(pod(QStringLiteral("ns2"), QStringLiteral("b")));
    index.add(pod(QStringLiteral("ns1"), QStringLiteral("c")));
    QVERIFY(!index.addIndexers({{NamespaceIndex, metaNamespaceIndexFunc}}).has_value());
    QCOMPARE(*index.indexKeys(NamespaceIndex, QStringLiteral("ns1")),
        (QStringList {QStringLiteral("ns1/a"), QStringLiteral("ns1/c")}));
    index.add(pod(QStringLiteral("ns2"), QStringLiteral("d")));
    QCOMPARE(index.byIndex(NamespaceIndex, QStringLiteral("ns2"))->size(), 2);
}

void tst_Indexer::indexerConflict()
{
    Indexer index({}, {{NamespaceIndex, metaNamespaceIndexFunc}});
    auto error = index.addIndexers({{NamespaceIndex, metaNamespaceIndexFunc}});
    QVERIFY(error.has_value());
    QVERIFY(error->reason.contains(QStringLiteral("indexer conflict: namespace")));
}

void tst_Indexer::unknownIndexIsAnError()
{
    Indexer index;
    QVERIFY(!index.byIndex(QStringLiteral("nope"), QStringLiteral("x")));
    QVERIFY(!index.indexKeys(QStringLiteral("nope"), QStringLiteral("x")));
    QVERIFY(!index.index(QStringLiteral("nope"), pod(QString(), QStringLiteral("a"))));
    QCOMPARE(index.byIndex(QStringLiteral("nope"), QStringLiteral("x")).error().reason,
        QStringLiteral("index with name nope does not exist"));
}

// client-go's fix for the index memory leak: a value with no keys left is removed.
void tst_Indexer::deletingLeavesNoEmptySets()
{
    Indexer index({}, {{QStringLiteral("byFoo"), fooIndex}});
    for (int i = 0; i < 100; ++i)
        index.add(pod(QString(), QStringLiteral("o%1").arg(i),
            {{QStringLiteral("foo"), QStringLiteral("v%1").arg(i)}}));
    QCOMPARE(index.listIndexFuncValues(QStringLiteral("byFoo")).size(), 100);
    for (int i = 0; i < 100; ++i)
        index.removeByKey(QStringLiteral("o%1").arg(i));
    QVERIFY(index.listIndexFuncValues(QStringLiteral("byFoo")).isEmpty());
}

void tst_Indexer::replaceRebuildsIndexes()
{
    Indexer index({}, {{NamespaceIndex, metaNamespaceIndexFunc}});
    index.add(pod(QStringLiteral("old"), QStringLiteral("gone")));
    index.replace({pod(QStringLiteral("new"), QStringLiteral("a")),
        pod(QStringLiteral("new"), QStringLiteral("b"))});
    QCOMPARE(index.size(), 2);
    QVERIFY(index.byIndex(NamespaceIndex, QStringLiteral("old"))->isEmpty());
    QCOMPARE(index.listIndexFuncValues(NamespaceIndex), QStringList {QStringLiteral("new")});
}

// TestThreadSafeStoreConcurrentAccess-like: one writer, readers never see a torn index.
void tst_Indexer::concurrentReadersAndWriter()
{
    Indexer index({}, {{NamespaceIndex, metaNamespaceIndexFunc}});
    std::atomic<bool> stop {false};
    std::atomic<int> bad {0};
    std::thread reader([&] {
        while (!stop) {
            for (const QString &key : *index.indexKeys(NamespaceIndex, QStringLiteral("ns")))
                if (!key.startsWith(QLatin1String("ns/")))
                    ++bad;
            index.list();
        }
    });
    for (int i = 0; i < 2000; ++i) {
        index.add(pod(QStringLiteral("ns"), QStringLiteral("p%1").arg(i % 100)));
        if (i % 3 == 0)
            index.removeByKey(QStringLiteral("ns/p%1").arg(i % 100));
    }
    stop = true;
    reader.join();
    QCOMPARE(bad.load(), 0);
}

void tst_Indexer::lister()
{
    Indexer index({}, {{NamespaceIndex, metaNamespaceIndexFunc}});
    index.add(pod(QStringLiteral("a"), QStringLiteral("web-1"),
        {{QStringLiteral("app"), QStringLiteral("web")}}));
    index.add(pod(QStringLiteral("a"), QStringLiteral("db-1"),
        {{QStringLiteral("app"), QStringLiteral("db")}}));
    index.add(pod(QStringLiteral("b"), QStringLiteral("web-2"),
        {{QStringLiteral("app"), QStringLiteral("web")}}));
    const Lister lister(&index);
    QVERIFY(lister.get(QStringLiteral("a"), QStringLiteral("web-1")).has_value());
    QVERIFY(!lister.get(QStringLiteral("b"), QStringLiteral("web-1")).has_value());
    QCOMPARE(lister.list().size(), 3);
    const LabelSelector web = *LabelSelector::parse(QStringLiteral("app=web"));
    QCOMPARE(lister.list(web).size(), 2);
    QCOMPARE(lister.listByNamespace(QStringLiteral("a")).size(), 2);
    QCOMPARE(lister.listByNamespace(QStringLiteral("a"), web).size(), 1);
    // Without a namespace index the lister filters the whole store.
    Indexer plain;
    plain.add(pod(QStringLiteral("a"), QStringLiteral("x")));
    plain.add(pod(QStringLiteral("b"), QStringLiteral("y")));
    QCOMPARE(Lister(&plain).listByNamespace(QStringLiteral("b")).size(), 1);
}

// The store's table reuses the entries of removed keys: after random adds, updates, removals
// and a replace, list(), listKeys(), size(), getByKey() and the index agree with a map.
void tst_Indexer::churnAgainstAModel()
{
    Indexer index({}, {{NamespaceIndex, metaNamespaceIndexFunc}});
    std::map<QString, QString> model; // key -> the label "v" of its object
    std::mt19937 random(15);
    const auto key = [](int k) { return QStringLiteral("ns%1/o%2").arg(k % 3).arg(k); };
    for (int step = 0; step < 20000; ++step) {
        const int k = int(random() % 300);
        if (step == 10000) { // a relist in the middle
            QList<Object> objects;
            for (int j = 0; j < 300; j += 7) {
                const QString v = QStringLiteral("r%1").arg(j);
                objects << pod(QStringLiteral("ns%1").arg(j % 3), QStringLiteral("o%1").arg(j),
                    {{QStringLiteral("v"), v}});
            }
            index.replace(objects);
            model.clear();
            for (int j = 0; j < 300; j += 7)
                model[key(j)] = QStringLiteral("r%1").arg(j);
        } else if (random() % 3 == 0) {
            index.removeByKey(key(k));
            model.erase(key(k));
        } else {
            const QString v = QString::number(step);
            index.update(pod(QStringLiteral("ns%1").arg(k % 3), QStringLiteral("o%1").arg(k),
                {{QStringLiteral("v"), v}}));
            model[key(k)] = v;
        }
    }
    QCOMPARE(index.size(), qsizetype(model.size()));
    QStringList keys = index.listKeys();
    keys.sort();
    QStringList expected;
    for (const auto &[k, v] : model)
        expected << k;
    QCOMPARE(keys, expected);
    QCOMPARE(index.list().size(), qsizetype(model.size()));
    for (const Object &o : index.list())
        QCOMPARE(o.labels().value(QStringLiteral("v")),
            model.at(o.namespaceName() + QLatin1Char('/') + o.name()));
    for (int k = 0; k < 300; ++k) {
        const auto found = index.getByKey(key(k));
        QCOMPARE(found.has_value(), model.count(key(k)) == 1);
    }
    qsizetype indexed = 0;
    for (int n = 0; n < 3; ++n)
        indexed += index.indexKeys(NamespaceIndex, QStringLiteral("ns%1").arg(n))->size();
    QCOMPARE(indexed, qsizetype(model.size()));
}

// A removed or replaced object is not kept alive by the store (its pooled entry lets go). An
// Object's key is computed once and kept in its block, so a copy of it is the last reference
// to that text once the block and the store's own copy of the key are gone.
void tst_Indexer::removedObjectsAreReleased()
{
    Indexer index({}, {{NamespaceIndex, metaNamespaceIndexFunc}});
    QString removedKey, replacedKey;
    {
        const Object a = pod(QStringLiteral("ns"), QStringLiteral("a"));
        const Object c = pod(QStringLiteral("ns"), QStringLiteral("c"));
        removedKey = a.key();
        replacedKey = c.key();
        index.add(a);
        index.add(c);
    }
    QVERIFY(!removedKey.isDetached()); // the block, held by the store, shares it
    index.removeByKey(QStringLiteral("ns/a"));
    QVERIFY(removedKey.isDetached());
    QVERIFY(!replacedKey.isDetached());
    index.replace({pod(QStringLiteral("ns"), QStringLiteral("d"))});
    QVERIFY(replacedKey.isDetached());
    QCOMPARE(index.listKeys(), QStringList {QStringLiteral("ns/d")});
}

QTEST_GUILESS_MAIN(tst_Indexer)
#include "tst_indexer.moc"
