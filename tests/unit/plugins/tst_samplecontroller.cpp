// SPDX-License-Identifier: Apache-2.0
// sample-controller against the kit's fakes (samplestestsupport.h: a FakeClient, informers on
// it, a FakeRecorder): upstream's controller_test.go (TestCreatesDeployment, TestDoNothing,
// TestUpdateDeployment, TestNotControlledByUs) on syncHandler(), plus the status copy, the keys
// that are absorbed, write errors, newDeployment(), and the controller running with its
// workers on informer events.
#include "foo.h"
#include "foocontroller.h"
#include "samplestestsupport.h"

#include <qcm/api/apps/v1.h>
#include <qcm/controllerutil/controllerutil.h>

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::samples;
using namespace qcm::samples::testing;
using namespace std::chrono_literals;
using api::apps::v1::Deployment;

class tst_SampleController : public QObject
{
    Q_OBJECT

private slots:
    void newDeploymentIsUpstreams();
    void createsDeployment();
    void doNothing_data();
    void doNothing();
    void updateDeployment();
    void notControlledByUs_data();
    void notControlledByUs();
    void statusCopiesAvailableReplicas();
    void absorbedKeys_data();
    void absorbedKeys();
    void writeErrorsAreRetried_data();
    void writeErrorsAreRetried();
    void runsOnInformerEvents();
    void eventsGoToTheContextsRecorder();
    void settingsAreRefused();
};

namespace {

const GroupVersionResource Foos = Foo::groupVersionResource();
const GroupVersionResource Deployments = Deployment::groupVersionResource();

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

// The Deployment as the API server holds it: newDeployment() with a uid, and the fields the
// server defaults (replicas, strategy, the pod template's), which no sync may write back.
Object storedDeployment(const Object &foo)
{
    Object d = newDeployment(Foo(foo));
    d = withMetadata(d, QStringLiteral("uid"), d.name() + QStringLiteral("-uid"));
    QJsonObject spec = d.json().value(QLatin1String("spec")).toObject();
    if (!spec.contains(QLatin1String("replicas")))
        spec.insert(QStringLiteral("replicas"), 1);
    spec.insert(QStringLiteral("strategy"),
        QJsonObject {{QStringLiteral("type"), QStringLiteral("RollingUpdate")}});
    QJsonObject podTemplate = spec.value(QLatin1String("template")).toObject();
    QJsonObject podSpec = podTemplate.value(QLatin1String("spec")).toObject();
    QJsonArray containers = podSpec.value(QLatin1String("containers")).toArray();
    QJsonObject container = containers.first().toObject();
    container.insert(QStringLiteral("imagePullPolicy"), QStringLiteral("Always"));
    containers.replace(0, container);
    podSpec.insert(QStringLiteral("containers"), containers);
    podSpec.insert(QStringLiteral("restartPolicy"), QStringLiteral("Always"));
    podTemplate.insert(QStringLiteral("spec"), podSpec);
    spec.insert(QStringLiteral("template"), podTemplate);
    d.json().insert(QStringLiteral("spec"), spec);
    return d;
}

Object withReplicas(Object deployment, int replicas)
{
    QJsonObject spec = deployment.json().value(QLatin1String("spec")).toObject();
    spec.insert(QStringLiteral("replicas"), replicas);
    deployment.json().insert(QStringLiteral("spec"), spec);
    return deployment;
}

Object withAvailableReplicas(Object deployment, int available)
{
    deployment.json().insert(
        QStringLiteral("status"), QJsonObject {{QStringLiteral("availableReplicas"), available}});
    return deployment;
}

// What the fixture's FakeRecorder (with the involved object) records for a Foo.
QString fooEvent(const QString &text)
{
    return text
        + QStringLiteral(" involvedObject{kind=Foo,apiVersion=samplecontroller.k8s.io/v1alpha1}");
}
const QString Synced = fooEvent(QStringLiteral("Normal Synced Foo synced successfully"));
QString resourceExists(const QString &deployment)
{
    return fooEvent(QStringLiteral("Warning ErrResourceExists Resource \"%1\" already exists and "
                                   "is not managed by Foo")
                        .arg(deployment));
}

// The fakes of one test (SampleFixture: the FakeClient, its informers, the FakeRecorder), with
// Foos' status subresource, and the controller (made by controller()).
struct Fixture : SampleFixture
{
    std::unique_ptr<FooController> foos;

