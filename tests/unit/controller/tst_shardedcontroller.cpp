// SPDX-License-Identifier: Apache-2.0
// A sharded Controller (its context has a ShardFilter, docs/scale-out.md) against a fake
// filter: only owned keys are enqueued, a key the filter refuses at the start is dropped, one
// it holds back is tried again, every start is paired with finished() (errors and exceptions
// included), ownershipChanged() enqueues the caches again, and the shard key function maps
// reconcile keys to the keys hashed.
#include "../cache/fakelisterwatcher.h"

#include <qcm/builder/controllerbuilder.h>
#include <qcm/controller.h>
#include <qcm/metrics/registry.h>
#include <qcm/sharding/shardfilter.h>
#include <qcm/testing/fakeclient.h>

#include <QtTest/QtTest>

#include <algorithm>
#include <mutex>
#include <stdexcept>

using namespace qcm;
using namespace qcm::cache;
using namespace qcm::cache::testing;
using namespace std::chrono_literals;
using Admission = sharding::ShardFilter::Admission;

namespace {

class FakeShardFilter : public sharding::ShardFilter
{
public:
    void setOwned(const QStringList &keys)
    {
        std::lock_guard lock(m_mutex);
        m_owned = keys;
    }
    // The answers admit() gives for `key`, in order; then Start.
    void script(const QString &key, QList<Admission> answers)
    {
        std::lock_guard lock(m_mutex);
        m_script[key] = std::move(answers);
    }
    QStringList asked() const
    {
        std::lock_guard lock(m_mutex);
        return m_asked;
    }
    int started() const
    {
        std::lock_guard lock(m_mutex);
        return m_started;
    }
    int finishedCount() const
    {
        std::lock_guard lock(m_mutex);
        return m_finished;
    }

    bool owns(const QString &shardKey) const override
    {
        std::lock_guard lock(m_mutex);
        return m_owned.contains(shardKey);
    }
    Admission admit(const QString &shardKey) override
    {
        std::lock_guard lock(m_mutex);
        m_asked.append(shardKey);
        QList<Admission> &answers = m_script[shardKey];
        const Admission a = answers.isEmpty() ? Admission::Start : answers.takeFirst();
        if (a == Admission::Start)
            ++m_started;
        return a;
    }
    void finished(const QString &) override
    {
        std::lock_guard lock(m_mutex);
        ++m_finished;
    }

private:
    mutable std::mutex m_mutex;
    QStringList m_owned;
    QHash<QString, QList<Admission>> m_script;
    QStringList m_asked;
    int m_started = 0;
    int m_finished = 0;
};

class RecordingController : public Controller
{
public:
    using Controller::Controller;
    ~RecordingController() override { stop(10s); }

    std::function<ReconcileResult(const QString &)> onReconcile;

    int callsFor(const QString &key) const
    {
        std::lock_guard lock(m_mutex);
        return int(m_calls.count(key));
    }

protected:
    ReconcileResult reconcile(const QString &key) override
    {
        {
            std::lock_guard lock(m_mutex);
            m_calls.append(key);
        }
        return onReconcile ? onReconcile(key) : ReconcileResult::done();
    }

private:
    mutable std::mutex m_mutex;
    QStringList m_calls;
};

} // namespace

class tst_ShardedController : public QObject
{
    Q_OBJECT

private slots:
    void onlyOwnedKeysAreEnqueued();
    void aKeyRefusedAtTheStartIsDropped();
    void aKeyHeldBackIsTriedAgain();
    void everyStartIsFinished();
    void ownershipChangedEnqueuesTheCachesAgain();
    void theShardKeyFunctionMapsKeys();
    void aThrowingShardKeyFunctionHashesTheKey();
    void ownedKeysCountsTheWatchedCache();
    void ownedKeysCountsTheBuildersForKind();

private:
    ControllerContext context(const std::shared_ptr<FakeShardFilter> &filter);
    metrics::Registry m_registry;
    int m_next = 0;
};

ControllerContext tst_ShardedController::context(const std::shared_ptr<FakeShardFilter> &filter)
{
    ControllerContext c(QStringLiteral("sharded-%1").arg(++m_next));
    c.setMetricsRegistry(&m_registry);
    c.setShardFilter(filter);
    return c;
}

