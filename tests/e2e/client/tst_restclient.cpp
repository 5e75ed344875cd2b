// SPDX-License-Identifier: Apache-2.0
// e2e: RestClient against a real kube-apiserver + etcd (the e2e_cluster fixture).
#include <qcm/client/discovery.h>

#include "../e2esupport.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QThreadPool>
#include <QtTest/QtTest>

#include <atomic>

using namespace qcm::client;
using namespace qcm::e2e;
using namespace std::chrono_literals;

namespace {

const GroupVersionResource Deployments {
    QStringLiteral("apps"), QStringLiteral("v1"), QStringLiteral("deployments")};
const GroupVersionResource PodTemplates {
    QString(), QStringLiteral("v1"), QStringLiteral("podtemplates")};
const GroupVersionResource Crds {QStringLiteral("apiextensions.k8s.io"), QStringLiteral("v1"),
    QStringLiteral("customresourcedefinitions")};
const GroupVersionResource Widgets {
    QStringLiteral("e2e.qcm.io"), QStringLiteral("v1"), QStringLiteral("widgets")};

Object fromJson(const char *json)
{
    return Object(QJsonDocument::fromJson(json).object());
}

template<typename T>
T ok(qcm::Result<T, Status> r)
{
    if (!r)
        qFatal("unexpected error: %s", qPrintable(r.error().toString()));
    return *r;
}

} // namespace

class tst_RestClient : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void crudConfigMaps();
    void patchTypes();
    void customResources();
    void subresources();
    void deleteOptionsAndCollections();
    void pagination();
    void watchInOrderWithBookmarksAndResume();
    void watchFromCompactedVersionIsGone();
    void watchListBookmark();
    void staleUpdateConflicts();
    void restrictedUserIsForbidden();
    void tokenAuth();
    void wrongCaFailsClearly();
    void fiftyWatchesAndRequestsShareHttp2();
    void discovery();

private:
    QString m_dir;
    std::unique_ptr<RestClient> m_client;
};

void tst_RestClient::initTestCase()
{
    m_dir = clusterDir();
    m_client = std::make_unique<RestClient>(clusterConfig(QStringLiteral("admin")));
}

void tst_RestClient::crudConfigMaps()
{
    const QString ns = createNamespace(*m_client, QStringLiteral("crud"));
    const Object created = ok(m_client->create(ConfigMaps, ns,
        configMap(ns, QStringLiteral("a"), {{QStringLiteral("k"), QStringLiteral("v1")}})));
    QVERIFY(!created.uid().isEmpty());
    QVERIFY(!created.resourceVersion().isEmpty());
    QVERIFY(created.creationTimestamp().isValid());

    Object got = ok(m_client->get(ConfigMaps, ns, QStringLiteral("a")));
    QCOMPARE(got.json()[QStringLiteral("data")].toObject()[QStringLiteral("k")].toString(),
        QStringLiteral("v1"));
    QCOMPARE(got.kind(), QStringLiteral("ConfigMap"));

    auto again = m_client->create(ConfigMaps, ns, configMap(ns, QStringLiteral("a")));
    QVERIFY(!again);
    QVERIFY2(again.error().isAlreadyExists(), qPrintable(again.error().toString()));

    got.json()[QStringLiteral("data")] = QJsonObject {{QStringLiteral("k"), QStringLiteral("v2")}};
    const Object updated = ok(m_client->update(ConfigMaps, got));
    QVERIFY(updated.resourceVersion() != created.resourceVersion());

    const ObjectList list = ok(m_client->list(ConfigMaps, ns));
    QCOMPARE(list.items.size(), 1); // no controller-manager runs, so no kube-root-ca.crt
    ok(m_client->remove(ConfigMaps, ns, QStringLiteral("a")));
    auto gone = m_client->get(ConfigMaps, ns, QStringLiteral("a"));
    QVERIFY(!gone);
    QVERIFY2(gone.error().isNotFound(), qPrintable(gone.error().toString()));
    QCOMPARE(gone.error().code, 404);
}

