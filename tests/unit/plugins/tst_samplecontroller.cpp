// SPDX-License-Identifier: Apache-2.0
// sample-controller against fakes: upstream's controller_test.go (TestCreatesDeployment,
// TestDoNothing, TestUpdateDeployment, TestNotControlledByUs) on syncHandler(), plus the
// status copy, the keys that are absorbed, errors, newDeployment(), and the controller running
// with its workers on informer events.
#include "foo.h"
#include "foocontroller.h"
#include "resources.h"
#include "samplestestsupport.h"
#include "settings.h"

#include <qcm/record/fakerecorder.h>

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::samples;
using namespace qcm::samples::testing;
using namespace std::chrono_literals;

class tst_SampleController : public QObject
{
    Q_OBJECT

private slots:
    void newDeploymentIsUpstreams();
    void createsDeployment();
    void doNothing();
    void updateDeployment();
    void notControlledByUs();
    void statusCopiesAvailableReplicas();
    void absorbedKeys_data();
    void absorbedKeys();
    void writeErrorsAreRetried_data();
    void writeErrorsAreRetried();
    void runsOnInformerEvents();
    void eventsGoToTheContextsRecorder();
    void settingsAreRefused();

private:
    struct Fixture;
};

namespace {

Object newFoo(const QString &name, std::optional<int> replicas)
{
    Object foo = newObject(QStringLiteral("samplecontroller.k8s.io/v1alpha1"),
        QStringLiteral("Foo"), QStringLiteral("default"), name);
    QJsonObject spec {{QStringLiteral("deploymentName"), name + QStringLiteral("-deployment")}};
    if (replicas)
        spec.insert(QStringLiteral("replicas"), *replicas);
    foo.json().insert(QStringLiteral("spec"), spec);
    return foo;
}

// The Deployment as the API server would hold it: newDeployment() with a uid, a version and
// the defaulted replicas.
Object storedDeployment(const Object &foo)
{
    Object d = withMetadata(newDeployment(foo), QStringLiteral("uid"),
        newDeployment(foo).name() + QStringLiteral("-uid"));
    d.setResourceVersion(QStringLiteral("1"));
    QJsonObject spec = d.json().value(QLatin1String("spec")).toObject();
    if (!spec.contains(QLatin1String("replicas")))
        spec.insert(QStringLiteral("replicas"), 1);
    d.json().insert(QStringLiteral("spec"), spec);
    return d;
}

Object withAvailableReplicas(Object deployment, int available)
{
    deployment.json().insert(
        QStringLiteral("status"), QJsonObject {{QStringLiteral("availableReplicas"), available}});
    return deployment;
}

} // namespace

// The fakes of one test: informers seeded with Foos and Deployments, the client's store, the
// Events, and the controller (made by controller()).
struct tst_SampleController::Fixture
{
    FakeClock clock;
    metrics::Registry registry;
    FakeInformers informers {&clock};
    std::shared_ptr<FakeObjectClient> client = std::make_shared<FakeObjectClient>();
    EventLog events;
    std::unique_ptr<FooController> foos;

    void seedFoos(const QList<Object> &objects)
    {
        informers.seed(Foos, objects);
        for (const Object &o : objects)
            client->add(Foos, o);
    }
    void seedDeployments(const QList<Object> &objects)
    {
        informers.seed(Deployments, objects);
        for (const Object &o : objects)
            client->add(Deployments, o);
    }
    // The controller, with its informers synced (upstream's newController + informer start).
    FooController &controller(int workers = 1)
    {
        ControllerContext context
            = testContext(QStringLiteral("sample-controller"), informers, clock, registry);
        context.setWorkers(workers);
        foos = std::make_unique<FooController>(context, client, events.recorder());
        if (!startInformers(informers))
            qFatal("the fake informers did not sync");
        return *foos;
    }
};

