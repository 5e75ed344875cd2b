// SPDX-License-Identifier: Apache-2.0
// configmap-restarter on the kit's fakes (samplestestsupport.h): which ConfigMaps a pod
// template references, the hashes (pinned: Deployments carry them across releases),
// decideRestart() for each case, syncDeployment() and its conditional merge patch, and the
// controller running on informer events over the FakeClient: the index from ConfigMap to
// Deployments, data changes restarting exactly the Deployments that reference the ConfigMap,
// other changes queueing nothing.
#include "configmapreferences.h"
#include "configmaprestarter.h"
#include "samplestestsupport.h"

#include <qcm/api/apps/v1.h>
#include <qcm/api/core/v1.h>
#include <qcm/client/codec.h>

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::samples;
using namespace qcm::samples::testing;
using namespace std::chrono_literals;

class tst_ConfigMapRestarter : public QObject
{
    Q_OBJECT

private slots:
    void referencedConfigMaps_data();
    void referencedConfigMaps();
    void dataHash();
    void templateHash();
    void decide_data();
    void decide();
    void createdFromContext();
    void syncAdoptsWithoutRestart();
    void syncRestartsOnChangedData();
    void syncConflictIsRetried();
    void indexMapsConfigMapsToDeployments();
    void runsOnInformerEvents();
};

namespace {

const GroupVersionResource Deployments = api::apps::v1::Deployment::groupVersionResource();
const GroupVersionResource ConfigMaps = api::core::v1::ConfigMap::groupVersionResource();
const QString Name = QStringLiteral("configmap-restarter");

// The inputs are JSON text rather than the SDK's builders, so that they do not share the
// generated field names with the views the code under test reads them through.
QJsonObject json(const QString &text)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(text.toUtf8(), &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("bad test JSON: %s", qPrintable(error.errorString()));
    return document.object();
}

// A pod spec whose one container reads `configMap` through envFrom.
QJsonObject envFrom(const QString &configMap)
{
    return json(QStringLiteral(R"({"containers": [{"name": "c", "image": "busybox",
        "envFrom": [{"configMapRef": {"name": "%1"}}]}]})")
                    .arg(configMap));
}

QJsonObject podTemplate(const QJsonObject &podSpec)
{
    QJsonObject t = json(QStringLiteral(R"({"metadata": {"labels": {"app": "x"}}})"));
    t.insert(QStringLiteral("spec"), podSpec);
    return t;
}

Object deployment(
    const QString &name, const QJsonObject &podSpec, const QMap<QString, QString> &annotations = {})
{
    Object d = newObject(
        QStringLiteral("apps/v1"), QStringLiteral("Deployment"), QStringLiteral("ns"), name);
    d.setAnnotations(annotations);
    d.json().insert(
        QStringLiteral("spec"), QJsonObject {{QStringLiteral("template"), podTemplate(podSpec)}});
    return d;
}

api::core::v1::PodTemplateSpec templateOf(const Object &d)
{
    return api::apps::v1::Deployment(d).spec().template_();
}

Object configMap(const QString &name, const QString &value)
{
    Object cm
        = newObject(QStringLiteral("v1"), QStringLiteral("ConfigMap"), QStringLiteral("ns"), name);
    cm.json().insert(QStringLiteral("data"), QJsonObject {{QStringLiteral("k"), value}});
    return cm;
}

ConfigMapLookup lookupIn(const QList<Object> &configMaps)
{
    return [configMaps](const QString &name) -> std::optional<Object> {
        for (const Object &cm : configMaps) {
            if (cm.name() == name)
                return cm;
        }
        return std::nullopt;
    };
}

// spec.template.metadata.annotations[qcm.io/configmap-hash]: written only to restart.
QString restartAnnotation(const Object &d)
{
    return templateOf(d)
        .metadata()
        .annotations()
        .value(ConfigMapHashAnnotation)
        .value_or(QString());
}

