// SPDX-License-Identifier: Apache-2.0
// Predicates, with controller-runtime's predicate_test.go cases where they apply
// (GenerationChangedPredicate, ResourceVersionChangedPredicate, LabelChangedPredicate,
// AnnotationChangedPredicate, LabelSelectorPredicate, And, Or, Not), and the ControllerBuilder
// that applies them: For, Owns, Watches and WithEventFilter on informers over a FakeClient.
#include <qcm/builder/controllerbuilder.h>
#include <qcm/testing/fakeclient.h>

#include <QtTest/QtTest>

#include <mutex>

using namespace qcm;
using namespace qcm::client;
using namespace qcm::predicate;

namespace {

Object object(const QString &rv, qint64 generation, const QMap<QString, QString> &labels = {},
    const QMap<QString, QString> &annotations = {})
{
    Object o(QJsonObject {{QStringLiteral("metadata"),
        QJsonObject {{QStringLiteral("name"), QStringLiteral("o")},
            {QStringLiteral("resourceVersion"), rv}, {QStringLiteral("generation"), generation}}}});
    if (!labels.isEmpty())
        o.setLabels(labels);
    if (!annotations.isEmpty())
        o.setAnnotations(annotations);
    return o;
}

const GroupVersionResource ConfigMaps {
    QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};
const GroupVersionResource Secrets {QString(), QStringLiteral("v1"), QStringLiteral("secrets")};
const GroupVersionResource Foos {
    QStringLiteral("example.com"), QStringLiteral("v1"), QStringLiteral("foos")};

// Records the keys it reconciles.
class RecordingController : public Controller
{
public:
    using Controller::Controller;
    // In sorted order: events of different informers, and two workers, have no order.
    QStringList keys()
    {
        std::lock_guard lock(m_mutex);
        QStringList sorted = m_keys;
        sorted.sort();
        return sorted;
    }

protected:
    ReconcileResult reconcile(const QString &key) override
    {
        std::lock_guard lock(m_mutex);
        m_keys.append(key);
        return ReconcileResult::done();
    }

private:
    std::mutex m_mutex;
    QStringList m_keys;
};

Object make(const QString &apiVersion, const QString &kind, const QString &name,
    const QMap<QString, QString> &labels = {})
{
    Object o(
        QJsonObject {{QStringLiteral("apiVersion"), apiVersion}, {QStringLiteral("kind"), kind}});
    o.setNamespaceName(QStringLiteral("ns"));
    o.setName(name);
    if (!labels.isEmpty())
        o.setLabels(labels);
    return o;
}

// A controller with one worker on informers over a fake client.
struct BuilderFixture
{
    static ControllerContext context(cache::SharedInformerFactory *informers)
    {
        ControllerContext c(QStringLiteral("builder-test"));
        c.setInformerFactory(informers);
        c.setWorkers(1);
        return c;
    }

    testing::FakeClient server;
    QObject owner;
    cache::SharedInformerFactory *informers = server.informerFactory(&owner);
    RecordingController controller {context(informers)};
};

} // namespace

class tst_Predicate : public QObject
{
    Q_OBJECT

private slots:
    void generationChanged();
    void resourceVersionChanged();
    void labelAndAnnotationChanged();
    void labelSelector();
    void combinations();
    void builderWiresForOwnsAndWatches();
    void builderEnqueuesAnUpdatesKeysOnce();
    void builderRefusesWithoutOneFor();
};

void tst_Predicate::generationChanged()
{
    const Predicate p = predicate::generationChanged();
    QVERIFY(p.passesCreate(object(QStringLiteral("1"), 1)));
    QVERIFY(p.passesRemove(object(QStringLiteral("1"), 1)));
    // "should return false when the generations are the same" (a status update, a resync)
    QVERIFY(!p.passesUpdate(object(QStringLiteral("1"), 1), object(QStringLiteral("2"), 1)));
    QVERIFY(p.passesUpdate(object(QStringLiteral("1"), 1), object(QStringLiteral("2"), 2)));
}

void tst_Predicate::resourceVersionChanged()
{
    const Predicate p = predicate::resourceVersionChanged();
    QVERIFY(!p.passesUpdate(object(QStringLiteral("1"), 1), object(QStringLiteral("1"), 1)));
    QVERIFY(p.passesUpdate(object(QStringLiteral("1"), 1), object(QStringLiteral("2"), 1)));
    QVERIFY(p.passesCreate(object(QStringLiteral("1"), 1)));
}