void tst_SampleController::newDeploymentIsUpstreams()
{
    const Object d = newDeployment(newFoo(QStringLiteral("test"), 3));
    QCOMPARE(d.apiVersion(), QStringLiteral("apps/v1"));
    QCOMPARE(d.kind(), QStringLiteral("Deployment"));
    QCOMPARE(d.name(), QStringLiteral("test-deployment"));
    QCOMPARE(d.namespaceName(), QStringLiteral("default"));
    QCOMPARE(d.ownerReferences().size(), 1);
    const OwnerReference owner = d.ownerReferences().first();
    QCOMPARE(owner.apiVersion, QStringLiteral("samplecontroller.k8s.io/v1alpha1"));
    QCOMPARE(owner.kind, QStringLiteral("Foo"));
    QCOMPARE(owner.name, QStringLiteral("test"));
    QCOMPARE(owner.uid, QStringLiteral("test-uid"));
    QVERIFY(owner.controller);
    QVERIFY(owner.blockOwnerDeletion);
    const QJsonObject spec = d.json().value(QLatin1String("spec")).toObject();
    QCOMPARE(spec.value(QLatin1String("replicas")).toInt(), 3);
    const QJsonObject labels {{QStringLiteral("app"), QStringLiteral("nginx")},
        {QStringLiteral("controller"), QStringLiteral("test")}};
    QCOMPARE(spec.value(QLatin1String("selector")).toObject().value(QLatin1String("matchLabels")),
        QJsonValue(labels));
    const QJsonObject podTemplate = spec.value(QLatin1String("template")).toObject();
    QCOMPARE(podTemplate.value(QLatin1String("metadata")).toObject().value(QLatin1String("labels")),
        QJsonValue(labels));
    const QJsonArray containers = podTemplate.value(QLatin1String("spec"))
                                      .toObject()
                                      .value(QLatin1String("containers"))
                                      .toArray();
    QCOMPARE(containers.size(), 1);
    QCOMPARE(containers.first().toObject().value(QLatin1String("name")).toString(),
        QStringLiteral("nginx"));
    QCOMPARE(containers.first().toObject().value(QLatin1String("image")).toString(),
        QStringLiteral("nginx:latest"));
    // Without spec.replicas the Deployment leaves it to the API server's default.
    QVERIFY(!newDeployment(newFoo(QStringLiteral("test"), std::nullopt))
                 .json()
                 .value(QLatin1String("spec"))
                 .toObject()
                 .contains(QLatin1String("replicas")));
    // metav1.IsControlledBy compares the controller reference's UID.
    QVERIFY(isControlledBy(d, newFoo(QStringLiteral("test"), 1)));
    QVERIFY(!isControlledBy(d,
        withMetadata(newFoo(QStringLiteral("test"), 1), QStringLiteral("uid"),
            QStringLiteral("another-uid"))));
}

void tst_SampleController::createsDeployment()
{
    Fixture f;
    const Object foo = newFoo(QStringLiteral("test"), 1);
    f.seedFoos({foo});
    ReconcileResult result = f.controller().syncHandler(QStringLiteral("default/test"));
    QVERIFY2(result.isDone(), qPrintable(result.errorMessage()));

    QCOMPARE(f.client->actionStrings(),
        QStringList({QStringLiteral("create deployments default/test-deployment"),
            QStringLiteral("update foos/status default/test")}));
    const std::vector<testing::Action> actions = f.client->actions();
    QCOMPARE(actions[0].object.json(), newDeployment(foo).json());
    QCOMPARE(actions[0].writeOptions.fieldManager, QStringLiteral("sample-controller"));
    // The status of the Deployment just created: nothing available yet.
    QCOMPARE(actions[1]
                 .object.json()
                 .value(QLatin1String("status"))
                 .toObject()
                 .value(QLatin1String("availableReplicas")),
        QJsonValue(0));
    QCOMPARE(actions[1].object.resourceVersion(), foo.resourceVersion()); // conditional
    QCOMPARE(actions[1].writeOptions.fieldManager, QStringLiteral("sample-controller"));
    QCOMPARE(
        f.events.events(), QStringList {QStringLiteral("Normal Synced Foo synced successfully")});
    QCOMPARE(f.events.objects(), QStringList {QStringLiteral("Foo default/test")});
    QVERIFY(f.client->stored(
        Deployments, QStringLiteral("default"), QStringLiteral("test-deployment")));
}

void tst_SampleController::doNothing()
{
    Fixture f;
    const Object foo = newFoo(QStringLiteral("test"), 1);
    f.seedFoos({foo});
    f.seedDeployments({storedDeployment(foo)});
    QVERIFY(f.controller().syncHandler(QStringLiteral("default/test")).isDone());
    QCOMPARE(
        f.client->actionStrings(), QStringList {QStringLiteral("update foos/status default/test")});
    QCOMPARE(
        f.events.events(), QStringList {QStringLiteral("Normal Synced Foo synced successfully")});
}