// The annotations decideRestart() would leave on `d` after adopting it with `configMaps`.
Object adopted(Object d, const QList<Object> &configMaps)
{
    const RestartDecision decision = decideRestart(d, lookupIn(configMaps));
    QMap<QString, QString> annotations = d.annotations();
    annotations.insert(ConfigMapHashAnnotation, decision.dataHash);
    annotations.insert(TemplateHashAnnotation, decision.templateHash);
    d.setAnnotations(annotations);
    return d;
}

// `text` as an Object both ways a controller gets one: decoded from the API server's bytes
// (read in place by the typed views), and as Qt's JSON tree.
QList<Object> bothForms(const QString &text)
{
    const Result<Object> decoded = client::LazyJsonCodec().decodeObject(text.toUtf8());
    if (!decoded)
        qFatal("%s", qPrintable(decoded.error().toString()));
    return {*decoded, Object(json(text))};
}

struct Fixture : SampleFixture
{
    std::unique_ptr<ConfigMapRestarter> restarter;

    void seed(const QList<Object> &deployments, const QList<Object> &configMaps)
    {
        SampleFixture::seed(Deployments, deployments);
        SampleFixture::seed(ConfigMaps, configMaps);
    }
    // A restarter on these fakes, with the informers started and synced (the workers not).
    ConfigMapRestarter &controller()
    {
        restarter = std::make_unique<ConfigMapRestarter>(context(Name), client, events);
        if (!startInformers())
            qFatal("the informers did not sync");
        return *restarter;
    }
    Object stored(const QString &name) const
    {
        const ObjectResult d = client->tracker().get(Deployments, QStringLiteral("ns"), name);
        return d ? *d : Object();
    }
    // Keys the controller's queue took in (workqueue_adds_total; a key already queued is not
    // counted again).
    double adds() const
    {
        for (const metrics::MetricFamily &family : registry.collect()) {
            for (const metrics::ClientMetric &m : family.metrics) {
                if (family.name == QLatin1String("workqueue_adds_total")
                    && m.labels == metrics::Labels {{QStringLiteral("name"), Name}})
                    return m.value;
            }
        }
        return -1;
    }
};

} // namespace

void tst_ConfigMapRestarter::referencedConfigMaps_data()
{
    QTest::addColumn<QString>("podSpec");
    QTest::addColumn<QStringList>("expected");
    auto row = [](const char *name, const char *podSpec, const QStringList &expected) {
        QTest::newRow(name) << QString::fromUtf8(podSpec) << expected;
    };
    row("nothing", R"({"containers": [{"name": "c"}]})", {});
    row("volume", R"({"volumes": [{"name": "v", "configMap": {"name": "vol"}},
        {"name": "empty", "emptyDir": {}}]})",
        {QStringLiteral("vol")});
    // A Secret in the same projection is not a ConfigMap.
    row("projected volume", R"({"volumes": [{"name": "p", "projected": {"sources": [
        {"configMap": {"name": "p1"}}, {"configMap": {"name": "p2"}},
        {"secret": {"name": "a-secret"}}]}}]})",
        {QStringLiteral("p1"), QStringLiteral("p2")});
    row("env valueFrom", R"({"containers": [{"name": "c", "env": [{"name": "PLAIN", "value": "1"},
        {"name": "X", "valueFrom": {"configMapKeyRef": {"name": "env", "key": "k"}}}]}]})",
        {QStringLiteral("env")});
    row("envFrom", R"({"containers": [{"name": "c",
        "envFrom": [{"configMapRef": {"name": "from"}}]}]})",
        {QStringLiteral("from")});
    row("init containers, sorted, each once", R"({"initContainers": [{"name": "init",
            "env": [{"name": "X", "valueFrom": {"configMapKeyRef": {"name": "zeta"}}}],
            "envFrom": [{"configMapRef": {"name": "alpha"}}]}],
        "containers": [{"name": "c",
            "env": [{"name": "X", "valueFrom": {"configMapKeyRef": {"name": "alpha"}}}]}],
        "volumes": [{"name": "v", "configMap": {"name": "mid"}}]})",
        {QStringLiteral("alpha"), QStringLiteral("mid"), QStringLiteral("zeta")});
    // envFrom of a Secret, and a secretKeyRef, are not ConfigMaps.
    row("secrets", R"({"containers": [{"name": "c",
        "env": [{"name": "S", "valueFrom": {"secretKeyRef": {"name": "s"}}}],
        "envFrom": [{"secretRef": {"name": "s"}}]}]})",
        {});
}