void tst_Predicate::labelAndAnnotationChanged()
{
    const QMap<QString, QString> a {{QStringLiteral("k"), QStringLiteral("a")}};
    const QMap<QString, QString> b {{QStringLiteral("k"), QStringLiteral("b")}};
    QVERIFY(predicate::labelChanged().passesUpdate(
        object(QStringLiteral("1"), 1, a), object(QStringLiteral("2"), 1, b)));
    QVERIFY(!predicate::labelChanged().passesUpdate(
        object(QStringLiteral("1"), 1, a), object(QStringLiteral("2"), 2, a)));
    QVERIFY(predicate::labelChanged().passesUpdate(
        object(QStringLiteral("1"), 1, a), object(QStringLiteral("2"), 1)));
    QVERIFY(predicate::annotationChanged().passesUpdate(
        object(QStringLiteral("1"), 1, {}, a), object(QStringLiteral("2"), 1, {}, b)));
    QVERIFY(!predicate::annotationChanged().passesUpdate(
        object(QStringLiteral("1"), 1, b, a), object(QStringLiteral("2"), 1, a, a)));
}

void tst_Predicate::labelSelector()
{
    const Predicate p
        = predicate::labelSelector(*cache::LabelSelector::parse(QStringLiteral("foo=bar")));
    const Object match
        = object(QStringLiteral("1"), 1, {{QStringLiteral("foo"), QStringLiteral("bar")}});
    const Object other
        = object(QStringLiteral("1"), 1, {{QStringLiteral("foo"), QStringLiteral("baz")}});
    QVERIFY(p.passesCreate(match));
    QVERIFY(!p.passesCreate(other));
    QVERIFY(p.passesRemove(match));
    QVERIFY(!p.passesRemove(other));
    QVERIFY(p.passesUpdate(other, match));
    QVERIFY(!p.passesUpdate(match, other));
}

void tst_Predicate::combinations()
{
    const Predicate yes {[](const Object &) { return true; },
        [](const Object &, const Object &) { return true; }, [](const Object &) { return true; }};
    const Predicate no = not_(yes);
    const Object o = object(QStringLiteral("1"), 1);
    // controller-runtime's And/Or/Not cases.
    QVERIFY(and_({yes, yes}).passesCreate(o));
    QVERIFY(!and_({yes, no}).passesCreate(o));
    QVERIFY(!and_({yes, no}).passesUpdate(o, o));
    QVERIFY(and_({}).passesRemove(o)); // an empty And passes
    QVERIFY(or_({no, yes}).passesUpdate(o, o));
    QVERIFY(!or_({no, no}).passesRemove(o));
    QVERIFY(!or_({}).passesCreate(o)); // an empty Or passes nothing
    QVERIFY(!no.passesCreate(o) && !no.passesUpdate(o, o) && !no.passesRemove(o));
    QVERIFY(not_(no).passesCreate(o));
    // A missing function passes (predicate.Funcs).
    QVERIFY(Predicate {}.passesUpdate(o, o));
}

void tst_Predicate::builderWiresForOwnsAndWatches()
{
    BuilderFixture f;
    testing::FakeClient &server = f.server;
    cache::SharedInformerFactory *informers = f.informers;
    RecordingController &controller = f.controller;
    // Foos reconciled, except those labelled skip=true (the event filter applies to every watch);
    // ConfigMaps owned by a Foo; Secrets mapped to the Foo their "foo" label names.
    const std::optional<Error> error
        = builder::ControllerBuilder(controller)
              .forResource(Foos, QStringLiteral("Foo"), OwnerScope::Namespaced,
                  predicate::generationChanged())
              .owns(ConfigMaps)
              .watches(Secrets,
                  [](const Object &s) {
                      return QStringList {
                          QStringLiteral("ns/") + s.labels().value(QStringLiteral("foo"))};
                  })
              .withEventFilter(not_(predicate::labelSelector(
                  *cache::LabelSelector::parse(QStringLiteral("skip=true")))))
              .withMaxConcurrentReconciles(2)
              .complete();
    QVERIFY2(!error, error ? qPrintable(error->toString()) : "");
    informers->start();
    // withMaxConcurrentReconciles(2) over the context's 1 (a missing message fails the test).
    QTest::ignoreMessage(QtInfoMsg, "caches synced; started 2 worker(s)");
    controller.start();
    QTRY_VERIFY_WITH_TIMEOUT(controller.hasSynced(), 10000);
    QCOMPARE(controller.activeWorkers(), 0);

    auto foo = server.create(
        Foos, make(QStringLiteral("example.com/v1"), QStringLiteral("Foo"), QStringLiteral("a")));
    QVERIFY(foo);
    QTRY_COMPARE_WITH_TIMEOUT(controller.keys(), QStringList {QStringLiteral("ns/a")}, 10000);
    QVERIFY(server.create(Foos,
        make(QStringLiteral("example.com/v1"), QStringLiteral("Foo"), QStringLiteral("skipped"),
            {{QStringLiteral("skip"), QStringLiteral("true")}})));
    // A ConfigMap controlled by Foo a enqueues a; one without an owner enqueues nothing.
    Object cm = make(QStringLiteral("v1"), QStringLiteral("ConfigMap"), QStringLiteral("owned"));
    OwnerReference ref;
    ref.apiVersion = QStringLiteral("example.com/v1");
    ref.kind = QStringLiteral("Foo");
    ref.name = QStringLiteral("a");
    ref.uid = foo->uid();
    ref.controller = true;
    cm.setOwnerReferences({ref});
    QVERIFY(server.create(ConfigMaps, cm));
    QVERIFY(server.create(ConfigMaps,
        make(QStringLiteral("v1"), QStringLiteral("ConfigMap"), QStringLiteral("orphan"))));
    QVERIFY(server.create(Secrets,
        make(QStringLiteral("v1"), QStringLiteral("Secret"), QStringLiteral("s"),
            {{QStringLiteral("foo"), QStringLiteral("mapped")}})));
    QTRY_COMPARE_WITH_TIMEOUT(controller.keys(),
        (QStringList {QStringLiteral("ns/a"), QStringLiteral("ns/a"), QStringLiteral("ns/mapped")}),
        10000);
    // An update of Foo a that leaves its generation (a status-like change) is filtered out.
    Object relabelled = *server.get(Foos, QStringLiteral("ns"), QStringLiteral("a"));
    relabelled.setLabels({{QStringLiteral("x"), QStringLiteral("y")}});
    QVERIFY(server.update(Foos, relabelled));
    QTest::qWait(300);
    QCOMPARE(controller.keys().size(), 3);
    QVERIFY(controller.stop(std::chrono::seconds(10)));
    informers->shutdown();
}