namespace {

// An informer over ConfigMaps ns/a, ns/b and ns/c.
struct ThreeObjects
{
    ThreeObjects()
    {
        lw.lists.push_back(listOf({cm(QStringLiteral("a"), QStringLiteral("1")),
                                      cm(QStringLiteral("b"), QStringLiteral("1")),
                                      cm(QStringLiteral("c"), QStringLiteral("1"))},
            QStringLiteral("1")));
        watch = lw.scriptWatch();
    }
    ~ThreeObjects() { informer.stop(); }

    FakeListerWatcher lw;
    std::shared_ptr<FakeWatch> watch;
    SharedIndexInformer informer {&lw, {}};
};

// A controller watching ThreeObjects, sharded by `filter`.
struct Sharded
{
    Sharded(const ControllerContext &context, std::shared_ptr<FakeShardFilter> f)
        : filter(std::move(f)), controller(context)
    { }
    void start()
    {
        controller.watch(&objects.informer);
        objects.informer.start();
        controller.start();
    }

    std::shared_ptr<FakeShardFilter> filter;
    ThreeObjects objects;
    RecordingController controller; // destroyed first
};

} // namespace

void tst_ShardedController::onlyOwnedKeysAreEnqueued()
{
    auto filter = std::make_shared<FakeShardFilter>();
    filter->setOwned({QStringLiteral("ns/a"), QStringLiteral("ns/b")});
    Sharded s(context(filter), filter);
    RecordingController &c = s.controller;
    s.start();
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/a")), 1);
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/b")), 1);
    c.enqueue(QStringLiteral("ns/c"));
    c.enqueueAfter(QStringLiteral("ns/c"), 1ms);
    c.enqueueRateLimited(QStringLiteral("ns/c"));
    QTest::qWait(200);
    QCOMPARE(c.callsFor(QStringLiteral("ns/c")), 0);
    QVERIFY(!filter->asked().contains(QStringLiteral("ns/c"))); // never even queued
}

void tst_ShardedController::aKeyRefusedAtTheStartIsDropped()
{
    auto filter = std::make_shared<FakeShardFilter>();
    filter->setOwned({QStringLiteral("ns/a"), QStringLiteral("ns/b"), QStringLiteral("ns/c")});
    filter->script(QStringLiteral("ns/c"), {Admission::NotMine});
    Sharded s(context(filter), filter);
    RecordingController &c = s.controller;
    s.start();
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/a")), 1);
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/b")), 1);
    QTRY_VERIFY(filter->asked().contains(QStringLiteral("ns/c")));
    QTest::qWait(1500); // longer than a held-back key's retry: a dropped key is not retried
    QCOMPARE(c.callsFor(QStringLiteral("ns/c")), 0);
    QCOMPARE(filter->asked().count(QStringLiteral("ns/c")), 1);
    QCOMPARE(c.queue().len(), 0);
}

void tst_ShardedController::aKeyHeldBackIsTriedAgain()
{
    auto filter = std::make_shared<FakeShardFilter>();
    filter->setOwned({QStringLiteral("ns/a")});
    filter->script(QStringLiteral("ns/a"), {Admission::Wait, Admission::Wait});
    Sharded s(context(filter), filter);
    RecordingController &c = s.controller;
    s.start();
    QTRY_COMPARE_WITH_TIMEOUT(c.callsFor(QStringLiteral("ns/a")), 1, 10000);
    QCOMPARE(filter->asked().count(QStringLiteral("ns/a")), 3);
}

void tst_ShardedController::everyStartIsFinished()
{
    auto filter = std::make_shared<FakeShardFilter>();
    filter->setOwned({QStringLiteral("ns/a"), QStringLiteral("ns/b"), QStringLiteral("ns/c")});
    Sharded s(context(filter), filter);
    RecordingController &c = s.controller;
    std::atomic<int> errors {0};
    c.onReconcile = [&](const QString &key) {
        if (key == QLatin1String("ns/b") && errors.fetch_add(1) < 2)
            return ReconcileResult::error(QStringLiteral("not yet"));
        if (key == QLatin1String("ns/c"))
            throw std::runtime_error("boom");
        return ReconcileResult::done();
    };
    s.start();
    QTRY_COMPARE_WITH_TIMEOUT(c.callsFor(QStringLiteral("ns/b")), 3, 10000);
    QTRY_VERIFY(c.callsFor(QStringLiteral("ns/c")) >= 2); // retried after throwing
    c.stop(5s);
    QVERIFY(filter->started() >= 6);
    QCOMPARE(filter->finishedCount(), filter->started());
}