void tst_ConfigMapRestarter::referencedConfigMaps()
{
    QFETCH(QString, podSpec);
    QFETCH(QStringList, expected);
    const Object d = deployment(QStringLiteral("d"), json(podSpec));
    QCOMPARE(qcm::samples::referencedConfigMaps(templateOf(d)), expected);
    QStringList keys;
    for (const QString &name : expected)
        keys << QStringLiteral("ns/") + name;
    QCOMPARE(configMapIndexKeys(d), keys);
}

void tst_ConfigMapRestarter::dataHash()
{
    const Object a = configMap(QStringLiteral("a"), QStringLiteral("1"));
    const QString h = configMapDataHash({{QStringLiteral("a"), a}});
    // Pinned (computed with the implementation before the typed views): what Deployments
    // adopted by earlier releases carry. SHA-256 of {"a":{"binaryData":{},"data":{"k":"1"}}}.
    QCOMPARE(h, QStringLiteral("edbd761af2ee35780896287386fe26d7f96c0e71d04695f1a77fd0b2304a8cad"));
    for (const Object &b : bothForms(QStringLiteral(
             R"({"binaryData": {"b": "AAEC"}, "data": {"x": "é\"\n"}, "kind": "ConfigMap"})")))
        QCOMPARE(configMapDataHash({{QStringLiteral("a"), a}, {QStringLiteral("b"), b}}),
            QStringLiteral("32b61ce2537c641908cb9216a2d265f1f1aa0469dd6bb948eca3b803d3a6c71b"));
    // Only data and binaryData count.
    Object relabelled = a;
    relabelled.setLabels({{QStringLiteral("x"), QStringLiteral("y")}});
    relabelled.setResourceVersion(QStringLiteral("9"));
    QCOMPARE(configMapDataHash({{QStringLiteral("a"), relabelled}}), h);
    QVERIFY(!configMapDataDiffers(a, relabelled));
    const Object changed = configMap(QStringLiteral("a"), QStringLiteral("2"));
    QVERIFY(configMapDataDiffers(a, changed));
    QVERIFY(configMapDataHash({{QStringLiteral("a"), changed}}) != h);
    Object binary = a;
    binary.json().insert(
        QStringLiteral("binaryData"), QJsonObject {{QStringLiteral("b"), QStringLiteral("AAEC")}});
    QVERIFY(configMapDataDiffers(a, binary));
    QVERIFY(configMapDataHash({{QStringLiteral("a"), binary}}) != h);
    // The same data under another ConfigMap's name is another reference.
    QVERIFY(configMapDataHash({{QStringLiteral("b"), a}}) != h);
}

void tst_ConfigMapRestarter::templateHash()
{
    const Object d = deployment(QStringLiteral("d"), envFrom(QStringLiteral("a")));
    const QString h = podTemplateHash(templateOf(d));
    // Pinned, from the bytes and from the tree: the template's compact JSON.
    QCOMPARE(h, QStringLiteral("f3719a7ac251802305a128c9a3b9db0c1daa89d6b48ec6d43b586355d389f9c3"));
    // Every field counts, those the typed views do not read too; numbers keep their form.
    for (const Object &o : bothForms(QStringLiteral(R"({"spec": {"template": {"metadata": {
             "labels": {"app": "x"}, "annotations": {"qcm.io/configmap-hash": "abc", "other": "1"}},
             "spec": {"terminationGracePeriodSeconds": 30, "containers": [{"name": "c",
             "image": "busybox", "resources": {"limits": {"cpu": 0.5}},
             "envFrom": [{"configMapRef": {"name": "a"}}]}]}}}})")))
        QCOMPARE(podTemplateHash(templateOf(o)),
            QStringLiteral("51d7b2e7d971b648959eebdfcf783a9708d34892aa647f2fd9f7ccd928e691f4"));
    // The restart annotation is the controller's own: it does not change the hash.
    QJsonObject t = podTemplate(envFrom(QStringLiteral("a")));
    t[QStringLiteral("metadata")] = json(QStringLiteral(
        R"({"labels": {"app": "x"}, "annotations": {"qcm.io/configmap-hash": "abc"}})"));
    Object restarted = d;
    restarted.json()[QStringLiteral("spec")] = QJsonObject {{QStringLiteral("template"), t}};
    QCOMPARE(restartAnnotation(restarted), QStringLiteral("abc"));
    QCOMPARE(podTemplateHash(templateOf(restarted)), h);
    QVERIFY(
        podTemplateHash(templateOf(deployment(QStringLiteral("d"), envFrom(QStringLiteral("b")))))
        != h);
}