    Fixture() { client->withStatusSubresource(Foos); }
    // The controller, with its informers synced (upstream's newController + informer start).
    FooController &controller(int workers = 1)
    {
        foos = std::make_unique<FooController>(
            context(QStringLiteral("sample-controller"), {}, workers), client, events);
        if (!startInformers())
            qFatal("the informers did not sync");
        return *foos;
    }
    // The object as the fake holds it now (through the tracker: no Action recorded).
    std::optional<Object> stored(const GroupVersionResource &gvr, const QString &name)
    {
        const ObjectResult o = client->tracker().get(gvr, QStringLiteral("default"), name);
        return o ? std::optional<Object>(*o) : std::nullopt;
    }
};

} // namespace

void tst_SampleController::newDeploymentIsUpstreams()
{
    const Object foo = newFoo(QStringLiteral("test"), 3);
    const Deployment d(newDeployment(Foo(foo)));
    QCOMPARE(d.object().apiVersion(), QStringLiteral("apps/v1"));
    QCOMPARE(d.object().kind(), QStringLiteral("Deployment"));
    QCOMPARE(d.name(), QStringLiteral("test-deployment"));
    QCOMPARE(d.namespaceName(), QStringLiteral("default"));
    QCOMPARE(d.object().ownerReferences().size(), 1);
    const OwnerReference owner = d.object().ownerReferences().first();
    QCOMPARE(owner.apiVersion, QStringLiteral("samplecontroller.k8s.io/v1alpha1"));
    QCOMPARE(owner.kind, QStringLiteral("Foo"));
    QCOMPARE(owner.name, QStringLiteral("test"));
    QCOMPARE(owner.uid, QStringLiteral("test-uid"));
    QVERIFY(owner.controller);
    QVERIFY(owner.blockOwnerDeletion);
    QCOMPARE(d.spec().replicas().value_or(-1), 3);
    const QMap<QString, QString> labels {{QStringLiteral("app"), QStringLiteral("nginx")},
        {QStringLiteral("controller"), QStringLiteral("test")}};
    QCOMPARE(d.spec().selector().matchLabels().toMap(), labels);
    QCOMPARE(d.spec().template_().metadata().labels().toMap(), labels);
    QCOMPARE(d.spec().template_().spec().containers().size(), 1);
    QCOMPARE(d.spec().template_().spec().containers().at(0).name(), QStringLiteral("nginx"));
    QCOMPARE(d.spec().template_().spec().containers().at(0).image(),
        std::optional<QString>(QStringLiteral("nginx:latest")));
    // Without spec.replicas the Deployment leaves it to the API server's default.
    QVERIFY(!Deployment(newDeployment(Foo(newFoo(QStringLiteral("test"), std::nullopt))))
                 .spec()
                 .replicas()
                 .has_value());
    // metav1.IsControlledBy: the controller reference's UID (a Foo of the same name recreated
    // is another Foo).
    QVERIFY(controllerutil::hasControllerReference(foo, d.object()));
    QVERIFY(!controllerutil::hasControllerReference(
        withMetadata(foo, QStringLiteral("uid"), QStringLiteral("another-uid")), d.object()));
}

void tst_SampleController::createsDeployment()
{
    Fixture f;
    const Object foo = f.seed(Foos, {newFoo(QStringLiteral("test"), 1)}).first();
    const ReconcileResult result = f.controller().syncHandler(QStringLiteral("default/test"));
    QVERIFY2(result.isDone(), qPrintable(result.errorMessage()));

    QCOMPARE(f.client->actionStrings(),
        QStringList({QStringLiteral("create deployments default/test-deployment"),
            QStringLiteral("update foos/status default/test")}));
    const QList<Action> actions = f.client->actions();
    QCOMPARE(actions[0].object.json(), newDeployment(Foo(foo)).json());
    QCOMPARE(actions[0].writeOptions.fieldManager, QStringLiteral("sample-controller"));
    // The status of the Deployment just created: nothing available yet.
    QCOMPARE(Foo(actions[1].object).status().availableReplicas().value_or(-1), 0);
    QCOMPARE(actions[1].object.resourceVersion(), foo.resourceVersion()); // conditional
    QCOMPARE(actions[1].writeOptions.fieldManager, QStringLiteral("sample-controller"));
    QCOMPARE(f.events->events(), QStringList {Synced});
    QVERIFY(f.stored(Deployments, QStringLiteral("test-deployment")));
}

