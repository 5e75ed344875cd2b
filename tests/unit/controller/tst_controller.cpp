// SPDX-License-Identifier: Apache-2.0
// The Controller base class against fakes: the processNextWorkItem loop (forget, rate-limited
// retry, requeue-after, done always), exceptions, waiting for the caches, the enqueue helpers,
// one key never in two workers, draining on stop, the metrics, and reconciling only during the
// leadership term the controller was created in.
#include "../cache/fakelisterwatcher.h"
#include "../leaderelection/fakeelections.h"

#include <qcm/controller.h>
#include <qcm/fakeclock.h>
#include <qcm/metrics/registry.h>
#include <qcm/record/fakerecorder.h>

#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <stdexcept>

using namespace qcm;
using namespace qcm::cache;
using namespace qcm::cache::testing;
using namespace std::chrono_literals;

class tst_Controller : public QObject
{
    Q_OBJECT

private slots:
    void successForgets();
    void errorRetriesWithBackoff();
    void requeueAfterWaitsItsDelay();
    void exceptionIsAnError_data();
    void exceptionIsAnError();
    void workersWaitForCacheSync();
    void watchEnqueuesEveryChange();
    void watchOwnedEnqueuesTheController();
    void handlerExceptionsAreCaught();
    void oneKeyNeverInTwoWorkers();
    void stopDrainsTheQueue();
    void stopTimesOutOnABusyWorker();
    void enqueueHelpers();
    void metricsUnderTheControllerName();
    void contextCarriesTheEventRecorder();
    void contextRefusesWhatAControllerLacks();
    void noReconcileWithAnEndedTerm();
    void noReconcileAfterTheTermEnds();

private:
    FakeClock m_clock;
    metrics::Registry m_registry;
    int m_next = 0;
    ControllerContext context(int workers = 1);
};

namespace {

// Opens and closes for the workers: reconcile() blocks in wait() until open().
class Gate
{
public:
    void open()
    {
        std::lock_guard lock(m_mutex);
        m_open = true;
        m_changed.notify_all();
    }
    void wait()
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [&] { return m_open; });
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_open = false;
};

class TestController : public Controller
{
public:
    using Controller::Controller;
    ~TestController() override { stop(10s); }

    std::function<ReconcileResult(const QString &, int call)> onReconcile;

    // A new list each time: the workers append while the test reads (a shared QList
    // would detach under a reader that only holds a copy).
    QStringList calls() const
    {
        std::lock_guard lock(m_mutex);
        return QStringList(m_calls.begin(), m_calls.end());
    }
    int callsFor(const QString &key) const
    {
        std::lock_guard lock(m_mutex);
        return int(std::count(m_calls.begin(), m_calls.end(), key));
    }
    int maxConcurrentForOneKey() const
    {
        std::lock_guard lock(m_mutex);
        return m_maxSameKey;
    }

protected:
    ReconcileResult reconcile(const QString &key) override
    {
        int call;
        {
            std::lock_guard lock(m_mutex);
            m_calls.push_back(key);
            call = int(std::count(m_calls.begin(), m_calls.end(), key));
            m_maxSameKey = std::max(m_maxSameKey, ++m_inFlight[key]);
        }
        struct Leave
        {
            TestController *c;
            QString key;
            ~Leave()
            {
                std::lock_guard lock(c->m_mutex);
                --c->m_inFlight[key];
            }
        } leave {this, key};
        return onReconcile ? onReconcile(key, call) : ReconcileResult::done();
    }

private:
    mutable std::mutex m_mutex;
    std::vector<QString> m_calls;
    std::map<QString, int> m_inFlight;
    int m_maxSameKey = 0;
};

// One series of `registry`, or -1 if it does not exist.
double sample(const metrics::Registry &registry, const QString &name, const metrics::Labels &labels)
{
    for (const metrics::MetricFamily &family : registry.collect()) {
        if (family.name != name)
            continue;
        for (const metrics::ClientMetric &m : family.metrics) {
            if (m.labels == labels)
                return family.type == metrics::MetricType::Histogram ? double(m.count) : m.value;
        }
    }
    return -1;
}

Object owned(const QString &name, const QString &rv, const QList<OwnerReference> &owners)
{
    Object o = cm(name, rv);
    o.setOwnerReferences(owners);
    return o;
}