void tst_ConfigMapRestarter::decide_data()
{
    QTest::addColumn<Object>("deployment");
    QTest::addColumn<QList<Object>>("configMaps");
    QTest::addColumn<int>("action");
    QTest::addColumn<QStringList>("missing");
    const QList<Object> v1 {configMap(QStringLiteral("a"), QStringLiteral("1"))};
    const QList<Object> v2 {configMap(QStringLiteral("a"), QStringLiteral("2"))};
    const Object fresh = deployment(QStringLiteral("d"), envFrom(QStringLiteral("a")));
    const Object recorded = adopted(fresh, v1);
    using A = RestartDecision::Action;

    QTest::newRow("no reference") << deployment(QStringLiteral("d"), QJsonObject()) << v1
                                  << int(A::None) << QStringList();
    QTest::newRow("first sight: adopt, no restart")
        << fresh << v1 << int(A::Adopt) << QStringList();
    QTest::newRow("ConfigMap missing: wait")
        << fresh << QList<Object>() << int(A::WaitForConfigMaps)
        << QStringList {QStringLiteral("a")};
    QTest::newRow("recorded ConfigMap deleted: wait, no restart")
        << recorded << QList<Object>() << int(A::WaitForConfigMaps)
        << QStringList {QStringLiteral("a")};
    QTest::newRow("data unchanged") << recorded << v1 << int(A::None) << QStringList();
    Object relabelled = configMap(QStringLiteral("a"), QStringLiteral("1"));
    relabelled.setLabels({{QStringLiteral("x"), QStringLiteral("y")}});
    relabelled.setResourceVersion(QStringLiteral("7"));
    QTest::newRow("labels changed, data not")
        << recorded << QList<Object> {relabelled} << int(A::None) << QStringList();
    QTest::newRow("data changed: restart") << recorded << v2 << int(A::Restart) << QStringList();
    // Someone changed the template (here: to reference b too): the Deployment rolls out anyway,
    // with the current data, so the new state is recorded without a second rollout.
    const Object edited = deployment(QStringLiteral("d"),
        json(QStringLiteral(R"({"containers": [{"name": "c", "envFrom": [
            {"configMapRef": {"name": "a"}}, {"configMapRef": {"name": "b"}}]}]})")),
        recorded.annotations());
    QTest::newRow("template edited: adopt")
        << edited << QList<Object> {v2.first(), configMap(QStringLiteral("b"), QStringLiteral("x"))}
        << int(A::Adopt) << QStringList();
    const Object deleting = withMetadata(
        recorded, QStringLiteral("deletionTimestamp"), QStringLiteral("2024-05-01T12:00:00Z"));
    QTest::newRow("being deleted") << deleting << v2 << int(A::None) << QStringList();
}

void tst_ConfigMapRestarter::decide()
{
    QFETCH(Object, deployment);
    QFETCH(QList<Object>, configMaps);
    QFETCH(int, action);
    QFETCH(QStringList, missing);
    const RestartDecision decision = decideRestart(deployment, lookupIn(configMaps));
    QCOMPARE(int(decision.action), action);
    QCOMPARE(decision.missing, missing);
    if (decision.action == RestartDecision::Action::Restart)
        QCOMPARE(
            decision.previousDataHash, deployment.annotations().value(ConfigMapHashAnnotation));
}