void tst_SampleController::updateDeployment()
{
    Fixture f;
    const Object foo = newFoo(QStringLiteral("test"), 2);
    f.seedFoos({foo});
    f.seedDeployments({storedDeployment(newFoo(QStringLiteral("test"), 1))});
    QVERIFY(f.controller().syncHandler(QStringLiteral("default/test")).isDone());
    QCOMPARE(f.client->actionStrings(),
        QStringList({QStringLiteral("update deployments default/test-deployment"),
            QStringLiteral("update foos/status default/test")}));
    // Upstream updates with newDeployment(foo): the whole object, unconditionally.
    QCOMPARE(f.client->actions()[0].object.json(), newDeployment(foo).json());
    const std::optional<Object> stored = f.client->stored(
        Deployments, QStringLiteral("default"), QStringLiteral("test-deployment"));
    QVERIFY(stored);
    QCOMPARE(deploymentReplicas(*stored), 2);
}

void tst_SampleController::notControlledByUs()
{
    Fixture f;
    const Object foo = newFoo(QStringLiteral("test"), 1);
    Object d = storedDeployment(foo);
    d.setOwnerReferences({});
    f.seedFoos({foo});
    f.seedDeployments({d});
    const ReconcileResult result = f.controller().syncHandler(QStringLiteral("default/test"));
    QVERIFY(result.isError());
    QCOMPARE(result.errorMessage(),
        QStringLiteral("Resource \"test-deployment\" already exists and is not managed by Foo"));
    QCOMPARE(f.events.events(),
        QStringList {QStringLiteral("Warning ErrResourceExists Resource \"test-deployment\" "
                                    "already exists and is not managed by Foo")});
    QCOMPARE(f.events.objects(), QStringList {QStringLiteral("Foo default/test")});
    QCOMPARE(f.client->actionStrings(), QStringList()); // neither the Deployment nor the status
}

void tst_SampleController::statusCopiesAvailableReplicas()
{
    Fixture f;
    const Object foo = newFoo(QStringLiteral("test"), 3);
    f.seedFoos({foo});
    f.seedDeployments({withAvailableReplicas(storedDeployment(foo), 2)});
    QVERIFY(f.controller().syncHandler(QStringLiteral("default/test")).isDone());
    const std::optional<Object> stored
        = f.client->stored(Foos, QStringLiteral("default"), QStringLiteral("test"));
    QVERIFY(stored);
    QCOMPARE(stored->json().value(QLatin1String("status")).toObject(),
        QJsonObject({{QStringLiteral("availableReplicas"), 2}}));
    // Only the status changed: the spec is the Foo's.
    QCOMPARE(stored->json().value(QLatin1String("spec")), foo.json().value(QLatin1String("spec")));
}

void tst_SampleController::absorbedKeys_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("log");
    QTest::newRow("Foo deleted") << QStringLiteral(
        "default/gone") << QStringLiteral("Foo 'default/gone' in work queue no longer exists");
    QTest::newRow("no deploymentName")
        << QStringLiteral("default/nameless")
        << QStringLiteral("default/nameless: deployment name must be specified");
    QTest::newRow("invalid key") << QStringLiteral("a/b/c")
                                 << QStringLiteral("invalid resource key: a/b/c");
}

// Keys that cannot succeed are logged and done, not retried (upstream returns nil).
void tst_SampleController::absorbedKeys()
{
    QFETCH(QString, key);
    QFETCH(QString, log);
    Fixture f;
    Object nameless = newFoo(QStringLiteral("nameless"), 1);
    nameless.json().insert(QStringLiteral("spec"), QJsonObject {{QStringLiteral("replicas"), 1}});
    f.seedFoos({nameless});
    FooController &c = f.controller();
    const ReconcileResult result = [&] {
        if (key == QLatin1String("default/gone"))
            QTest::ignoreMessage(QtInfoMsg, qPrintable(log));
        else
            QTest::ignoreMessage(QtWarningMsg, qPrintable(log));
        return c.syncHandler(key);
    }();
    QVERIFY(result.isDone());
    QCOMPARE(f.client->actionStrings(), QStringList());
    QCOMPARE(f.events.events(), QStringList());
}

void tst_SampleController::writeErrorsAreRetried_data()
{
    QTest::addColumn<QString>("failingVerb");
    QTest::addColumn<bool>("deploymentExists");
    QTest::addColumn<QStringList>("expectedActions");
    QTest::newRow("create fails") << QStringLiteral("create") << false
                                  << QStringList {QStringLiteral(
                                         "create deployments default/test-deployment")};
    QTest::newRow("update fails") << QStringLiteral("update") << true
                                  << QStringList {QStringLiteral(
                                         "update deployments default/test-deployment")};
}