OwnerReference ownerRef(
    const QString &apiVersion, const QString &kind, const QString &name, bool controller = true)
{
    OwnerReference r;
    r.apiVersion = apiVersion;
    r.kind = kind;
    r.name = name;
    r.uid = name + QStringLiteral("-uid");
    r.controller = controller;
    return r;
}

} // namespace

ControllerContext tst_Controller::context(int workers)
{
    // A name of its own per test: the series of one test do not mix with another's.
    ControllerContext c(QStringLiteral("test-%1").arg(++m_next));
    c.setClock(&m_clock);
    c.setMetricsRegistry(&m_registry);
    c.setWorkers(workers);
    return c;
}

void tst_Controller::successForgets()
{
    TestController c(context());
    c.start();
    QVERIFY(c.hasSynced()); // nothing to wait for
    c.enqueue(QStringLiteral("ns/a"));
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/a")), 1);
    QTRY_COMPARE(sample(m_registry, QStringLiteral("qcm_reconcile_total"),
                     {{QStringLiteral("controller"), c.name()},
                         {QStringLiteral("result"), QStringLiteral("success")}}),
        1.0);
    QCOMPARE(c.queue().numRequeues(QStringLiteral("ns/a")), 0);
    QCOMPARE(c.queue().waitingLen(), 0);
}

void tst_Controller::errorRetriesWithBackoff()
{
    TestController c(context());
    c.onReconcile = [](const QString &, int call) {
        return call <= 2 ? ReconcileResult::error(QStringLiteral("try again"))
                         : ReconcileResult::done();
    };
    c.start();
    c.enqueue(QStringLiteral("ns/a"));
    // First failure: back off 5 ms (the default controller limiter's base delay).
    QTRY_COMPARE(c.queue().waitingLen(), 1);
    QCOMPARE(c.queue().numRequeues(QStringLiteral("ns/a")), 1);
    QCOMPARE(c.callsFor(QStringLiteral("ns/a")), 1);
    m_clock.step(4ms);
    QCOMPARE(c.queue().waitingLen(), 1); // not yet
    m_clock.step(1ms);
    // Second failure: 10 ms.
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/a")), 2);
    QTRY_COMPARE(c.queue().waitingLen(), 1);
    QCOMPARE(c.queue().numRequeues(QStringLiteral("ns/a")), 2);
    m_clock.step(9ms);
    QCOMPARE(c.callsFor(QStringLiteral("ns/a")), 2);
    m_clock.step(1ms);
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/a")), 3);
    // Success forgets the failures.
    QTRY_COMPARE(c.queue().numRequeues(QStringLiteral("ns/a")), 0);
    const metrics::Labels controller {{QStringLiteral("controller"), c.name()}};
    auto total = [&](const char *result) {
        return sample(m_registry, QStringLiteral("qcm_reconcile_total"),
            {{QStringLiteral("controller"), c.name()},
                {QStringLiteral("result"), QLatin1String(result)}});
    };
    QTRY_COMPARE(total("success"), 1.0);
    QCOMPARE(total("error"), 2.0);
    QCOMPARE(sample(m_registry, QStringLiteral("qcm_reconcile_errors_total"), controller), 2.0);
    QCOMPARE(sample(m_registry, QStringLiteral("workqueue_retries_total"),
                 {{QStringLiteral("name"), c.name()}}),
        2.0);
}

void tst_Controller::requeueAfterWaitsItsDelay()
{
    TestController c(context());
    c.onReconcile = [](const QString &, int call) {
        return call == 1 ? ReconcileResult::requeueAfter(30s) : ReconcileResult::done();
    };
    c.start();
    c.enqueue(QStringLiteral("ns/ttl"));
    QTRY_COMPARE(c.queue().waitingLen(), 1);
    QCOMPARE(c.queue().numRequeues(QStringLiteral("ns/ttl")), 0); // forgotten, not rate-limited
    m_clock.step(29s);
    QCOMPARE(c.queue().waitingLen(), 1);
    QCOMPARE(c.callsFor(QStringLiteral("ns/ttl")), 1);
    m_clock.step(1s);
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/ttl")), 2);
    QTRY_COMPARE(sample(m_registry, QStringLiteral("qcm_reconcile_total"),
                     {{QStringLiteral("controller"), c.name()},
                         {QStringLiteral("result"), QStringLiteral("requeue_after")}}),
        1.0);
}