// What the plugin creates: the context's recorder, which it requires.
void tst_ConfigMapRestarter::createdFromContext()
{
    SampleFixture f;
    ConfigMapRestarter restarter(f.context(Name));
    QCOMPARE(restarter.deploymentInformer(), f.informers->informerFor(Deployments));
    ControllerContext withoutRecorder = f.context(Name);
    withoutRecorder.setEventRecorder(nullptr);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ConfigMapRestarter {withoutRecorder});
}

void tst_ConfigMapRestarter::syncAdoptsWithoutRestart()
{
    Fixture f;
    f.seed({deployment(QStringLiteral("d"), envFrom(QStringLiteral("a")))},
        {configMap(QStringLiteral("a"), QStringLiteral("1"))});
    const QString rv = f.stored(QStringLiteral("d")).resourceVersion();
    QVERIFY(f.controller().syncDeployment(QStringLiteral("ns/d")).isDone());
    QCOMPARE(f.client->actionStrings(), QStringList {QStringLiteral("patch deployments ns/d")});
    const Action patch = f.client->actions().front();
    QVERIFY(patch.patchType == PatchType::Merge);
    QCOMPARE(patch.patchOptions.fieldManager, Name);
    const QJsonObject body = QJsonDocument::fromJson(patch.patch).object();
    QVERIFY(!body.contains(QLatin1String("spec"))); // the pod template is left alone
    QCOMPARE(
        body.value(QLatin1String("metadata")).toObject().value(QLatin1String("resourceVersion")),
        QJsonValue(rv));
    const Object d = f.stored(QStringLiteral("d"));
    QCOMPARE(d.annotations().value(ConfigMapHashAnnotation),
        configMapDataHash(
            {{QStringLiteral("a"), configMap(QStringLiteral("a"), QStringLiteral("1"))}}));
    QCOMPARE(d.annotations().value(TemplateHashAnnotation), podTemplateHash(templateOf(d)));
    QCOMPARE(restartAnnotation(d), QString());
    QCOMPARE(f.events->events(), QStringList());
}

void tst_ConfigMapRestarter::syncRestartsOnChangedData()
{
    Fixture f;
    const QList<Object> v1 {configMap(QStringLiteral("a"), QStringLiteral("1"))};
    const QList<Object> v2 {configMap(QStringLiteral("a"), QStringLiteral("2"))};
    f.seed({adopted(deployment(QStringLiteral("d"), envFrom(QStringLiteral("a"))), v1)}, v2);
    QVERIFY(f.controller().syncDeployment(QStringLiteral("ns/d")).isDone());
    QCOMPARE(f.client->actionStrings(), QStringList {QStringLiteral("patch deployments ns/d")});
    const Object d = f.stored(QStringLiteral("d"));
    const QString h1 = configMapDataHash({{QStringLiteral("a"), v1.first()}});
    const QString h2 = configMapDataHash({{QStringLiteral("a"), v2.first()}});
    QCOMPARE(restartAnnotation(d), h2);
    QCOMPARE(d.annotations().value(ConfigMapHashAnnotation), h2);
    QCOMPARE(f.events->events(),
        QStringList {
            QStringLiteral("Normal ConfigMapChanged Restarting: the data of ConfigMap(s) a "
                           "changed (hash %1 -> %2) "
                           "involvedObject{kind=Deployment,apiVersion=apps/v1}")
                .arg(h1.left(12), h2.left(12))});
    // Done: the restart annotation is not part of the template hash, so a second look at the
    // patched Deployment finds nothing to do.
    QCOMPARE(int(decideRestart(d, lookupIn(v2)).action), int(RestartDecision::Action::None));
}