void tst_RestClient::patchTypes()
{
    const QString ns = createNamespace(*m_client, QStringLiteral("patch"));
    ok(m_client->create(ConfigMaps, ns,
        configMap(ns, QStringLiteral("p"), {{QStringLiteral("a"), QStringLiteral("1")}})));
    auto data = [&](const Object &o) { return o.json()[QStringLiteral("data")].toObject(); };

    Object o = ok(m_client->patch(
        ConfigMaps, ns, QStringLiteral("p"), PatchType::Merge, R"({"data":{"b":"2"}})"));
    QCOMPARE(data(o).size(), 2);
    o = ok(m_client->patch(ConfigMaps, ns, QStringLiteral("p"), PatchType::Json,
        R"([{"op":"replace","path":"/data/a","value":"one"},{"op":"remove","path":"/data/b"}])"));
    QCOMPARE(data(o), (QJsonObject {{QStringLiteral("a"), QStringLiteral("one")}}));
    o = ok(m_client->patch(ConfigMaps, ns, QStringLiteral("p"), PatchType::StrategicMerge,
        R"({"metadata":{"labels":{"tier":"x"}}})"));
    QCOMPARE(o.labels().value(QStringLiteral("tier")), QStringLiteral("x"));

    PatchOptions apply;
    apply.fieldManager = QStringLiteral("qcm-e2e");
    const QByteArray body = QStringLiteral(
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p","namespace":"%1"},"data":{"applied":"yes"}})")
                                .arg(ns)
                                .toUtf8();
    o = ok(m_client->patch(ConfigMaps, ns, QStringLiteral("p"), PatchType::Apply, body, apply));
    QCOMPARE(data(o).value(QStringLiteral("applied")).toString(), QStringLiteral("yes"));
    // Another manager applying the same field conflicts unless it forces.
    PatchOptions other;
    other.fieldManager = QStringLiteral("someone-else");
    const QByteArray contested = QByteArray(body).replace("\"yes\"", "\"no\"");
    auto conflict
        = m_client->patch(ConfigMaps, ns, QStringLiteral("p"), PatchType::Apply, contested, other);
    QVERIFY(!conflict);
    QVERIFY2(conflict.error().isConflict(), qPrintable(conflict.error().toString()));
    other.force = true;
    o = ok(
        m_client->patch(ConfigMaps, ns, QStringLiteral("p"), PatchType::Apply, contested, other));
    QCOMPARE(data(o).value(QStringLiteral("applied")).toString(), QStringLiteral("no"));
}