void tst_Controller::exceptionIsAnError_data()
{
    QTest::addColumn<bool>("standard");
    QTest::newRow("std::exception") << true;
    QTest::newRow("anything else") << false;
}

void tst_Controller::exceptionIsAnError()
{
    QFETCH(bool, standard);
    TestController c(context());
    c.onReconcile = [standard](const QString &, int call) -> ReconcileResult {
        if (call == 1) {
            if (standard)
                throw std::runtime_error("boom");
            throw 42;
        }
        return ReconcileResult::done();
    };
    c.start();
    if (standard)
        QTest::ignoreMessage(QtWarningMsg,
            QRegularExpression(QStringLiteral("reconcile of \"ns/a\" threw: boom; requeuing")));
    else
        QTest::ignoreMessage(QtWarningMsg,
            QRegularExpression(QStringLiteral("threw: an exception that is not a std::exception")));
    QTest::ignoreMessage(
        QtWarningMsg, QRegularExpression(QStringLiteral("error syncing \"ns/a\"")));
    c.enqueue(QStringLiteral("ns/a"));
    QTRY_COMPARE(c.queue().waitingLen(), 1); // requeued, rate-limited
    QCOMPARE(c.queue().numRequeues(QStringLiteral("ns/a")), 1);
    const metrics::Labels controller {{QStringLiteral("controller"), c.name()}};
    QCOMPARE(sample(m_registry, QStringLiteral("qcm_reconcile_exceptions_total"), controller), 1.0);
    QCOMPARE(sample(m_registry, QStringLiteral("qcm_reconcile_errors_total"), controller), 1.0);
    m_clock.step(5ms);
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/a")), 2); // and the workers go on
    QTRY_COMPARE(c.queue().numRequeues(QStringLiteral("ns/a")), 0);
}

void tst_Controller::workersWaitForCacheSync()
{
    // A ListerWatcher whose first list blocks until the test lets it answer.
    class GatedListerWatcher : public FakeListerWatcher
    {
    public:
        Gate gate;
        Result<ObjectList, Status> list(const ListOptions &options) override
        {
            gate.wait();
            return FakeListerWatcher::list(options);
        }
    };
    GatedListerWatcher lw;
    lw.lists.push_back(listOf({cm(QStringLiteral("a"), QStringLiteral("1"))}, QStringLiteral("1")));
    SharedIndexInformer informer(&lw, {});
    TestController c(context());
    c.watch(&informer);
    QSignalSpy started(&c, &Controller::workersStarted);
    informer.start();
    c.start();
    c.enqueue(QStringLiteral("ns/early"));
    QTest::qWait(100);
    QVERIFY(!c.hasSynced());
    QCOMPARE(started.count(), 0);
    QCOMPARE(c.calls(), QStringList {}); // queued, but no worker yet
    lw.gate.open();
    QTRY_COMPARE(started.count(), 1);
    QVERIFY(c.hasSynced());
    QTRY_COMPARE(c.calls().size(), 2);
    QCOMPARE(c.callsFor(QStringLiteral("ns/early")), 1);
    QCOMPARE(c.callsFor(QStringLiteral("ns/a")), 1);
    c.stop(5s);
    informer.stop();
}

void tst_Controller::watchEnqueuesEveryChange()
{
    FakeListerWatcher lw;
    lw.lists.push_back(listOf({cm(QStringLiteral("a"), QStringLiteral("1")),
                                  cm(QStringLiteral("b"), QStringLiteral("1"))},
        QStringLiteral("1")));
    auto watch = lw.scriptWatch();
    SharedIndexInformer informer(&lw, {});
    TestController c(context());
    c.watch(&informer);
    informer.start();
    c.start();
    QTRY_VERIFY(c.hasSynced());
    QTRY_COMPARE(c.calls().size(), 2);
    watch->push(watchEvent(WatchEvent::Type::Added, cm(QStringLiteral("c"), QStringLiteral("2"))));
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/c")), 1);
    watch->push(
        watchEvent(WatchEvent::Type::Modified, cm(QStringLiteral("a"), QStringLiteral("3"))));
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/a")), 2);
    watch->push(
        watchEvent(WatchEvent::Type::Deleted, cm(QStringLiteral("b"), QStringLiteral("4"))));
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/b")), 2);
    c.stop(5s);
    informer.stop();
}