void tst_SampleController::doNothing_data()
{
    QTest::addColumn<int>("fooReplicas"); // 0: unset
    QTest::addColumn<int>("deploymentReplicas");
    QTest::newRow("same replicas") << 1 << 1;
    // Upstream scales only when the Foo says how many.
    QTest::newRow("Foo without replicas") << 0 << 5;
}

// A Deployment as the API server holds it (with defaulted fields newDeployment() lacks) and the
// Foo's replicas: nothing to write but the status.
void tst_SampleController::doNothing()
{
    QFETCH(int, fooReplicas);
    QFETCH(int, deploymentReplicas);
    Fixture f;
    const Object foo = f.seed(Foos,
                            {newFoo(QStringLiteral("test"),
                                fooReplicas ? std::optional<int>(fooReplicas) : std::nullopt)})
                           .first();
    f.seed(Deployments, {withReplicas(storedDeployment(foo), deploymentReplicas)});
    QVERIFY(f.controller().syncHandler(QStringLiteral("default/test")).isDone());
    QCOMPARE(
        f.client->actionStrings(), QStringList {QStringLiteral("update foos/status default/test")});
    QCOMPARE(f.events->events(), QStringList {Synced});
}

// Only spec.replicas changes: what the API server defaulted stays, and the update is
// conditional on the cached Deployment's resourceVersion.
void tst_SampleController::updateDeployment()
{
    Fixture f;
    const Object foo = f.seed(Foos, {newFoo(QStringLiteral("test"), 2)}).first();
    const Object old = f.seed(Deployments, {withReplicas(storedDeployment(foo), 1)}).first();
    QVERIFY(f.controller().syncHandler(QStringLiteral("default/test")).isDone());
    QCOMPARE(f.client->actionStrings(),
        QStringList({QStringLiteral("update deployments default/test-deployment"),
            QStringLiteral("update foos/status default/test")}));
    const Action update = f.client->actions().first();
    QCOMPARE(update.object.json(), withReplicas(old, 2).json());
    QCOMPARE(update.object.resourceVersion(), old.resourceVersion());
    QCOMPARE(update.writeOptions.fieldManager, QStringLiteral("sample-controller"));
    const std::optional<Object> stored = f.stored(Deployments, QStringLiteral("test-deployment"));
    QVERIFY(stored);
    QCOMPARE(Deployment(*stored).spec().replicas().value_or(-1), 2);
    QCOMPARE(f.events->events(), QStringList {Synced});
}

void tst_SampleController::notControlledByUs_data()
{
    QTest::addColumn<QString>("ownerUid");
    QTest::newRow("no controller") << QString();
    // A Foo of the same name deleted and created again is another Foo.
    QTest::newRow("another Foo's") << QStringLiteral("another-uid");
}

// Someone else's Deployment: the Warning, an error (retried), and nothing written.
void tst_SampleController::notControlledByUs()
{
    QFETCH(QString, ownerUid);
    Fixture f;
    const Object foo = newFoo(QStringLiteral("test"), 2);
    Object d = storedDeployment(foo);
    if (ownerUid.isEmpty()) {
        d.setOwnerReferences({});
    } else {
        QList<OwnerReference> refs = d.ownerReferences();
        refs[0].uid = ownerUid;
        d.setOwnerReferences(refs);
    }
    f.seed(Foos, {foo});
    f.seed(Deployments, {d});
    const ReconcileResult result = f.controller().syncHandler(QStringLiteral("default/test"));
    QVERIFY(result.isError());
    QCOMPARE(result.errorMessage(),
        QStringLiteral("Resource \"test-deployment\" already exists and is not managed by Foo"));
    QCOMPARE(f.events->events(), QStringList {resourceExists(QStringLiteral("test-deployment"))});
    QCOMPARE(f.client->actionStrings(), QStringList()); // neither the Deployment nor the status
}