void tst_ConfigMapRestarter::syncConflictIsRetried()
{
    Fixture f;
    f.seed({deployment(QStringLiteral("d"), envFrom(QStringLiteral("a")))},
        {configMap(QStringLiteral("a"), QStringLiteral("1"))});
    ConfigMapRestarter &c = f.controller();
    // Someone else writes the Deployment after the cache saw it, before the patch arrives: the
    // patch's resourceVersion is stale.
    bool raced = false;
    f.client->prependReactor([&](const Action &action) -> std::optional<ObjectResult> {
        if (action.verb == QLatin1String("patch") && !std::exchange(raced, true))
            f.client->tracker().patch(Deployments, QStringLiteral("ns"), QStringLiteral("d"),
                PatchType::Merge, R"({"metadata": {"labels": {"edited": "yes"}}})", {});
        return std::nullopt;
    });
    const ReconcileResult result = c.syncDeployment(QStringLiteral("ns/d"));
    QVERIFY(result.isError());
    QVERIFY2(result.errorMessage().startsWith(QLatin1String("Conflict (409)")),
        qPrintable(result.errorMessage()));
    QVERIFY(!f.stored(QStringLiteral("d")).annotations().contains(ConfigMapHashAnnotation));
    // Retried once the cache has the newer Deployment: adopted.
    const QString rv = f.stored(QStringLiteral("d")).resourceVersion();
    QTRY_COMPARE(c.deploymentInformer()
                     ->indexer()
                     .getByKey(QStringLiteral("ns/d"))
                     .value_or(Object())
                     .resourceVersion(),
        rv);
    QVERIFY(c.syncDeployment(QStringLiteral("ns/d")).isDone());
    QVERIFY(f.stored(QStringLiteral("d")).annotations().contains(ConfigMapHashAnnotation));
    QCOMPARE(f.client->actionStrings(), QStringList(2, QStringLiteral("patch deployments ns/d")));
}

void tst_ConfigMapRestarter::indexMapsConfigMapsToDeployments()
{
    Fixture f;
    // The Deployments' informer is the factory's, shared with other controllers.
    f.seed({deployment(QStringLiteral("d1"), envFrom(QStringLiteral("a"))),
               deployment(QStringLiteral("d2"),
                   json(QStringLiteral(R"({"volumes": [{"name": "a", "configMap": {"name": "a"}},
                       {"name": "b", "configMap": {"name": "b"}}]})"))),
               deployment(QStringLiteral("d3"), QJsonObject())},
        {});
    const cache::Indexer &indexer = f.controller().deploymentInformer()->indexer();
    QCOMPARE(*indexer.indexKeys(ConfigMapRestarter::ConfigMapIndex, QStringLiteral("ns/a")),
        QStringList({QStringLiteral("ns/d1"), QStringLiteral("ns/d2")}));
    QCOMPARE(*indexer.indexKeys(ConfigMapRestarter::ConfigMapIndex, QStringLiteral("ns/b")),
        QStringList {QStringLiteral("ns/d2")});
    QCOMPARE(*indexer.indexKeys(ConfigMapRestarter::ConfigMapIndex, QStringLiteral("other/a")),
        QStringList());
    QCOMPARE(f.restarter->deploymentInformer(), f.informers->informerFor(Deployments));
    // Created again on the same informer (the host's reload): the index is there already.
    f.restarter.reset();
    ConfigMapRestarter &again = f.controller();
    QCOMPARE(*again.deploymentInformer()->indexer().indexKeys(
                 ConfigMapRestarter::ConfigMapIndex, QStringLiteral("ns/b")),
        QStringList {QStringLiteral("ns/d2")});
}