void tst_Controller::watchOwnedEnqueuesTheController()
{
    const QString apps = QStringLiteral("samplecontroller.k8s.io/v1alpha1");
    FakeListerWatcher lw;
    lw.lists.push_back(
        listOf({owned(QStringLiteral("d1"), QStringLiteral("1"),
                    {ownerRef(apps, QStringLiteral("Foo"), QStringLiteral("foo1"))}),
                   // Not the controller reference: ignored.
                   owned(QStringLiteral("d2"), QStringLiteral("1"),
                       {ownerRef(apps, QStringLiteral("Foo"), QStringLiteral("foo2"), false)}),
                   // Another kind, and another group with the same kind: ignored.
                   owned(QStringLiteral("d3"), QStringLiteral("1"),
                       {ownerRef(apps, QStringLiteral("Bar"), QStringLiteral("bar"))}),
                   owned(QStringLiteral("d4"), QStringLiteral("1"),
                       {ownerRef(QStringLiteral("other.io/v1"), QStringLiteral("Foo"),
                           QStringLiteral("foo4"))}),
                   // Another version of the same group and kind: the controller.
                   owned(QStringLiteral("d5"), QStringLiteral("1"),
                       {ownerRef(QStringLiteral("samplecontroller.k8s.io/v1"),
                           QStringLiteral("Foo"), QStringLiteral("foo5"))}),
                   cm(QStringLiteral("orphan"), QStringLiteral("1"))},
            QStringLiteral("1")));
    auto watch = lw.scriptWatch();
    SharedIndexInformer informer(&lw, {});
    TestController c(context());
    c.watchOwned(&informer, QStringLiteral("samplecontroller.k8s.io"), QStringLiteral("Foo"));
    informer.start();
    c.start();
    QTRY_COMPARE(c.calls().size(), 2);
    QCOMPARE(c.callsFor(QStringLiteral("ns/foo1")), 1);
    QCOMPARE(c.callsFor(QStringLiteral("ns/foo5")), 1);
    // The controller moved from foo1 to foo6: both owners hear of it.
    watch->push(watchEvent(WatchEvent::Type::Modified,
        owned(QStringLiteral("d1"), QStringLiteral("2"),
            {ownerRef(apps, QStringLiteral("Foo"), QStringLiteral("foo6"))})));
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/foo6")), 1);
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/foo1")), 2);
    watch->push(watchEvent(WatchEvent::Type::Deleted,
        owned(QStringLiteral("d5"), QStringLiteral("3"),
            {ownerRef(QStringLiteral("samplecontroller.k8s.io/v1"), QStringLiteral("Foo"),
                QStringLiteral("foo5"))})));
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/foo5")), 2);
    QCOMPARE(c.calls().size(), 5);
    c.stop(5s);
    informer.stop();
}

void tst_Controller::handlerExceptionsAreCaught()
{
    FakeListerWatcher lw;
    lw.lists.push_back(listOf({cm(QStringLiteral("a"), QStringLiteral("1")),
                                  cm(QStringLiteral("b"), QStringLiteral("1"))},
        QStringLiteral("1")));
    SharedIndexInformer informer(&lw, {});
    TestController c(context());
    ResourceEventHandler handler;
    handler.onAdd = [&](const Object &object, bool) {
        if (object.name() == QLatin1String("a"))
            throw std::runtime_error("handler bug");
        c.enqueue(object);
    };
    c.addEventHandler(&informer, handler);
    QTest::ignoreMessage(
        QtWarningMsg, QRegularExpression(QStringLiteral("the add handler threw: handler bug")));
    informer.start();
    c.start();
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/b")), 1); // the next event was handled
    QCOMPARE(sample(m_registry, QStringLiteral("qcm_handler_exceptions_total"),
                 {{QStringLiteral("controller"), c.name()}}),
        1.0);
    c.stop(5s);
    informer.stop();
}