// A failed write is an error (the queue retries it with backoff), and nothing after it runs.
void tst_SampleController::writeErrorsAreRetried()
{
    QFETCH(QString, failingVerb);
    QFETCH(bool, deploymentExists);
    QFETCH(QStringList, expectedActions);
    Fixture f;
    const Object foo = newFoo(QStringLiteral("test"), 2);
    f.seedFoos({foo});
    if (deploymentExists)
        f.seedDeployments({storedDeployment(newFoo(QStringLiteral("test"), 1))});
    f.client->prependReactor([&](const testing::Action &a) -> std::optional<ObjectResult> {
        if (a.verb != failingVerb)
            return std::nullopt;
        Status s;
        s.code = 500;
        s.reason = QStringLiteral("InternalError");
        s.message = QStringLiteral("etcd is down");
        return ObjectResult(s);
    });
    const ReconcileResult result = f.controller().syncHandler(QStringLiteral("default/test"));
    QVERIFY(result.isError());
    QVERIFY2(result.errorMessage().contains(QLatin1String("etcd is down")),
        qPrintable(result.errorMessage()));
    QCOMPARE(f.client->actionStrings(), expectedActions);
    QCOMPARE(f.events.events(), QStringList());
}

// The controller with its workers, its writes fed back to its informers: a Foo arriving
// through the watch gets its Deployment and status; a status change of the Deployment it owns
// syncs the Foo again (handleObject); a Foo whose Deployment is someone else's is retried with
// the queue's backoff.
void tst_SampleController::runsOnInformerEvents()
{
    Fixture f;
    FooController &c = f.controller(2);
    f.informers.follow(*f.client);
    c.start();
    QTRY_VERIFY(c.hasSynced());
    // Two workers may sync a Foo from a cache one write behind: the status update then
    // conflicts and is retried after a backoff on the fake clock, which this lets pass.
    auto eventually = [&](const std::function<bool()> &condition) {
        return QTest::qWaitFor([&] {
            f.clock.step(1s);
            return condition();
        });
    };
    auto availableReplicas = [&] {
        const std::optional<Object> foo
            = f.client->stored(Foos, QStringLiteral("default"), QStringLiteral("test"));
        return foo ? foo->json()
                         .value(QLatin1String("status"))
                         .toObject()
                         .value(QLatin1String("availableReplicas"))
                   : QJsonValue();
    };

    const Object foo = newFoo(QStringLiteral("test"), 1);
    f.client->add(Foos, foo);
    f.informers.watch(Foos)->push(watchEvent(WatchEvent::Type::Added, foo));
    QVERIFY(eventually([&] { return availableReplicas() == QJsonValue(0); }));
    const std::optional<Object> created = f.client->stored(
        Deployments, QStringLiteral("default"), QStringLiteral("test-deployment"));
    QVERIFY(created);
    QVERIFY(isControlledBy(
        *created, *f.client->stored(Foos, QStringLiteral("default"), QStringLiteral("test"))));

    // The Deployment's status changes (a Deployment controller would write it).
    QVERIFY(f.client->updateStatus(Deployments, withAvailableReplicas(*created, 1), {}));
    QVERIFY(eventually([&] { return availableReplicas() == QJsonValue(1); }));
    // One Deployment, created by the controller. The create itself may have been tried twice:
    // the Foo's status update can bring default/test back before the Deployment informer has
    // seen the new Deployment, and then (as in upstream's sample-controller) the second create
    // gets AlreadyExists and the key is retried. The two informers run on their own threads, so
    // which comes first is a race, and this test does not pin it.
    QVERIFY(f.client->actionStrings().count(
                QStringLiteral("create deployments default/test-deployment"))
        >= 1);
    QCOMPARE(
        f.client->stored(Deployments, QStringLiteral("default"), QStringLiteral("test-deployment"))
            ->uid(),
        created->uid());

    // Let retries of default/test on the fake clock pass, so that what waits below is
    // default/other (an informer event still in flight may add one more: hence >= 1 below).
    QVERIFY(eventually([&] { return c.queue().waitingLen() == 0 && c.queue().len() == 0; }));

    // A Foo whose Deployment exists and is not its own.
    Object orphan = storedDeployment(newFoo(QStringLiteral("other"), 1));
    orphan.setOwnerReferences({});
    f.client->add(Deployments, orphan);
    f.informers.watch(Deployments)->push(watchEvent(WatchEvent::Type::Added, orphan));
    // The Deployment informer runs on its own thread: until its cache holds the orphan, a sync
    // of default/other would try to create the Deployment (AlreadyExists, no Event).
    QTRY_VERIFY(f.informers.factory()
                    ->informerFor(Deployments)
                    ->lister()
                    .get(QStringLiteral("default"), QStringLiteral("other-deployment"))
                    .has_value());
    const Object other = newFoo(QStringLiteral("other"), 1);
    f.client->add(Foos, other);
    QTest::ignoreMessage(QtWarningMsg,
        QRegularExpression(QStringLiteral("error syncing \"default/other\": Resource "
                                          "\"other-deployment\" already exists and is not "
                                          "managed by Foo, requeuing")));
    f.informers.watch(Foos)->push(watchEvent(WatchEvent::Type::Added, other));
    QTRY_COMPARE(c.queue().numRequeues(QStringLiteral("default/other")), 1);
    QTRY_VERIFY(c.queue().waitingLen() >= 1); // backing off 5 ms, on the fake clock
    QTest::ignoreMessage(
        QtWarningMsg, QRegularExpression(QStringLiteral("error syncing \"default/other\"")));
    f.clock.step(5ms);
    QTRY_COMPARE(c.queue().numRequeues(QStringLiteral("default/other")), 2); // and again
    const QString warning = QStringLiteral(
        "Warning ErrResourceExists Resource \"other-deployment\" already exists and is not "
        "managed by Foo");
    QCOMPARE(f.events.events().count(warning), 2);
    QVERIFY(
        f.client->stored(Deployments, QStringLiteral("default"),
                    QStringLiteral("other-deployment"))
            ->ownerReferences()
            .isEmpty()); // left alone
    c.stop(10s);
}