void tst_SampleController::statusCopiesAvailableReplicas()
{
    Fixture f;
    const Object foo = f.seed(Foos, {newFoo(QStringLiteral("test"), 3)}).first();
    f.seed(Deployments, {withAvailableReplicas(storedDeployment(foo), 2)});
    QVERIFY(f.controller().syncHandler(QStringLiteral("default/test")).isDone());
    const std::optional<Object> stored = f.stored(Foos, QStringLiteral("test"));
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
    f.seed(Foos, {nameless});
    FooController &c = f.controller();
    QTest::ignoreMessage(
        key == QLatin1String("default/gone") ? QtInfoMsg : QtWarningMsg, qPrintable(log));
    QVERIFY(c.syncHandler(key).isDone());
    QCOMPARE(f.client->actionStrings(), QStringList());
    QCOMPARE(f.events->events(), QStringList());
}

void tst_SampleController::writeErrorsAreRetried_data()
{
    QTest::addColumn<QString>("failing");
    QTest::addColumn<int>("deploymentReplicas"); // 0: no Deployment
    QTest::addColumn<QStringList>("expectedActions");
    QTest::newRow("create fails") << QStringLiteral("create deployments") << 0
                                  << QStringList {QStringLiteral(
                                         "create deployments default/test-deployment")};
    QTest::newRow("update fails") << QStringLiteral("update deployments") << 1
                                  << QStringList {QStringLiteral(
                                         "update deployments default/test-deployment")};
    QTest::newRow("status update fails")
        << QStringLiteral("update foos/status") << 2
        << QStringList {QStringLiteral("update foos/status default/test")};
}