void tst_Controller::oneKeyNeverInTwoWorkers()
{
    Gate gate;
    TestController c(context(4));
    c.onReconcile = [&](const QString &, int) {
        gate.wait();
        return ReconcileResult::done();
    };
    c.start();
    for (const char *key : {"ns/a", "ns/b", "ns/c", "ns/d"})
        c.enqueue(QString::fromLatin1(key));
    // Four keys, four workers: all in reconcile at once.
    QTRY_COMPARE(c.activeWorkers(), 4);
    QCOMPARE(sample(m_registry, QStringLiteral("qcm_active_workers"),
                 {{QStringLiteral("controller"), c.name()}}),
        4.0);
    // ns/a again while it is being reconciled: it waits for its first reconcile to finish.
    c.enqueue(QStringLiteral("ns/a"));
    c.enqueue(QStringLiteral("ns/a"));
    QCOMPARE(c.queue().len(), 0); // dirty, but not queued while processing
    gate.open();
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/a")), 2); // the two adds were one
    QTRY_COMPARE(c.activeWorkers(), 0);
    QCOMPARE(c.maxConcurrentForOneKey(), 1);
    QCOMPARE(c.calls().size(), 5);
}

void tst_Controller::stopDrainsTheQueue()
{
    Gate gate;
    TestController c(context(2));
    c.onReconcile = [&](const QString &, int) {
        gate.wait();
        return ReconcileResult::done();
    };
    c.start();
    for (int i = 0; i < 10; ++i)
        c.enqueue(QStringLiteral("ns/k%1").arg(i));
    QTRY_COMPARE(c.activeWorkers(), 2);
    c.shutDown();
    c.enqueue(QStringLiteral("ns/late")); // refused once shutting down
    gate.open();
    QVERIFY(c.waitForStopped(10s));
    QCOMPARE(c.calls().size(), 10); // everything queued before the stop was reconciled
    QCOMPARE(c.callsFor(QStringLiteral("ns/late")), 0);
    QVERIFY(!c.isStarted());
    c.start(); // a stopped controller does not start again
    QVERIFY(!c.isStarted());
}

void tst_Controller::stopTimesOutOnABusyWorker()
{
    Gate gate;
    TestController c(context());
    c.onReconcile = [&](const QString &, int) {
        gate.wait();
        return ReconcileResult::done();
    };
    c.start();
    c.enqueue(QStringLiteral("ns/stuck"));
    QTRY_COMPARE(c.activeWorkers(), 1);
    QTest::ignoreMessage(QtWarningMsg,
        QRegularExpression(
            QStringLiteral("1 worker\\(s\\) still in reconcile\\(\\) after the shutdown timeout")));
    QElapsedTimer timer;
    timer.start();
    QVERIFY(!c.stop(100ms));
    QVERIFY(timer.elapsed() >= 100);
    QVERIFY(timer.elapsed() < 5000);
    gate.open();
    QVERIFY(c.waitForStopped(10s)); // the worker returns on its own
}

void tst_Controller::enqueueHelpers()
{
    TestController c(context());
    c.enqueue(cm(QStringLiteral("a"), QStringLiteral("1")));
    Object clusterScoped;
    clusterScoped.setName(QStringLiteral("node-1"));
    c.enqueue(clusterScoped);
    QTest::ignoreMessage(
        QtWarningMsg, QRegularExpression(QStringLiteral("cannot enqueue an object")));
    c.enqueue(Object()); // no name: refused with a warning
    QCOMPARE(c.queue().len(), 2);
    QVERIFY(c.enqueueOwner(owned(QStringLiteral("d"), QStringLiteral("1"),
                               {ownerRef(QStringLiteral("apps/v1"), QStringLiteral("ReplicaSet"),
                                   QStringLiteral("rs"))}),
        QStringLiteral("apps"), QStringLiteral("ReplicaSet")));
    QVERIFY(!c.enqueueOwner(cm(QStringLiteral("x"), QStringLiteral("1")), QStringLiteral("apps"),
        QStringLiteral("ReplicaSet")));
    QCOMPARE(c.queue().len(), 3);
    c.enqueueAfter(QStringLiteral("ns/later"), 1min);
    c.enqueueRateLimited(QStringLiteral("ns/limited"));
    QCOMPARE(c.queue().waitingLen(), 2);
    QCOMPARE(c.queue().numRequeues(QStringLiteral("ns/limited")), 1);
    c.start();
    QTRY_COMPARE(c.calls().size(), 3);
    const QStringList calls = c.calls();
    QCOMPARE(QSet<QString>(calls.begin(), calls.end()),
        (QSet<QString> {
            QStringLiteral("ns/a"), QStringLiteral("node-1"), QStringLiteral("ns/rs")}));
    m_clock.step(1min);
    QTRY_COMPARE(c.calls().size(), 5);
}