void tst_ShardedController::ownershipChangedEnqueuesTheCachesAgain()
{
    auto filter = std::make_shared<FakeShardFilter>();
    filter->setOwned({QStringLiteral("ns/a")});
    Sharded s(context(filter), filter);
    RecordingController &c = s.controller;
    s.start();
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/a")), 1);
    filter->setOwned({QStringLiteral("ns/a"), QStringLiteral("ns/c")});
    emit filter->ownershipChanged();
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/c")), 1);
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/a")), 2);
    QTest::qWait(100);
    QCOMPARE(c.callsFor(QStringLiteral("ns/b")), 0);
}

void tst_ShardedController::theShardKeyFunctionMapsKeys()
{
    auto filter = std::make_shared<FakeShardFilter>();
    filter->setOwned({QStringLiteral("owner-of:ns/b")});
    Sharded s(context(filter), filter);
    RecordingController &c = s.controller;
    c.setShardKeyFunction([](const QString &key) { return QStringLiteral("owner-of:") + key; });
    s.start();
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/b")), 1);
    QCOMPARE(filter->asked(), QStringList {QStringLiteral("owner-of:ns/b")});
    QCOMPARE(c.callsFor(QStringLiteral("ns/a")), 0);
}

void tst_ShardedController::aThrowingShardKeyFunctionHashesTheKey()
{
    auto filter = std::make_shared<FakeShardFilter>();
    filter->setOwned({QStringLiteral("ns/c")});
    Sharded s(context(filter), filter);
    RecordingController &c = s.controller;
    c.setShardKeyFunction([](const QString &key) -> QString {
        throw std::runtime_error(("no owner for " + key).toStdString());
    });
    QTest::ignoreMessage(
        QtWarningMsg, QRegularExpression(QStringLiteral("shard key function threw")));
    s.start();
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/c")), 1); // the process lives on
    QCOMPARE(c.callsFor(QStringLiteral("ns/a")), 0);
}

void tst_ShardedController::ownedKeysCountsTheWatchedCache()
{
    auto filter = std::make_shared<FakeShardFilter>();
    filter->setOwned({QStringLiteral("owner-of:ns/a"), QStringLiteral("owner-of:ns/c")});
    Sharded s(context(filter), filter);
    RecordingController &c = s.controller;
    QCOMPARE(c.ownedKeys(), -1); // nothing given to watch() yet
    c.setShardKeyFunction([](const QString &key) { return QStringLiteral("owner-of:") + key; });
    s.start();
    QTRY_COMPARE(c.ownedKeys(), 2); // through the shard key function, like owns()
    filter->setOwned({QStringLiteral("owner-of:ns/b")});
    QCOMPARE(c.ownedKeys(), 1); // the newest ownership, at each call

    ControllerContext plain(QStringLiteral("not-sharded"));
    plain.setMetricsRegistry(&m_registry);
    ThreeObjects objects;
    RecordingController unsharded(plain);
    unsharded.watch(&objects.informer);
    QCOMPARE(unsharded.ownedKeys(), -1);
}

void tst_ShardedController::ownedKeysCountsTheBuildersForKind()
{
    const client::GroupVersionResource configMaps {
        QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};
    const client::GroupVersionResource secrets {
        QString(), QStringLiteral("v1"), QStringLiteral("secrets")};
    auto filter = std::make_shared<FakeShardFilter>();
    filter->setOwned({QStringLiteral("ns/a"), QStringLiteral("ns/b")});
    qcm::testing::FakeClient server;
    QObject owner;
    ControllerContext c = context(filter);
    c.setInformerFactory(server.informerFactory(&owner));
    RecordingController controller(c);
    // Secrets first: the primary informer is the For kind's, whatever the order.
    const std::optional<Error> error = builder::ControllerBuilder(controller)
                                           .owns(secrets)
                                           .forResource(configMaps, QStringLiteral("ConfigMap"))
                                           .complete();
    QVERIFY2(!error, error ? qPrintable(error->toString()) : "");
    for (const QString &name : {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}) {
        for (const auto &gvr : {configMaps, secrets}) {
            client::Object o;
            o.setNamespaceName(QStringLiteral("ns"));
            o.setName(name);
            QVERIFY(server.create(gvr, o));
        }
    }
    c.informerFactory()->start();
    QTRY_COMPARE(c.informerFactory()->informerFor(configMaps)->indexer().listKeys().size(), 3);
    QCOMPARE(controller.ownedKeys(), 2);
    c.informerFactory()->shutdown();
}

QTEST_MAIN(tst_ShardedController)
#include "tst_shardedcontroller.moc"