// What the plugin creates (FooController(context)) records its Events with the context's
// recorder (eventRecorderFor()); a context without one is refused with the reason.
void tst_SampleController::eventsGoToTheContextsRecorder()
{
    Fixture f;
    const Object foo = newFoo(QStringLiteral("test"), 1);
    Object d = storedDeployment(foo);
    d.setOwnerReferences({}); // someone else's: the Warning comes before any write
    f.seedFoos({foo});
    f.seedDeployments({d});
    ControllerContext context
        = testContext(QStringLiteral("sample-controller"), f.informers, f.clock, f.registry);
    try {
        FooController refused(context);
        QFAIL("a context without an event recorder was accepted");
    } catch (const std::invalid_argument &e) {
        QCOMPARE(QString::fromUtf8(e.what()),
            QStringLiteral("this controller records Events, and its context has no event "
                           "recorder (ControllerContext::eventRecorder())"));
    }
    auto recorder = std::make_shared<record::FakeRecorder>(true);
    context.setEventRecorder(recorder);
    FooController c(context);
    QVERIFY(startInformers(f.informers));
    QVERIFY(c.syncHandler(QStringLiteral("default/test")).isError());
    QCOMPARE(recorder->events(),
        QStringList {QStringLiteral("Warning ErrResourceExists Resource \"test-deployment\" "
                                    "already exists and is not managed by Foo "
                                    "involvedObject{kind=Foo,apiVersion=samplecontroller.k8s.io/"
                                    "v1alpha1}")});
}

// sample-controller (and configmap-restarter) have no settings: the factory refuses any, so
// that a misspelt key in controller-manager.yaml is an error, not ignored.
void tst_SampleController::settingsAreRefused()
{
    QVERIFY(!unknownSetting({}, {}));
    const std::optional<Error> error = unknownSetting({{QStringLiteral("replicas"), 3}}, {});
    QVERIFY(error);
    QCOMPARE(error->toString(),
        QStringLiteral("settings.replicas: unknown setting; this controller has no settings"));
    FakeClock clock;
    metrics::Registry registry;
    FakeInformers informers(&clock);
    try {
        requireKnownSettings(testContext(QStringLiteral("sample-controller"), informers, clock,
                                 registry, {{QStringLiteral("replicas"), 3}}),
            {});
        QFAIL("a setting was accepted");
    } catch (const std::invalid_argument &e) {
        QCOMPARE(QString::fromUtf8(e.what()), error->toString());
    }
}

QTEST_GUILESS_MAIN(tst_SampleController)
#include "tst_samplecontroller.moc"