void tst_Controller::metricsUnderTheControllerName()
{
    TestController c(context(3));
    c.start();
    c.enqueue(QStringLiteral("ns/a"));
    QTRY_COMPARE(c.callsFor(QStringLiteral("ns/a")), 1);
    const metrics::Labels controller {{QStringLiteral("controller"), c.name()}};
    const metrics::Labels queue {{QStringLiteral("name"), c.name()}};
    QCOMPARE(sample(m_registry, QStringLiteral("qcm_max_concurrent_reconciles"), controller), 3.0);
    QTRY_COMPARE(sample(m_registry, QStringLiteral("qcm_reconcile_time_seconds"), controller), 1.0);
    QCOMPARE(sample(m_registry, QStringLiteral("workqueue_adds_total"), queue), 1.0);
    QTRY_COMPARE(sample(m_registry, QStringLiteral("workqueue_work_duration_seconds"), queue), 1.0);
    QCOMPARE(sample(m_registry, QStringLiteral("workqueue_depth"), queue), 0.0);
    // Without a registry in its context, a controller keeps its metrics to itself.
    ControllerContext bare(QStringLiteral("bare"));
    TestController alone(bare);
    QCOMPARE(sample(m_registry, QStringLiteral("qcm_max_concurrent_reconciles"),
                 {{QStringLiteral("controller"), QStringLiteral("bare")}}),
        -1.0);
}

// The host's recorder reaches the controller through its context; copies share it, and a
// copy given another recorder leaves the original's alone.
void tst_Controller::contextCarriesTheEventRecorder()
{
    ControllerContext c = context();
    QVERIFY(!c.eventRecorder());
    auto recorder = std::make_shared<record::FakeRecorder>();
    c.setEventRecorder(recorder);
    TestController controller(c);
    client::Object object;
    object.setApiVersion(QStringLiteral("v1"));
    object.setKind(QStringLiteral("ConfigMap"));
    object.setNamespaceName(QStringLiteral("ns"));
    object.setName(QStringLiteral("cm"));
    controller.context().eventRecorder()->event(
        object, QStringLiteral("Normal"), QStringLiteral("Synced"), QStringLiteral("done"));
    QCOMPARE(recorder->events(), QStringList {QStringLiteral("Normal Synced done")});
    ControllerContext other = c;
    other.setEventRecorder(nullptr);
    QCOMPARE(c.eventRecorder(), std::static_pointer_cast<record::EventRecorder>(recorder));
    QVERIFY(!other.eventRecorder());
}