// A failed write is an error (the queue retries it with backoff), and nothing after it runs.
void tst_SampleController::writeErrorsAreRetried()
{
    QFETCH(QString, failing);
    QFETCH(int, deploymentReplicas);
    QFETCH(QStringList, expectedActions);
    Fixture f;
    const Object foo = f.seed(Foos, {newFoo(QStringLiteral("test"), 2)}).first();
    if (deploymentReplicas)
        f.seed(Deployments, {withReplicas(storedDeployment(foo), deploymentReplicas)});
    f.client->prependReactor([&](const Action &a) -> std::optional<ObjectResult> {
        if (!a.toString().startsWith(failing + QLatin1Char(' ')))
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
    QCOMPARE(f.events->events(), QStringList());
}

// The controller with its workers, on informers that see every write: a Foo gets its
// Deployment and status; a status change of the Deployment it owns syncs the Foo again
// (handleObject); a Foo whose Deployment is someone else's is retried with the queue's backoff.
void tst_SampleController::runsOnInformerEvents()
{
    Fixture f;
    FooController &c = f.controller(2);
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
        const std::optional<Object> foo = f.stored(Foos, QStringLiteral("test"));
        return foo ? Foo(*foo).status().availableReplicas().value_or(-1) : -1;
    };

    QVERIFY(f.client->add(Foos, newFoo(QStringLiteral("test"), 1)));
    QVERIFY(eventually([&] { return availableReplicas() == 0; }));
    const std::optional<Object> created = f.stored(Deployments, QStringLiteral("test-deployment"));
    QVERIFY(created);
    QVERIFY(
        controllerutil::hasControllerReference(*f.stored(Foos, QStringLiteral("test")), *created));

    // The Deployment's status changes (a Deployment controller would write it).
    QVERIFY(f.client->updateStatus(Deployments, withAvailableReplicas(*created, 1)));
    QVERIFY(eventually([&] { return availableReplicas() == 1; }));
    // One Deployment, created by the controller. The create itself may have been tried twice:
    // the Foo's status update can bring default/test back before the Deployment informer has
    // seen the new Deployment, and then (as in upstream's sample-controller) the second create
    // gets AlreadyExists and the key is retried. The two informers run on their own threads, so
    // which comes first is a race, and this test does not pin it.
    QVERIFY(f.client->actionStrings().count(
                QStringLiteral("create deployments default/test-deployment"))
        >= 1);
    QCOMPARE(f.stored(Deployments, QStringLiteral("test-deployment"))->uid(), created->uid());

    // Let retries of default/test on the fake clock pass, so that what waits below is
    // default/other.
    QVERIFY(eventually([&] { return c.queue().waitingLen() == 0 && c.queue().len() == 0; }));

    // A Foo whose Deployment exists and is not its own.
    Object orphan = storedDeployment(newFoo(QStringLiteral("other"), 1));
    orphan.setOwnerReferences({});
    const ObjectResult added = f.client->add(Deployments, orphan);
    QVERIFY(added);
    // The Deployment informer runs on its own thread: until its cache holds the orphan, a sync
    // of default/other would try to create the Deployment (AlreadyExists, no Event).
    QTRY_VERIFY(f.informers->informerFor(Deployments)
                    ->lister()
                    .get(QStringLiteral("default"), QStringLiteral("other-deployment"))
                    .has_value());
    QTest::ignoreMessage(QtWarningMsg,
        QRegularExpression(QStringLiteral("error syncing \"default/other\": Resource "
                                          "\"other-deployment\" already exists and is not "
                                          "managed by Foo, requeuing")));
    QVERIFY(f.client->add(Foos, newFoo(QStringLiteral("other"), 1)));
    QTRY_COMPARE(c.queue().numRequeues(QStringLiteral("default/other")), 1);
    QTRY_VERIFY(c.queue().waitingLen() >= 1); // backing off 5 ms, on the fake clock
    QTest::ignoreMessage(
        QtWarningMsg, QRegularExpression(QStringLiteral("error syncing \"default/other\"")));
    f.clock.step(5ms);
    QTRY_COMPARE(c.queue().numRequeues(QStringLiteral("default/other")), 2); // and again
    QCOMPARE(f.events->events().count(resourceExists(QStringLiteral("other-deployment"))), 2);
    // Left alone: never written.
    QCOMPARE(f.stored(Deployments, QStringLiteral("other-deployment"))->resourceVersion(),
        added->resourceVersion());
    c.stop(10s);
}

// What the plugin creates (FooController(context)) records its Events with the context's
// recorder; a context without one is refused with the reason.
void tst_SampleController::eventsGoToTheContextsRecorder()
{
    Fixture f;
    const Object foo = newFoo(QStringLiteral("test"), 1);
    Object d = storedDeployment(foo);
    d.setOwnerReferences({}); // someone else's: the Warning comes before any write
    f.seed(Foos, {foo});
    f.seed(Deployments, {d});
    ControllerContext context = f.context(QStringLiteral("sample-controller"));
    context.setEventRecorder(nullptr);
    try {
        FooController refused(context);
        QFAIL("a context without an event recorder was accepted");
    } catch (const std::invalid_argument &e) {
        QCOMPARE(QString::fromUtf8(e.what()),
            QStringLiteral("sample-controller records Events, and its context has no event "
                           "recorder (ControllerContext::eventRecorder())"));
    }
    auto recorder = std::make_shared<record::FakeRecorder>(true);
    context.setEventRecorder(recorder);
    FooController c(context);
    QVERIFY(f.startInformers());
    QVERIFY(c.syncHandler(QStringLiteral("default/test")).isError());
    QCOMPARE(recorder->events(), QStringList {resourceExists(QStringLiteral("test-deployment"))});
    QCOMPARE(f.events->events(), QStringList()); // the fixture's recorder: not this context's
}

// sample-controller has no settings: the factory (context.requireKnownSettings({})) refuses
// any, so that a misspelt key in controller-manager.yaml is an error, not ignored.
void tst_SampleController::settingsAreRefused()
{
    QVERIFY(!unknownSetting({}, {}));
    const std::optional<Error> error = unknownSetting({{QStringLiteral("replicas"), 3}}, {});
    QVERIFY(error);
    QCOMPARE(error->toString(),
        QStringLiteral("settings.replicas: unknown setting; this controller has no settings"));
    SampleFixture f;
    f.context(QStringLiteral("sample-controller")).requireKnownSettings({}); // no settings: fine
    try {
        f.context(QStringLiteral("sample-controller"), {{QStringLiteral("replicas"), 3}})
            .requireKnownSettings({});
        QFAIL("a setting was accepted");
    } catch (const std::invalid_argument &e) {
        QCOMPARE(QString::fromUtf8(e.what()), error->toString());
    }
}

QTEST_GUILESS_MAIN(tst_SampleController)
#include "tst_samplecontroller.moc"