// An update whose old and new object map to the same key enqueues it once: enqueued once per
// object, a worker that takes it in between reconciles it a second time (controller-runtime's
// map handler collects the keys in a set). The map function of the new object waits until a
// worker has reconciled the key, which only happens if the old object's key was enqueued
// already; then exactly one reconcile follows the update.
void tst_Predicate::builderEnqueuesAnUpdatesKeysOnce()
{
    BuilderFixture f;
    testing::FakeClient &server = f.server;
    cache::SharedInformerFactory *informers = f.informers;
    RecordingController &controller = f.controller;
    int calls = 0; // the map function runs on this thread (handlers)
    const std::optional<Error> error
        = builder::ControllerBuilder(controller)
              .forResource(Foos, QStringLiteral("Foo"))
              .watches(Secrets,
                  [&](const Object &) {
                      if (++calls == 3) { // the new object of the update
                          QElapsedTimer waited;
                          waited.start();
                          while (controller.keys().size() < 2 && waited.elapsed() < 1000)
                              QThread::msleep(5);
                      }
                      return QStringList {QStringLiteral("ns/m")};
                  })
              .complete();
    QVERIFY2(!error, error ? qPrintable(error->toString()) : "");
    informers->start();
    controller.start();
    QTRY_VERIFY_WITH_TIMEOUT(controller.hasSynced(), 10000);
    QVERIFY(server.create(
        Secrets, make(QStringLiteral("v1"), QStringLiteral("Secret"), QStringLiteral("s"))));
    QTRY_COMPARE_WITH_TIMEOUT(controller.keys(), QStringList {QStringLiteral("ns/m")}, 10000);
    Object relabelled = *server.get(Secrets, QStringLiteral("ns"), QStringLiteral("s"));
    relabelled.setLabels({{QStringLiteral("x"), QStringLiteral("y")}});
    QVERIFY(server.update(Secrets, relabelled));
    QTRY_COMPARE_WITH_TIMEOUT(calls, 3, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(controller.keys().size(), 2, 10000);
    QTest::qWait(300);
    QCOMPARE(controller.keys(), (QStringList {QStringLiteral("ns/m"), QStringLiteral("ns/m")}));
    QVERIFY(controller.stop(std::chrono::seconds(10)));
    informers->shutdown();
}

void tst_Predicate::builderRefusesWithoutOneFor()
{
    testing::FakeClient server;
    QObject owner;
    ControllerContext context(QStringLiteral("builder-refused"));
    context.setInformerFactory(server.informerFactory(&owner));
    RecordingController controller(context);
    auto error = builder::ControllerBuilder(controller).owns(ConfigMaps).complete();
    QVERIFY(error);
    QCOMPARE(error->reason,
        QStringLiteral(
            "a controller reconciles exactly one kind; forKind/forResource was called 0 times"));
    RecordingController noFactory(ControllerContext(QStringLiteral("no-factory")));
    error
        = builder::ControllerBuilder(noFactory).forResource(Foos, QStringLiteral("Foo")).complete();
    QVERIFY(error);
    QCOMPARE(error->reason, QStringLiteral("the controller's context has no informer factory"));
}

QTEST_MAIN(tst_Predicate)
#include "tst_predicate.moc"