// requireEventRecorder() and requireKnownSettings(): a plugin factory's refusals, named.
void tst_Controller::contextRefusesWhatAControllerLacks()
{
    ControllerContext c(QStringLiteral("demo"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, c.requireEventRecorder());
    try {
        c.requireEventRecorder();
    } catch (const std::invalid_argument &e) {
        QVERIFY2(QString::fromUtf8(e.what()).startsWith(QStringLiteral("demo records Events")),
            e.what());
    }
    auto recorder = std::make_shared<record::FakeRecorder>();
    c.setEventRecorder(recorder);
    QCOMPARE(c.requireEventRecorder(), std::static_pointer_cast<record::EventRecorder>(recorder));

    c.setSettings({{QStringLiteral("propagationPolicy"), QStringLiteral("Orphan")}});
    c.requireKnownSettings({QStringLiteral("propagationPolicy")}); // throws nothing
    QCOMPARE(unknownSetting(c.settings(), {QStringLiteral("propagationPolicy")}), std::nullopt);
    const std::optional<Error> unknown
        = unknownSetting(c.settings(), {QStringLiteral("a"), QStringLiteral("b")});
    QVERIFY(unknown);
    QCOMPARE(unknown->toString(),
        QStringLiteral("settings.propagationPolicy: unknown setting; the settings here are a, b"));
    QCOMPARE(unknownSetting(c.settings(), {})->toString(),
        QStringLiteral("settings.propagationPolicy: unknown setting; this controller has no "
                       "settings"));
    try {
        c.requireKnownSettings({});
        QFAIL("an unknown setting is refused");
    } catch (const std::invalid_argument &e) {
        QCOMPARE(QString::fromUtf8(e.what()), unknownSetting(c.settings(), {})->toString());
    }
}

// A context whose term is over (here a default, never valid token): no reconcile starts, and
// the queued keys are dropped, draining included.
void tst_Controller::noReconcileWithAnEndedTerm()
{
    ControllerContext c = context();
    QVERIFY(!c.leaderToken());
    c.setLeaderToken(leaderelection::LeaderToken());
    QVERIFY(c.leaderToken());
    TestController controller(c);
    QTest::ignoreMessage(QtInfoMsg,
        QRegularExpression(QStringLiteral("the leadership term has ended: no reconcile starts")));
    controller.start();
    controller.enqueue(QStringLiteral("ns/a"));
    controller.enqueue(QStringLiteral("ns/b"));
    QVERIFY(controller.stop(10s));
    QCOMPARE(controller.calls(), QStringList());
    QCOMPARE(controller.queue().numRequeues(QStringLiteral("ns/a")), 0);
}

// Rejoin mode, as the host runs it: the controller of a term reconciles while the term lasts.
// Once its token is no longer valid (a pause past renewDeadline: before the elector has even
// run again) no reconcile starts, neither for new keys nor for those queued behind a busy
// worker while the host drains the queue. The controller the host creates for the next term
// reconciles again.
void tst_Controller::noReconcileAfterTheTermEnds()
{
    leaderelection::testing::FakeElections elections;
    QVERIFY(elections.waitForTerms(1));
    ControllerContext first = context();
    first.setLeaderToken(elections.terms.first());
    Gate gate;
    TestController leader(first);
    leader.onReconcile = [&](const QString &key, int) {
        if (key == QLatin1String("ns/slow"))
            gate.wait();
        return ReconcileResult::done();
    };
    leader.start();
    leader.enqueue(QStringLiteral("ns/a"));
    QTRY_COMPARE(leader.callsFor(QStringLiteral("ns/a")), 1);
    leader.enqueue(QStringLiteral("ns/slow"));
    // Wait for ns/slow's reconcile itself: activeWorkers() alone is also 1 while the worker
    // still finishes ns/a, and ns/slow would then start after the term ended, and not run.
    QTRY_COMPARE(leader.callsFor(QStringLiteral("ns/slow")), 1);
    QCOMPARE(leader.activeWorkers(), 1);
    leader.enqueue(QStringLiteral("ns/queued")); // behind the busy worker

    elections.clock.step(3s); // the term is over
    QVERIFY(!elections.terms.first().isValid());
    QTest::ignoreMessage(QtInfoMsg,
        QRegularExpression(QStringLiteral("the leadership term has ended: no reconcile starts")));
    leader.enqueue(QStringLiteral("ns/new"));
    leader.shutDown(); // the host's stoppedLeading in rejoin mode: drain
    gate.open(); // the reconcile that was running finishes
    QVERIFY(leader.waitForStopped(10s));
    QCOMPARE(leader.calls(), (QStringList {QStringLiteral("ns/a"), QStringLiteral("ns/slow")}));

    // The next term: a new controller with the new token works again.
    QVERIFY(elections.waitForTerms(2));
    QVERIFY(elections.terms.last().isValid());
    ControllerContext second = context();
    second.setLeaderToken(elections.terms.last());
    TestController next(second);
    next.start();
    next.enqueue(QStringLiteral("ns/queued"));
    next.enqueue(QStringLiteral("ns/new"));
    QTRY_COMPARE(next.calls().size(), 2);
    QVERIFY(next.stop(10s));
}

QTEST_GUILESS_MAIN(tst_Controller)
#include "tst_controller.moc"