void tst_RestClient::customResources()
{
    Object crd = fromJson(R"({
      "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
      "metadata": {"name": "widgets.e2e.qcm.io"},
      "spec": {"group": "e2e.qcm.io", "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
        "versions": [{"name": "v1", "served": true, "storage": true,
          "subresources": {"status": {}},
          "schema": {"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
            "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}}}}]}})");
    auto created = m_client->create(Crds, {}, crd);
    QVERIFY2(created || created.error().isAlreadyExists(),
        qPrintable(created ? QString() : created.error().toString()));
    // Wait until the CRD is Established (served).
    QTRY_VERIFY_WITH_TIMEOUT(m_client->list(Widgets, QStringLiteral("default")).ok(), 30000);

    const QString ns = createNamespace(*m_client, QStringLiteral("crd"));
    Object widget = fromJson(R"({"apiVersion":"e2e.qcm.io/v1","kind":"Widget","spec":{"size":3}})");
    widget.setName(QStringLiteral("w"));
    widget.setNamespaceName(ns);
    Object w = ok(m_client->create(Widgets, ns, widget));
    QCOMPARE(w.json()[QStringLiteral("spec")].toObject()[QStringLiteral("size")].toInt(), 3);
    w = ok(m_client->patch(
        Widgets, ns, QStringLiteral("w"), PatchType::Merge, R"({"spec":{"size":4}})"));
    QCOMPARE(w.generation(), 2);
    w = ok(m_client->patch(Widgets, ns, QStringLiteral("w"), PatchType::Json,
        R"([{"op":"replace","path":"/spec/size","value":5}])"));
    // The patches above were recorded under the manager "qcm" (from the User-Agent), so
    // applying .spec.size as another manager must force.
    PatchOptions apply;
    apply.fieldManager = QStringLiteral("qcm-e2e");
    apply.force = true;
    w = ok(m_client->patch(Widgets, ns, QStringLiteral("w"), PatchType::Apply,
        QStringLiteral(
            R"({"apiVersion":"e2e.qcm.io/v1","kind":"Widget","metadata":{"name":"w","namespace":"%1"},"spec":{"size":6}})")
            .arg(ns)
            .toUtf8(),
        apply));
    QCOMPARE(w.json()[QStringLiteral("spec")].toObject()[QStringLiteral("size")].toInt(), 6);
    // Strategic merge is for built-in types only.
    auto smp = m_client->patch(
        Widgets, ns, QStringLiteral("w"), PatchType::StrategicMerge, R"({"spec":{"size":7}})");
    QVERIFY(!smp);
    QCOMPARE(smp.error().code, 415);
    // The status subresource: an update of status leaves spec alone.
    w.json()[QStringLiteral("status")] = QJsonObject {{QStringLiteral("ready"), true}};
    w.json()[QStringLiteral("spec")] = QJsonObject {{QStringLiteral("size"), 99}};
    const Object status = ok(m_client->updateStatus(Widgets, w));
    QCOMPARE(
        status.json()[QStringLiteral("status")].toObject()[QStringLiteral("ready")].toBool(), true);
    QCOMPARE(status.json()[QStringLiteral("spec")].toObject()[QStringLiteral("size")].toInt(), 6);
    ok(m_client->remove(Widgets, ns, QStringLiteral("w")));
}

void tst_RestClient::subresources()
{
    const QString ns = createNamespace(*m_client, QStringLiteral("scale"));
    Object deployment
        = fromJson(R"({"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":1,
        "selector":{"matchLabels":{"app":"x"}},
        "template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}})");
    deployment.setName(QStringLiteral("d"));
    deployment.setNamespaceName(ns);
    ok(m_client->create(Deployments, ns, deployment));
    Object scale = ok(m_client->get(Deployments, ns, QStringLiteral("d"), QStringLiteral("scale")));
    QCOMPARE(scale.kind(), QStringLiteral("Scale"));
    QCOMPARE(
        scale.json()[QStringLiteral("spec")].toObject()[QStringLiteral("replicas")].toInt(), 1);
    scale.json()[QStringLiteral("spec")] = QJsonObject {{QStringLiteral("replicas"), 3}};
    ok(m_client->update(Deployments, scale, {}, QStringLiteral("scale")));
    const Object after = ok(m_client->get(Deployments, ns, QStringLiteral("d")));
    QCOMPARE(
        after.json()[QStringLiteral("spec")].toObject()[QStringLiteral("replicas")].toInt(), 3);
}

void tst_RestClient::deleteOptionsAndCollections()
{
    const QString ns = createNamespace(*m_client, QStringLiteral("delete"));
    const Object a = ok(m_client->create(ConfigMaps, ns, configMap(ns, QStringLiteral("a"))));
    DeleteOptions wrongUid;
    wrongUid.preconditionUid = QStringLiteral("00000000-0000-0000-0000-000000000000");
    auto refused = m_client->remove(ConfigMaps, ns, QStringLiteral("a"), wrongUid);
    QVERIFY(!refused);
    QVERIFY2(refused.error().isConflict(), qPrintable(refused.error().toString()));
    DeleteOptions right;
    right.preconditionUid = a.uid();
    right.preconditionResourceVersion = a.resourceVersion();
    right.propagationPolicy = QStringLiteral("Background");
    right.gracePeriodSeconds = 0;
    ok(m_client->remove(ConfigMaps, ns, QStringLiteral("a"), right));

    for (int i = 0; i < 5; ++i)
        ok(m_client->create(ConfigMaps, ns,
            configMap(ns, QStringLiteral("c%1").arg(i), {},
                {{QStringLiteral("batch"),
                    i < 3 ? QStringLiteral("one") : QStringLiteral("two")}})));
    ListOptions batchOne;
    batchOne.labelSelector = QStringLiteral("batch=one");
    ok(m_client->removeCollection(ConfigMaps, ns, batchOne));
    ListOptions all;
    all.labelSelector = QStringLiteral("batch");
    QCOMPARE(ok(m_client->list(ConfigMaps, ns, all)).items.size(), 2);
}

void tst_RestClient::pagination()
{
    const QString ns = createNamespace(*m_client, QStringLiteral("pages"));
    std::atomic<int> failures {0};
    QThreadPool pool;
    pool.setMaxThreadCount(16);
    for (int i = 0; i < 1200; ++i) {
        pool.start([&, i] {
            if (!m_client->create(ConfigMaps, ns,
                    configMap(ns, QStringLiteral("cm-%1").arg(i, 4, 10, QLatin1Char('0')))))
                ++failures;
        });
    }
    pool.waitForDone();
    QCOMPARE(failures.load(), 0);

    ListOptions options;
    options.limit = 500;
    QSet<QString> names;
    int pages = 0;
    for (;;) {
        const ObjectList page = ok(m_client->list(ConfigMaps, ns, options));
        ++pages;
        for (const Object &o : page.items)
            names.insert(o.name());
        if (page.continueToken.isEmpty())
            break;
        QVERIFY(page.items.size() == 500);
        QVERIFY(page.remainingItemCount.has_value());
        options.continueToken = page.continueToken;
    }
    QCOMPARE(pages, 3);
    QCOMPARE(names.size(), 1200);
}

void tst_RestClient::watchInOrderWithBookmarksAndResume()
{
    const QString ns = createNamespace(*m_client, QStringLiteral("watch"));
    const ObjectList start = ok(m_client->list(ConfigMaps, ns));
    ListOptions options;
    options.resourceVersion = start.resourceVersion;
    options.allowWatchBookmarks = true;
    options.timeoutSeconds = 60;
    auto watch = m_client->watch(ConfigMaps, ns, options);

    ok(m_client->create(ConfigMaps, ns,
        configMap(ns, QStringLiteral("w"), {{QStringLiteral("v"), QStringLiteral("1")}})));
    ok(m_client->patch(
        ConfigMaps, ns, QStringLiteral("w"), PatchType::Merge, R"({"data":{"v":"2"}})"));
    ok(m_client->remove(ConfigMaps, ns, QStringLiteral("w")));

    QList<WatchEvent::Type> types;
    QString lastVersion;
    while (types.size() < 3) {
        auto event = watch->next(30s);
        QVERIFY2(event.has_value(), "no watch event within 30 s");
        if (event->type == WatchEvent::Type::Bookmark)
            continue;
        QVERIFY2(event->type != WatchEvent::Type::Error, qPrintable(event->status.toString()));
        types << event->type;
        QCOMPARE(event->object.name(), QStringLiteral("w"));
        QVERIFY(event->object.resourceVersion().toLongLong() > lastVersion.toLongLong());
        lastVersion = event->object.resourceVersion();
    }
    QCOMPARE(types,
        (QList<WatchEvent::Type> {
            WatchEvent::Type::Added, WatchEvent::Type::Modified, WatchEvent::Type::Deleted}));
    QVERIFY(!watch->usedHttp2()); // the default: a dedicated HTTP/1.1 connection, over TLS
    watch->stop();
    QTRY_VERIFY(watch->isFinished());

    // Resuming from the first version replays what came after it.
    options.resourceVersion = start.resourceVersion;
    auto resumed = m_client->watch(ConfigMaps, ns, options);
    int replayed = 0;
    while (replayed < 3) {
        auto event = resumed->next(30s);
        QVERIFY(event.has_value());
        if (event->type != WatchEvent::Type::Bookmark)
            ++replayed;
    }
    resumed->stop();
}

void tst_RestClient::watchFromCompactedVersionIsGone()
{
    // PodTemplates bypass the apiserver's watch cache in the test cluster (cluster.py), so a
    // watch goes to etcd, as every watch does once the cache's history has moved on.
    const QString ns = createNamespace(*m_client, QStringLiteral("compact"));
    Object templ = fromJson(R"({"apiVersion":"v1","kind":"PodTemplate",
        "template":{"spec":{"containers":[{"name":"c","image":"nginx"}]}}})");
    templ.setName(QStringLiteral("t"));
    templ.setNamespaceName(ns);
    const Object first = ok(m_client->create(PodTemplates, ns, templ));
    for (int i = 0; i < 3; ++i)
        ok(m_client->patch(PodTemplates, ns, QStringLiteral("t"), PatchType::Merge,
            QStringLiteral(R"({"metadata":{"labels":{"i":"%1"}}})").arg(i).toUtf8()));

    // Compact etcd up to its current revision through its HTTP gateway.
    QFile state(m_dir + QStringLiteral("/cluster.json"));
    QVERIFY(state.open(QIODevice::ReadOnly));
    RestConfig etcdConfig;
    etcdConfig.server = QUrl(
        QJsonDocument::fromJson(state.readAll()).object()[QStringLiteral("etcd")].toString());
    RestClient etcd(etcdConfig);
    const Response range = etcd.request(
        "POST", QStringLiteral("/v3/kv/range"), {}, R"({"key":"AA=="})", "application/json");
    QVERIFY2(range.isSuccess(), range.body.constData());
    const qint64 revision = QJsonDocument::fromJson(range.body)
                                .object()[QStringLiteral("header")]
                                .toObject()[QStringLiteral("revision")]
                                .toString()
                                .toLongLong();
    QVERIFY(revision > first.resourceVersion().toLongLong());
    const Response compact = etcd.request("POST", QStringLiteral("/v3/kv/compaction"), {},
        QStringLiteral(R"({"revision":"%1","physical":true})").arg(revision).toUtf8(),
        "application/json");
    QVERIFY2(compact.isSuccess(), compact.body.constData());

    ListOptions options;
    options.resourceVersion = first.resourceVersion();
    auto watch = m_client->watch(PodTemplates, ns, options);
    auto event = watch->next(30s);
    QVERIFY2(event.has_value(), "no event from a watch of a compacted resourceVersion");
    QVERIFY2(event->type == WatchEvent::Type::Error, WatchEvent::typeName(event->type));
    QVERIFY2(event->status.isGone(), qPrintable(event->status.toString()));
    QCOMPARE(event->status.code, 410);
    QVERIFY2(event->status.isResourceExpired(), qPrintable(event->status.reason));
}

void tst_RestClient::watchListBookmark()
{
    // WatchList streaming: the initial state as ADDED events, then a BOOKMARK annotated
    // k8s.io/initial-events-end (what the reflector's WatchList mode waits for).
    const QString ns = createNamespace(*m_client, QStringLiteral("bookmark"));
    for (int i = 0; i < 3; ++i)
        ok(m_client->create(ConfigMaps, ns, configMap(ns, QStringLiteral("b%1").arg(i))));
    const QString listVersion = ok(m_client->list(ConfigMaps, ns)).resourceVersion;
    ListOptions options;
    options.sendInitialEvents = true;
    options.resourceVersionMatch = QStringLiteral("NotOlderThan");
    options.allowWatchBookmarks = true;
    options.timeoutSeconds = 30;
    auto watch = m_client->watch(ConfigMaps, ns, options);
    int added = 0;
    for (;;) {
        auto event = watch->next(20s);
        QVERIFY2(event.has_value(), "the watch ended before its bookmark");
        QVERIFY2(event->type != WatchEvent::Type::Error, qPrintable(event->status.toString()));
        if (event->type == WatchEvent::Type::Added) {
            ++added;
            continue;
        }
        QCOMPARE(event->type, WatchEvent::Type::Bookmark);
        QCOMPARE(event->object.annotations().value(QStringLiteral("k8s.io/initial-events-end")),
            QStringLiteral("true"));
        QVERIFY(event->object.resourceVersion().toLongLong() >= listVersion.toLongLong());
        QVERIFY(event->object.name().isEmpty()); // a bookmark carries only its version
        break;
    }
    QCOMPARE(added, 3);
}

void tst_RestClient::staleUpdateConflicts()
{
    const QString ns = createNamespace(*m_client, QStringLiteral("conflict"));
    const Object original
        = ok(m_client->create(ConfigMaps, ns, configMap(ns, QStringLiteral("c"))));
    Object fresh = original;
    fresh.json()[QStringLiteral("data")] = QJsonObject {{QStringLiteral("x"), QStringLiteral("1")}};
    ok(m_client->update(ConfigMaps, fresh));
    Object stale = original;
    stale.json()[QStringLiteral("data")] = QJsonObject {{QStringLiteral("x"), QStringLiteral("2")}};
    auto conflict = m_client->update(ConfigMaps, stale);
    QVERIFY(!conflict);
    QVERIFY2(conflict.error().isConflict(), qPrintable(conflict.error().toString()));
    QCOMPARE(conflict.error().code, 409);
    QVERIFY(conflict.error().message.contains(QStringLiteral("the object has been modified")));
}

void tst_RestClient::restrictedUserIsForbidden()
{
    RestClient restricted(clusterConfig(QStringLiteral("restricted")));
    QVERIFY(restricted.list(ConfigMaps, QStringLiteral("restricted")).ok());
    auto denied = restricted.create(ConfigMaps, QStringLiteral("default"),
        configMap(QStringLiteral("default"), QStringLiteral("nope")));
    QVERIFY(!denied);
    QVERIFY2(denied.error().isForbidden(), qPrintable(denied.error().toString()));
    QCOMPARE(denied.error().code, 403);
    QVERIFY(denied.error().message.contains(
        QStringLiteral("User \"restricted\" cannot create resource")));
}

void tst_RestClient::tokenAuth()
{
    RestClient byToken(clusterConfig(QStringLiteral("token-admin")));
    const Object ns
        = ok(byToken.get({QString(), QStringLiteral("v1"), QStringLiteral("namespaces")}, {},
            QStringLiteral("default")));
    QCOMPARE(ns.name(), QStringLiteral("default"));
    RestConfig badToken = clusterConfig(QStringLiteral("token-admin"));
    badToken.bearerToken = QStringLiteral("wrong");
    RestClient rejected(badToken);
    auto denied = rejected.get({QString(), QStringLiteral("v1"), QStringLiteral("namespaces")}, {},
        QStringLiteral("default"));
    QVERIFY(!denied);
    QVERIFY2(denied.error().isUnauthorized(), qPrintable(denied.error().toString()));
}

void tst_RestClient::wrongCaFailsClearly()
{
    RestConfig config = clusterConfig(QStringLiteral("admin"));
    QFile otherCa(QStringLiteral(QCM_TEST_DATA "/ca.crt"));
    QVERIFY(otherCa.open(QIODevice::ReadOnly));
    config.caData = otherCa.readAll();
    RestClient client(config);
    auto result = client.get({QString(), QStringLiteral("v1"), QStringLiteral("namespaces")}, {},
        QStringLiteral("default"));
    QVERIFY(!result);
    QCOMPARE(result.error().reason, QStringLiteral("TLSError"));
    QVERIFY2(result.error().message.contains(QStringLiteral("certificate"), Qt::CaseInsensitive),
        qPrintable(result.error().toString()));
}

void tst_RestClient::fiftyWatchesAndRequestsShareHttp2()
{
    const QString ns = createNamespace(*m_client, QStringLiteral("fifty"));
    // Over the shared transport (RestConfig::WatchTransport::Shared): one HTTP/2 connection.
    RestConfig config = clusterConfig(QStringLiteral("admin"));
    config.watchTransport = RestConfig::WatchTransport::Shared;
    RestClient shared(config);
    std::vector<std::shared_ptr<Watch>> watches;
    for (int i = 0; i < 50; ++i) {
        ListOptions options;
        options.labelSelector = QStringLiteral("w=%1").arg(i);
        options.timeoutSeconds = 120;
        watches.push_back(shared.watch(ConfigMaps, ns, options));
    }
    // 200 requests from 8 threads while the 50 watches are open.
    std::atomic<int> failures {0};
    std::atomic<int> http2 {0};
    QThreadPool pool;
    pool.setMaxThreadCount(8);
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < 200; ++i) {
        pool.start([&, i] {
            const int w = i % 50;
            const Response r = shared.request("POST", ConfigMaps.collectionPath(ns), {},
                QJsonDocument(configMap(ns, QStringLiteral("f%1").arg(i), {},
                                  {{QStringLiteral("w"), QString::number(w)}})
                                  .json())
                    .toJson(QJsonDocument::Compact),
                "application/json");
            if (!r.isSuccess())
                ++failures;
            if (r.http2)
                ++http2;
        });
    }
    pool.waitForDone();
    QCOMPARE(failures.load(), 0);
    QCOMPARE(http2.load(), 200); // every request went over HTTP/2
    // Each watch sees its own four creations.
    for (int i = 0; i < 50; ++i) {
        int added = 0;
        while (added < 4) {
            auto event = watches[size_t(i)]->next(30s);
            QVERIFY2(event.has_value(),
                qPrintable(QStringLiteral("watch %1 saw %2 of 4 events").arg(i).arg(added)));
            QVERIFY2(event->type == WatchEvent::Type::Added, qPrintable(event->status.toString()));
            QCOMPARE(event->object.labels().value(QStringLiteral("w")), QString::number(i));
            ++added;
        }
        QVERIFY(watches[size_t(i)]->usedHttp2());
    }
    qInfo("200 requests beside 50 watches in %lld ms", timer.elapsed());
}

void tst_RestClient::discovery()
{
    Discovery discovery(m_client.get());
    const ApiResource cm
        = ok(discovery.resourceFor({QString(), QString(), QStringLiteral("ConfigMap")}));
    QCOMPARE(cm.gvr, ConfigMaps);
    QVERIFY(cm.namespaced);
    QVERIFY(cm.verbs.contains(QStringLiteral("watch")));
    const ApiResource ns
        = ok(discovery.kindFor({QString(), QStringLiteral("v1"), QStringLiteral("namespaces")}));
    QCOMPARE(ns.gvk.kind, QStringLiteral("Namespace"));
    QVERIFY(!ns.namespaced);
    const ApiResource deployments = ok(discovery.resourceFor(
        {QStringLiteral("apps"), QStringLiteral("v1"), QStringLiteral("Deployment")}));
    QCOMPARE(deployments.gvr, Deployments);
    QVERIFY(deployments.subresources.contains(QStringLiteral("scale")));
    QVERIFY(deployments.subresources.contains(QStringLiteral("status")));
    QVERIFY(deployments.shortNames.contains(QStringLiteral("deploy")));
    QVERIFY(!ok(discovery.resources()).isEmpty());

    // A CRD installed after the cache was filled is found on the refresh a miss triggers.
    const GroupVersionKind gadget {
        QStringLiteral("late.qcm.io"), QStringLiteral("v1"), QStringLiteral("Gadget")};
    Object crd = fromJson(R"({
      "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
      "metadata": {"name": "gadgets.late.qcm.io"},
      "spec": {"group": "late.qcm.io", "scope": "Cluster",
        "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
        "versions": [{"name": "v1", "served": true, "storage": true,
          "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}})");
    ok(m_client->create(Crds, {}, crd));
    QTRY_VERIFY_WITH_TIMEOUT(discovery.resourceFor(gadget).ok(), 30000);
    const ApiResource found = ok(discovery.resourceFor(gadget));
    QCOMPARE(found.gvr.resource, QStringLiteral("gadgets"));
    QVERIFY(!found.namespaced);
    auto missing = discovery.resourceFor(
        {QStringLiteral("nowhere.qcm.io"), QStringLiteral("v1"), QStringLiteral("Nothing")});
    QVERIFY(!missing);
    QVERIFY(missing.error().isNotFound());
}

QTEST_GUILESS_MAIN(tst_RestClient)
#include "tst_restclient.moc"