// The controller with its workers, its patches reaching its informers through the FakeClient:
// every Deployment that references a ConfigMap is adopted without a restart; a label change or
// a deletion of a ConfigMap queues nothing; a data change restarts exactly the Deployments that
// reference it; a Deployment waiting for a missing ConfigMap is adopted once it is created.
void tst_ConfigMapRestarter::runsOnInformerEvents()
{
    Fixture f;
    f.seed({deployment(QStringLiteral("env"), envFrom(QStringLiteral("a"))),
               deployment(QStringLiteral("volume"),
                   json(QStringLiteral(
                       R"({"volumes": [{"name": "v", "configMap": {"name": "a"}}]})"))),
               deployment(QStringLiteral("other"), envFrom(QStringLiteral("b"))),
               deployment(QStringLiteral("plain"), QJsonObject()),
               deployment(QStringLiteral("waiting"), envFrom(QStringLiteral("later")))},
        {configMap(QStringLiteral("a"), QStringLiteral("1")),
            configMap(QStringLiteral("b"), QStringLiteral("1"))});
    ConfigMapRestarter &c = f.controller();
    c.start();
    QTRY_VERIFY(c.hasSynced());
    qcm::testing::ObjectTracker &server
        = f.client->tracker(); // the test's own writes: not in actions()
    auto hashOf = [&](const QString &name) {
        return f.stored(name).annotations().value(ConfigMapHashAnnotation);
    };
    auto quiet = [&] {
        QTRY_COMPARE(c.queue().len(), 0);
        QTest::qWait(50); // the last reconcile finishes; no event is still on its way
    };

    QTRY_VERIFY(!hashOf(QStringLiteral("env")).isEmpty());
    QTRY_VERIFY(!hashOf(QStringLiteral("volume")).isEmpty());
    QTRY_VERIFY(!hashOf(QStringLiteral("other")).isEmpty());
    quiet();
    QVERIFY(f.stored(QStringLiteral("plain")).annotations().isEmpty());
    QVERIFY(f.stored(QStringLiteral("waiting")).annotations().isEmpty());
    for (const char *name : {"env", "volume", "other", "plain", "waiting"})
        QCOMPARE(restartAnnotation(f.stored(QLatin1String(name))), QString()); // no restart
    f.client->clearActions();

    // A label change is not a data change, and a deleted ConfigMap restarts nothing: nothing
    // is even queued.
    const double adds = f.adds();
    QVERIFY(adds >= 5);
    QVERIFY(server.patch(ConfigMaps, QStringLiteral("ns"), QStringLiteral("a"), PatchType::Merge,
        R"({"metadata": {"labels": {"x": "y"}}})", {}));
    QVERIFY(server.remove(ConfigMaps, QStringLiteral("ns"), QStringLiteral("b"), {}));
    const cache::Indexer &cached = f.informers->informerFor(ConfigMaps)->indexer();
    QTRY_VERIFY(!cached.getByKey(QStringLiteral("ns/b")));
    QTRY_VERIFY(cached.getByKey(QStringLiteral("ns/a"))->labels().contains(QStringLiteral("x")));
    quiet();
    QCOMPARE(f.adds(), adds);

    // A data change of a: env and volume restart, other does not.
    const Object changed = *server.patch(ConfigMaps, QStringLiteral("ns"), QStringLiteral("a"),
        PatchType::Merge, R"({"data": {"k": "2"}})", {});
    const QString h1 = hashOf(QStringLiteral("env"));
    const QString h2 = configMapDataHash({{QStringLiteral("a"), changed}});
    QTRY_COMPARE(restartAnnotation(f.stored(QStringLiteral("env"))), h2);
    QTRY_COMPARE(restartAnnotation(f.stored(QStringLiteral("volume"))), h2);
    quiet();
    QCOMPARE(restartAnnotation(f.stored(QStringLiteral("other"))), QString());
    QStringList patched = f.client->actionStrings();
    patched.sort();
    QCOMPARE(patched,
        QStringList({QStringLiteral("patch deployments ns/env"),
            QStringLiteral("patch deployments ns/volume")}));
    const QString event = QStringLiteral(
        "Normal ConfigMapChanged Restarting: the data of ConfigMap(s) a changed (hash %1 -> %2) "
        "involvedObject{kind=Deployment,apiVersion=apps/v1}")
                              .arg(h1.left(12), h2.left(12));
    QCOMPARE(f.events->events(), QStringList(2, event));

    // The ConfigMap a Deployment waits for appears: adopted, not restarted.
    QVERIFY(server.create(ConfigMaps, configMap(QStringLiteral("later"), QStringLiteral("1"))));
    QTRY_VERIFY(!hashOf(QStringLiteral("waiting")).isEmpty());
    QCOMPARE(restartAnnotation(f.stored(QStringLiteral("waiting"))), QString());
    QCOMPARE(f.events->events().size(), 2);
    QVERIFY(c.stop(10s));
}

QTEST_GUILESS_MAIN(tst_ConfigMapRestarter)
#include "tst_configmaprestarter.moc"
