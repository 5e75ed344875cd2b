// SPDX-License-Identifier: Apache-2.0
// configmap-restarter against fakes: which ConfigMaps a pod template references, the hashes,
// decideRestart() for each case, syncDeployment() and its conditional merge patch, and the
// controller running on informer events: the index from ConfigMap to Deployments, data changes
// restarting exactly the Deployments that reference the ConfigMap, other changes none.
#include "configmapreferences.h"
#include "configmaprestarter.h"
#include "resources.h"
#include "samplestestsupport.h"

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
    void syncAdoptsWithoutRestart();
    void syncRestartsOnChangedData();
    void syncConflictIsRetried();
    void indexMapsConfigMapsToDeployments();
    void runsOnInformerEvents();
};

namespace {

QJsonObject container(
    const QString &name, const QJsonArray &env = {}, const QJsonArray &envFrom = {})
{
    QJsonObject c {
        {QStringLiteral("name"), name}, {QStringLiteral("image"), QStringLiteral("busybox")}};
    if (!env.isEmpty())
        c.insert(QStringLiteral("env"), env);
    if (!envFrom.isEmpty())
        c.insert(QStringLiteral("envFrom"), envFrom);
    return c;
}

QJsonObject configMapKeyRef(const QString &configMap)
{
    return QJsonObject {{QStringLiteral("name"), QStringLiteral("X")},
        {QStringLiteral("valueFrom"),
            QJsonObject {{QStringLiteral("configMapKeyRef"),
                QJsonObject {{QStringLiteral("name"), configMap},
                    {QStringLiteral("key"), QStringLiteral("k")}}}}}};
}

QJsonObject configMapRef(const QString &configMap)
{
    return QJsonObject {
        {QStringLiteral("configMapRef"), QJsonObject {{QStringLiteral("name"), configMap}}}};
}

QJsonObject configMapVolume(const QString &configMap)
{
    return QJsonObject {{QStringLiteral("name"), QStringLiteral("v-") + configMap},
        {QStringLiteral("configMap"), QJsonObject {{QStringLiteral("name"), configMap}}}};
}

QJsonObject projectedVolume(const QStringList &configMaps)
{
    QJsonArray sources;
    for (const QString &cm : configMaps)
        sources.append(QJsonObject {
            {QStringLiteral("configMap"), QJsonObject {{QStringLiteral("name"), cm}}}});
    // A Secret in the same projection is not a ConfigMap.
    sources.append(QJsonObject {{QStringLiteral("secret"),
        QJsonObject {{QStringLiteral("name"), QStringLiteral("a-secret")}}}});
    return QJsonObject {{QStringLiteral("name"), QStringLiteral("projected")},
        {QStringLiteral("projected"), QJsonObject {{QStringLiteral("sources"), sources}}}};
}

QJsonObject podTemplate(const QJsonObject &podSpec)
{
    return QJsonObject {{QStringLiteral("metadata"),
                            QJsonObject {{QStringLiteral("labels"),
                                QJsonObject {{QStringLiteral("app"), QStringLiteral("x")}}}}},
        {QStringLiteral("spec"), podSpec}};
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

// A pod spec whose one container reads `configMap` through envFrom.
QJsonObject envFrom(const QString &configMap)
{
    return QJsonObject {{QStringLiteral("containers"),
        QJsonArray {container(QStringLiteral("c"), {}, {configMapRef(configMap)})}}};
}

Object configMap(
    const QString &name, const QJsonObject &data, const QString &rv = QStringLiteral("1"))
{
    Object cm
        = newObject(QStringLiteral("v1"), QStringLiteral("ConfigMap"), QStringLiteral("ns"), name);
    cm.setResourceVersion(rv);
    cm.json().insert(QStringLiteral("data"), data);
    return cm;
}

QJsonObject data(const QString &value)
{
    return QJsonObject {{QStringLiteral("k"), value}};
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

QString templateAnnotation(const Object &d)
{
    return d.json()
        .value(QLatin1String("spec"))
        .toObject()
        .value(QLatin1String("template"))
        .toObject()
        .value(QLatin1String("metadata"))
        .toObject()
        .value(QLatin1String("annotations"))
        .toObject()
        .value(ConfigMapHashAnnotation)
        .toString();
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

} // namespace

void tst_ConfigMapRestarter::referencedConfigMaps_data()
{
    QTest::addColumn<QJsonObject>("podSpec");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("nothing") << QJsonObject {{QStringLiteral("containers"),
        QJsonArray {container(QStringLiteral("c"))}}}
                             << QStringList();
    QTest::newRow("volume") << QJsonObject {{QStringLiteral("volumes"),
        QJsonArray {configMapVolume(QStringLiteral("vol")),
            QJsonObject {{QStringLiteral("name"), QStringLiteral("empty")},
                {QStringLiteral("emptyDir"), QJsonObject()}}}}}
                            << QStringList {QStringLiteral("vol")};
    QTest::newRow("projected volume") << QJsonObject {{QStringLiteral("volumes"),
        QJsonArray {projectedVolume({QStringLiteral("p1"), QStringLiteral("p2")})}}}
                                      << QStringList {QStringLiteral("p1"), QStringLiteral("p2")};
    QTest::newRow("env valueFrom") << QJsonObject {{QStringLiteral("containers"),
        QJsonArray {container(QStringLiteral("c"),
            {configMapKeyRef(QStringLiteral("env")),
                QJsonObject {{QStringLiteral("name"), QStringLiteral("PLAIN")},
                    {QStringLiteral("value"), QStringLiteral("1")}}})}}}
                                   << QStringList {QStringLiteral("env")};
    QTest::newRow("envFrom") << envFrom(QStringLiteral("from"))
                             << QStringList {QStringLiteral("from")};
    QTest::newRow("init containers, sorted, each once")
        << QJsonObject {{QStringLiteral("initContainers"),
                            QJsonArray {container(QStringLiteral("init"),
                                {configMapKeyRef(QStringLiteral("zeta"))},
                                {configMapRef(QStringLiteral("alpha"))})}},
               {QStringLiteral("containers"),
                   QJsonArray {
                       container(QStringLiteral("c"), {configMapKeyRef(QStringLiteral("alpha"))})}},
               {QStringLiteral("volumes"), QJsonArray {configMapVolume(QStringLiteral("mid"))}}}
        << QStringList {QStringLiteral("alpha"), QStringLiteral("mid"), QStringLiteral("zeta")};
    // envFrom of a Secret, and a secretKeyRef, are not ConfigMaps.
    QTest::newRow("secrets") << QJsonObject {{QStringLiteral("containers"),
        QJsonArray {container(QStringLiteral("c"),
            {QJsonObject {{QStringLiteral("name"), QStringLiteral("S")},
                {QStringLiteral("valueFrom"),
                    QJsonObject {{QStringLiteral("secretKeyRef"),
                        QJsonObject {{QStringLiteral("name"), QStringLiteral("s")}}}}}}},
            {QJsonObject {{QStringLiteral("secretRef"),
                QJsonObject {{QStringLiteral("name"), QStringLiteral("s")}}}}})}}}
                             << QStringList();
}

void tst_ConfigMapRestarter::referencedConfigMaps()
{
    QFETCH(QJsonObject, podSpec);
    QFETCH(QStringList, expected);
    QCOMPARE(qcm::samples::referencedConfigMaps(podTemplate(podSpec)), expected);
    QStringList keys;
    for (const QString &name : expected)
        keys << QStringLiteral("ns/") + name;
    QCOMPARE(configMapIndexKeys(deployment(QStringLiteral("d"), podSpec)), keys);
}

void tst_ConfigMapRestarter::dataHash()
{
    const Object a = configMap(QStringLiteral("a"), data(QStringLiteral("1")));
    const QString h = configMapDataHash({{QStringLiteral("a"), a}});
    QCOMPARE(h.size(), 64);
    // Only data and binaryData count.
    Object relabelled = a;
    relabelled.setLabels({{QStringLiteral("x"), QStringLiteral("y")}});
    relabelled.setResourceVersion(QStringLiteral("9"));
    QCOMPARE(configMapDataHash({{QStringLiteral("a"), relabelled}}), h);
    QVERIFY(!configMapDataDiffers(a, relabelled));
    const Object changed = configMap(QStringLiteral("a"), data(QStringLiteral("2")));
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
    const QJsonObject t = podTemplate(envFrom(QStringLiteral("a")));
    const QString h = podTemplateHash(t);
    // The restart annotation is the controller's own: it does not change the hash.
    QJsonObject restarted = t;
    QJsonObject metadata = restarted.value(QLatin1String("metadata")).toObject();
    metadata.insert(QStringLiteral("annotations"),
        QJsonObject {{ConfigMapHashAnnotation, QStringLiteral("abc")}});
    restarted.insert(QStringLiteral("metadata"), metadata);
    QCOMPARE(podTemplateHash(restarted), h);
    // Anything else does.
    metadata.insert(QStringLiteral("annotations"),
        QJsonObject {{ConfigMapHashAnnotation, QStringLiteral("abc")},
            {QStringLiteral("other"), QStringLiteral("1")}});
    restarted.insert(QStringLiteral("metadata"), metadata);
    QVERIFY(podTemplateHash(restarted) != h);
    QVERIFY(podTemplateHash(podTemplate(envFrom(QStringLiteral("b")))) != h);
}

void tst_ConfigMapRestarter::decide_data()
{
    QTest::addColumn<Object>("deployment");
    QTest::addColumn<QList<Object>>("configMaps");
    QTest::addColumn<int>("action");
    QTest::addColumn<QStringList>("missing");
    const QList<Object> v1 {configMap(QStringLiteral("a"), data(QStringLiteral("1")))};
    const QList<Object> v2 {configMap(QStringLiteral("a"), data(QStringLiteral("2")))};
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
    QTest::newRow("labels changed, data not") << recorded << QList<Object> {[] {
        Object cm = configMap(QStringLiteral("a"), data(QStringLiteral("1")), QStringLiteral("7"));
        cm.setLabels({{QStringLiteral("x"), QStringLiteral("y")}});
        return cm;
    }()} << int(A::None) << QStringList();
    QTest::newRow("data changed: restart") << recorded << v2 << int(A::Restart) << QStringList();
    // Someone changed the template (here: to reference b too): the Deployment rolls out anyway,
    // with the current data, so the new state is recorded without a second rollout.
    Object edited = deployment(QStringLiteral("d"),
        QJsonObject {{QStringLiteral("containers"),
            QJsonArray {container(QStringLiteral("c"), {},
                {configMapRef(QStringLiteral("a")), configMapRef(QStringLiteral("b"))})}}},
        recorded.annotations());
    QTest::newRow("template edited: adopt")
        << edited
        << QList<Object> {v2.first(), configMap(QStringLiteral("b"), data(QStringLiteral("x")))}
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

namespace {

struct Fixture
{
    FakeClock clock;
    metrics::Registry registry;
    FakeInformers informers {&clock};
    std::shared_ptr<FakeObjectClient> client = std::make_shared<FakeObjectClient>();
    EventLog events;
    std::unique_ptr<ConfigMapRestarter> restarter;

    void seed(const QList<Object> &deployments, const QList<Object> &configMaps)
    {
        informers.seed(Deployments, deployments);
        informers.seed(ConfigMaps, configMaps);
        for (const Object &d : deployments)
            client->add(Deployments, d);
    }
    ConfigMapRestarter &controller()
    {
        restarter = std::make_unique<ConfigMapRestarter>(
            testContext(QStringLiteral("configmap-restarter"), informers, clock, registry), client,
            events.recorder());
        if (!startInformers(informers))
            qFatal("the fake informers did not sync");
        return *restarter;
    }
    Object stored(const QString &name) const
    {
        return client->stored(Deployments, QStringLiteral("ns"), name).value_or(Object());
    }
};

} // namespace

void tst_ConfigMapRestarter::syncAdoptsWithoutRestart()
{
    Fixture f;
    f.seed({deployment(QStringLiteral("d"), envFrom(QStringLiteral("a")))},
        {configMap(QStringLiteral("a"), data(QStringLiteral("1")))});
    QVERIFY(f.controller().syncDeployment(QStringLiteral("ns/d")).isDone());
    QCOMPARE(f.client->actionStrings(), QStringList {QStringLiteral("patch deployments ns/d")});
    const testing::Action patch = f.client->actions().front();
    QCOMPARE(patch.patchOptions.fieldManager, QStringLiteral("configmap-restarter"));
    const QJsonObject body = QJsonDocument::fromJson(patch.patch).object();
    QVERIFY(!body.contains(QLatin1String("spec"))); // the pod template is left alone
    QCOMPARE(
        body.value(QLatin1String("metadata")).toObject().value(QLatin1String("resourceVersion")),
        QJsonValue(QStringLiteral("1")));
    const Object d = f.stored(QStringLiteral("d"));
    QCOMPARE(d.annotations().value(ConfigMapHashAnnotation),
        configMapDataHash(
            {{QStringLiteral("a"), configMap(QStringLiteral("a"), data(QStringLiteral("1")))}}));
    QVERIFY(!d.annotations().value(TemplateHashAnnotation).isEmpty());
    QCOMPARE(templateAnnotation(d), QString());
    QCOMPARE(f.events.events(), QStringList());
}

void tst_ConfigMapRestarter::syncRestartsOnChangedData()
{
    Fixture f;
    const QList<Object> v1 {configMap(QStringLiteral("a"), data(QStringLiteral("1")))};
    const QList<Object> v2 {configMap(QStringLiteral("a"), data(QStringLiteral("2")))};
    f.seed({adopted(deployment(QStringLiteral("d"), envFrom(QStringLiteral("a"))), v1)}, v2);
    QVERIFY(f.controller().syncDeployment(QStringLiteral("ns/d")).isDone());
    QCOMPARE(f.client->actionStrings(), QStringList {QStringLiteral("patch deployments ns/d")});
    const Object d = f.stored(QStringLiteral("d"));
    const QString h2 = configMapDataHash({{QStringLiteral("a"), v2.first()}});
    QCOMPARE(templateAnnotation(d), h2);
    QCOMPARE(d.annotations().value(ConfigMapHashAnnotation), h2);
    QCOMPARE(f.events.objects(), QStringList {QStringLiteral("Deployment ns/d")});
    QCOMPARE(f.events.events().size(), 1);
    QVERIFY2(f.events.events().first().startsWith(
                 QStringLiteral("Normal ConfigMapChanged Restarting: the data of ConfigMap(s) a "
                                "changed")),
        qPrintable(f.events.events().first()));
    // Done: the restart annotation is not part of the template hash, so a second look at the
    // patched Deployment finds nothing to do.
    QCOMPARE(int(decideRestart(d, lookupIn(v2)).action), int(RestartDecision::Action::None));
}

void tst_ConfigMapRestarter::syncConflictIsRetried()
{
    Fixture f;
    f.seed({deployment(QStringLiteral("d"), envFrom(QStringLiteral("a")))},
        {configMap(QStringLiteral("a"), data(QStringLiteral("1")))});
    ConfigMapRestarter &c = f.controller();
    // The Deployment changed after the cache saw it: the patch's resourceVersion is stale.
    Object newer = f.stored(QStringLiteral("d"));
    newer.setResourceVersion(QStringLiteral("2"));
    f.client->add(Deployments, newer);
    const ReconcileResult result = c.syncDeployment(QStringLiteral("ns/d"));
    QVERIFY(result.isError());
    QVERIFY2(result.errorMessage().startsWith(QLatin1String("Conflict (409)")),
        qPrintable(result.errorMessage()));
    QVERIFY(!f.stored(QStringLiteral("d")).annotations().contains(ConfigMapHashAnnotation));
}

void tst_ConfigMapRestarter::indexMapsConfigMapsToDeployments()
{
    Fixture f;
    // The Deployments' informer is the factory's, shared with other controllers.
    f.seed({deployment(QStringLiteral("d1"), envFrom(QStringLiteral("a"))),
               deployment(QStringLiteral("d2"),
                   QJsonObject {{QStringLiteral("volumes"),
                       QJsonArray {configMapVolume(QStringLiteral("a")),
                           configMapVolume(QStringLiteral("b"))}}}),
               deployment(QStringLiteral("d3"), QJsonObject())},
        {});
    const cache::Indexer &indexer = f.controller().deploymentInformer()->indexer();
    QCOMPARE(*indexer.indexKeys(ConfigMapRestarter::ConfigMapIndex, QStringLiteral("ns/a")),
        QStringList({QStringLiteral("ns/d1"), QStringLiteral("ns/d2")}));
    QCOMPARE(*indexer.indexKeys(ConfigMapRestarter::ConfigMapIndex, QStringLiteral("ns/b")),
        QStringList {QStringLiteral("ns/d2")});
    QCOMPARE(*indexer.indexKeys(ConfigMapRestarter::ConfigMapIndex, QStringLiteral("other/a")),
        QStringList());
    QCOMPARE(f.restarter->deploymentInformer(), f.informers.factory()->informerFor(Deployments));
    // Created again on the same informer (the host's reload): the index is there already.
    f.restarter.reset();
    ConfigMapRestarter &again = f.controller();
    QCOMPARE(*again.deploymentInformer()->indexer().indexKeys(
                 ConfigMapRestarter::ConfigMapIndex, QStringLiteral("ns/b")),
        QStringList {QStringLiteral("ns/d2")});
}

// The controller with its workers, its patches fed back to its informer: every Deployment
// that references a ConfigMap is adopted without a restart; a label change of a ConfigMap
// restarts nothing; a data change restarts exactly the Deployments that reference it; a
// Deployment waiting for a missing ConfigMap is adopted once it is created.
void tst_ConfigMapRestarter::runsOnInformerEvents()
{
    Fixture f;
    f.seed({deployment(QStringLiteral("env"), envFrom(QStringLiteral("a"))),
               deployment(QStringLiteral("volume"),
                   QJsonObject {{QStringLiteral("volumes"),
                       QJsonArray {configMapVolume(QStringLiteral("a"))}}}),
               deployment(QStringLiteral("other"), envFrom(QStringLiteral("b"))),
               deployment(QStringLiteral("plain"), QJsonObject()),
               deployment(QStringLiteral("waiting"), envFrom(QStringLiteral("later")))},
        {configMap(QStringLiteral("a"), data(QStringLiteral("1"))),
            configMap(QStringLiteral("b"), data(QStringLiteral("1")))});
    ConfigMapRestarter &c = f.controller();
    f.informers.follow(*f.client);
    c.start();
    QTRY_VERIFY(c.hasSynced());

    auto hashOf = [&](const QString &name) {
        return f.stored(name).annotations().value(ConfigMapHashAnnotation);
    };
    QTRY_VERIFY(!hashOf(QStringLiteral("env")).isEmpty());
    QTRY_VERIFY(!hashOf(QStringLiteral("volume")).isEmpty());
    QTRY_VERIFY(!hashOf(QStringLiteral("other")).isEmpty());
    QTRY_COMPARE(c.queue().len(), 0);
    QTest::qWait(50);
    QVERIFY(f.stored(QStringLiteral("plain")).annotations().isEmpty());
    QVERIFY(f.stored(QStringLiteral("waiting")).annotations().isEmpty());
    for (const char *name : {"env", "volume", "other", "plain", "waiting"})
        QCOMPARE(templateAnnotation(f.stored(QLatin1String(name))), QString()); // no restart
    f.client->clearActions();

    // A label change is not a data change: nothing is even queued.
    Object relabelled
        = configMap(QStringLiteral("a"), data(QStringLiteral("1")), QStringLiteral("5"));
    relabelled.setLabels({{QStringLiteral("x"), QStringLiteral("y")}});
    f.informers.watch(ConfigMaps)->push(watchEvent(WatchEvent::Type::Modified, relabelled));
    // A data change of a: env and volume restart, other does not.
    Object changed = configMap(QStringLiteral("a"), data(QStringLiteral("2")), QStringLiteral("6"));
    f.informers.watch(ConfigMaps)->push(watchEvent(WatchEvent::Type::Modified, changed));
    const QString h2 = configMapDataHash({{QStringLiteral("a"), changed}});
    QTRY_COMPARE(templateAnnotation(f.stored(QStringLiteral("env"))), h2);
    QTRY_COMPARE(templateAnnotation(f.stored(QStringLiteral("volume"))), h2);
    QTRY_COMPARE(c.queue().len(), 0);
    QTest::qWait(50);
    QCOMPARE(templateAnnotation(f.stored(QStringLiteral("other"))), QString());
    QStringList patched = f.client->actionStrings();
    patched.sort();
    QCOMPARE(patched,
        QStringList({QStringLiteral("patch deployments ns/env"),
            QStringLiteral("patch deployments ns/volume")}));
    // One worker, and the index gives the keys sorted: env first.
    QCOMPARE(f.events.objects(),
        QStringList({QStringLiteral("Deployment ns/env"), QStringLiteral("Deployment ns/volume")}));
    QCOMPARE(f.events.events().size(), 2);

    // The ConfigMap a Deployment waits for appears: adopted, not restarted.
    f.informers.watch(ConfigMaps)
        ->push(watchEvent(WatchEvent::Type::Added,
            configMap(QStringLiteral("later"), data(QStringLiteral("1")), QStringLiteral("7"))));
    QTRY_VERIFY(!hashOf(QStringLiteral("waiting")).isEmpty());
    QCOMPARE(templateAnnotation(f.stored(QStringLiteral("waiting"))), QString());
    QCOMPARE(f.events.events().size(), 2);
    c.stop(10s);
}

QTEST_GUILESS_MAIN(tst_ConfigMapRestarter)
#include "tst_configmaprestarter.moc"
