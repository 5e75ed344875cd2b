// SPDX-License-Identifier: Apache-2.0
// testing::FakeClient: the client conformance suite (tests/clientsuite, which also runs against
// the real API server), and what only the fake has: seeded objects, the JSON patches it
// applies, and informers running on it (the fake-informer helper).
#include "../../clientsuite/clientsuite.h"

#include <qcm/api/core/v1.h>
#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/testing/fakeclient.h>

#include <QtCore/QCoreApplication>

using namespace qcm;
using namespace qcm::client;

class tst_FakeClient : public qcm::testing::ClientSuite
{
    Q_OBJECT

protected:
    Client &client() override { return *m_client; }
    QString ns() const override { return QStringLiteral("suite"); }

private slots:
    void init()
    {
        m_client = std::make_unique<qcm::testing::FakeClient>();
        m_client->withStatusSubresource(gizmos);
    }

    void seededObjectsKeepTheirStatus();
    void typedForms();
    void jsonPatchOperations_data();
    void jsonPatchOperations();
    void mergePatchFromTwoObjects();
    void strategicMergeIsRefused();
    void recordsActionsAndReactors();
    void informersSeeEveryWrite();
    void watchReplaysFromAVersion();

private:
    std::unique_ptr<qcm::testing::FakeClient> m_client;
};

void tst_FakeClient::seededObjectsKeepTheirStatus()
{
    auto seeded = m_client->add(gizmos, gizmo(QStringLiteral("seed"), 2));
    QVERIFY(seeded);
    QCOMPARE(seeded->json()
                 .value(QStringLiteral("status"))
                 .toObject()
                 .value(QStringLiteral("availableReplicas"))
                 .toInt(),
        7);
    QVERIFY(!seeded->uid().isEmpty());
}

void tst_FakeClient::typedForms()
{
    const auto created = m_client->create<api::core::v1::ConfigMap>(
        api::core::v1::ConfigMap::build()
            .name(QStringLiteral("typed"))
            .namespaceName(ns())
            .data({{QStringLiteral("k"), QStringLiteral("v")}}));
    QVERIFY(created);
    QCOMPARE(created->data().value(QStringLiteral("k")), QStringLiteral("v"));
    const auto got = m_client->get<api::core::v1::ConfigMap>(ns(), QStringLiteral("typed"));
    QVERIFY(got);
    QCOMPARE(got->uid(), created->uid());
    QVERIFY(
        m_client->get<api::core::v1::ConfigMap>(ns(), QStringLiteral("none")).error().isNotFound());
    const auto all = m_client->list<api::core::v1::ConfigMap>(ns());
    QVERIFY(all);
    QCOMPARE(all->size(), 1);
    PatchOptions options;
    options.fieldManager = QStringLiteral("t");
    const auto applied = m_client->apply<api::core::v1::ConfigMap>(
        api::core::v1::ConfigMap::build()
            .name(QStringLiteral("typed"))
            .namespaceName(ns())
            .data({{QStringLiteral("k"), QStringLiteral("w")}}),
        options);
    QVERIFY(applied);
    QCOMPARE(applied->data().value(QStringLiteral("k")), QStringLiteral("w"));
}

void tst_FakeClient::jsonPatchOperations_data()
{
    // RFC 6902's examples (appendix A), as the API server's json-patch library applies them.
    QTest::addColumn<QByteArray>("document");
    QTest::addColumn<QByteArray>("patch");
    QTest::addColumn<QByteArray>("expected"); // empty: an error
    QTest::newRow("add member") << QByteArray(R"({"foo":"bar"})")
                                << QByteArray(R"([{"op":"add","path":"/baz","value":"qux"}])")
                                << QByteArray(R"({"baz":"qux","foo":"bar"})");
    QTest::newRow("add element") << QByteArray(R"({"foo":["bar","baz"]})")
                                 << QByteArray(R"([{"op":"add","path":"/foo/1","value":"qux"}])")
                                 << QByteArray(R"({"foo":["bar","qux","baz"]})");
    QTest::newRow("append") << QByteArray(R"({"foo":["bar"]})")
                            << QByteArray(R"([{"op":"add","path":"/foo/-","value":"x"}])")
                            << QByteArray(R"({"foo":["bar","x"]})");
    QTest::newRow("remove member")
        << QByteArray(R"({"baz":"qux","foo":"bar"})")
        << QByteArray(R"([{"op":"remove","path":"/baz"}])") << QByteArray(R"({"foo":"bar"})");
    QTest::newRow("remove element") << QByteArray(R"({"foo":["bar","qux","baz"]})")
                                    << QByteArray(R"([{"op":"remove","path":"/foo/1"}])")
                                    << QByteArray(R"({"foo":["bar","baz"]})");
    QTest::newRow("replace") << QByteArray(R"({"baz":"qux","foo":"bar"})")
                             << QByteArray(R"([{"op":"replace","path":"/baz","value":"boo"}])")
                             << QByteArray(R"({"baz":"boo","foo":"bar"})");
    QTest::newRow("move") << QByteArray(
        R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})")
                          << QByteArray(R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])")
                          << QByteArray(
                                 R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})");
    QTest::newRow("move element") << QByteArray(R"({"foo":["all","grass","cows","eat"]})")
                                  << QByteArray(
                                         R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])")
                                  << QByteArray(R"({"foo":["all","cows","eat","grass"]})");
    QTest::newRow("copy") << QByteArray(R"({"a":{"b":1}})")
                          << QByteArray(R"([{"op":"copy","from":"/a","path":"/c"}])")
                          << QByteArray(R"({"a":{"b":1},"c":{"b":1}})");
    QTest::newRow("test ok")
        << QByteArray(R"({"baz":"qux","foo":["a",2,"c"]})")
        << QByteArray(
               R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])")
        << QByteArray(R"({"baz":"qux","foo":["a",2,"c"]})");
    QTest::newRow("test fails") << QByteArray(R"({"baz":"qux"})")
                                << QByteArray(R"([{"op":"test","path":"/baz","value":"bar"}])")
                                << QByteArray();
    QTest::newRow("escaped pointer")
        << QByteArray(R"({"a/b":{"m~n":1}})")
        << QByteArray(R"([{"op":"replace","path":"/a~1b/m~0n","value":2}])")
        << QByteArray(R"({"a/b":{"m~n":2}})");
    QTest::newRow("add to missing parent")
        << QByteArray(R"({"foo":"bar"})")
        << QByteArray(R"([{"op":"add","path":"/baz/bat","value":"qux"}])") << QByteArray();
    QTest::newRow("remove missing")
        << QByteArray(R"({"foo":"bar"})") << QByteArray(R"([{"op":"remove","path":"/nope"}])")
        << QByteArray();
    QTest::newRow("index out of range")
        << QByteArray(R"({"foo":[1]})") << QByteArray(R"([{"op":"add","path":"/foo/5","value":2}])")
        << QByteArray();
    QTest::newRow("leading zero") << QByteArray(R"({"foo":[1,2]})")
                                  << QByteArray(R"([{"op":"replace","path":"/foo/01","value":2}])")
                                  << QByteArray();
    QTest::newRow("unknown op") << QByteArray(R"({})")
                                << QByteArray(R"([{"op":"frob","path":"/a"}])") << QByteArray();
    QTest::newRow("not an array") << QByteArray(R"({})") << QByteArray(R"({"op":"add"})")
                                  << QByteArray();
    QTest::newRow("move into itself")
        << QByteArray(R"({"a":{"b":{}}})")
        << QByteArray(R"([{"op":"move","from":"/a","path":"/a/b/c"}])") << QByteArray();
}

void tst_FakeClient::jsonPatchOperations()
{
    QFETCH(QByteArray, document);
    QFETCH(QByteArray, patch);
    QFETCH(QByteArray, expected);
    const auto result = applyJsonPatch(QJsonDocument::fromJson(document).object(), patch);
    if (expected.isEmpty()) {
        QVERIFY(!result);
        QVERIFY(!result.error().reason.isEmpty());
        QVERIFY(result.error().field.startsWith(QStringLiteral("operation "))
            || result.error().field.isEmpty());
    } else {
        QVERIFY2(result, qPrintable(result.ok() ? QString() : result.error().toString()));
        QCOMPARE(*result, QJsonValue(QJsonDocument::fromJson(expected).object()));
    }
}

void tst_FakeClient::mergePatchFromTwoObjects()
{
    // RFC 7386's examples, both ways: the patch applied gives the result, and the patch
    // computed from the two objects gives it too.
    const QList<std::array<const char *, 3>> cases = {
        {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
        {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
        {R"({"a":"b"})", R"({"a":null})", R"({})"},
        {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
        {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
        {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
        {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
        {R"({"e":null})", R"({"a":1})", R"({"a":1,"e":null})"},
    };
    for (const auto &c : cases) {
        const QJsonObject original = QJsonDocument::fromJson(c[0]).object();
        const QJsonObject patch = QJsonDocument::fromJson(c[1]).object();
        const QJsonObject result = QJsonDocument::fromJson(c[2]).object();
        QCOMPARE(applyMergePatch(original, patch).toObject(), result);
        QCOMPARE(applyMergePatch(original, createMergePatch(original, result)).toObject(), result);
    }
    QVERIFY(createMergePatch(QJsonObject {{QStringLiteral("a"), 1}},
        QJsonObject {{QStringLiteral("a"),
            1}}).isEmpty());
}

void tst_FakeClient::strategicMergeIsRefused()
{
    QVERIFY(m_client->create(configMaps, configMap(QStringLiteral("smp"))));
    const auto r
        = m_client->patch(configMaps, ns(), QStringLiteral("smp"), PatchType::StrategicMerge, "{}");
    QVERIFY(!r);
    QCOMPARE(r.error().code, 415);
}

void tst_FakeClient::recordsActionsAndReactors()
{
    // client-go's fake clientset: every call is an Action; a reactor answers instead of the
    // tracker (here: an injected conflict on the first status update only).
    QVERIFY(m_client->add(gizmos, gizmo(QStringLiteral("a"), 1))); // seeding is not an action
    auto got = m_client->get(gizmos, ns(), QStringLiteral("a"));
    QVERIFY(got);
    int conflicts = 0;
    m_client->prependReactor([&](const qcm::testing::Action &a) -> std::optional<ObjectResult> {
        if (a.verb == QLatin1String("update") && a.subresource == QLatin1String("status")
            && conflicts++ == 0) {
            Status s;
            s.code = 409;
            s.reason = QStringLiteral("Conflict");
            return ObjectResult(s);
        }
        return std::nullopt;
    });
    WriteOptions options;
    options.fieldManager = QStringLiteral("m");
    QVERIFY(m_client->updateStatus(gizmos, *got, options).error().isConflict());
    QVERIFY(m_client->updateStatus(gizmos, *got, options));
    QVERIFY(m_client->patch(configMaps, ns(), QStringLiteral("none"), PatchType::Merge, "{}")
                .error()
                .isNotFound());
    QVERIFY(m_client->remove(gizmos, ns(), QStringLiteral("a")));
    QCOMPARE(m_client->actionStrings(),
        (QStringList {QStringLiteral("get gizmos suite/a"),
            QStringLiteral("update gizmos/status suite/a"),
            QStringLiteral("update gizmos/status suite/a"),
            QStringLiteral("patch configmaps suite/none"),
            QStringLiteral("delete gizmos suite/a")}));
    QCOMPARE(m_client->actions().at(1).writeOptions.fieldManager, QStringLiteral("m"));
    m_client->clearActions();
    QVERIFY(m_client->actions().isEmpty());
}

void tst_FakeClient::informersSeeEveryWrite()
{
    QObject receiver;
    cache::SharedInformerFactory *factory = m_client->informerFactory(&receiver);
    QVERIFY(m_client->create(configMaps, configMap(QStringLiteral("before"))));
    cache::SharedIndexInformer *informer = factory->informerFor(configMaps);
    QStringList seen;
    informer->addEventHandler(&receiver,
        {[&](const Object &o, bool initial) {
             seen << (initial ? QStringLiteral("initial ") : QStringLiteral("add ")) + o.name();
         },
            [&](const Object &, const Object &o) { seen << QStringLiteral("update ") + o.name(); },
            [&](const Object &o, bool) { seen << QStringLiteral("delete ") + o.name(); }});
    factory->start();
    QVERIFY(factory->waitForCacheSync(std::chrono::seconds(10)));
    auto created = m_client->create(configMaps, configMap(QStringLiteral("after")));
    QVERIFY(created);
    Object changed = *created;
    changed.setLabels({{QStringLiteral("x"), QStringLiteral("y")}});
    QVERIFY(m_client->update(configMaps, changed));
    QVERIFY(m_client->remove(configMaps, ns(), QStringLiteral("after")));
    const QStringList expected {QStringLiteral("initial before"), QStringLiteral("add after"),
        QStringLiteral("update after"), QStringLiteral("delete after")};
    QTRY_COMPARE_WITH_TIMEOUT(seen, expected, 10000);
    // The cache holds what the client holds.
    QCOMPARE(informer->lister().list().size(), 1);
    factory->shutdown();
}

void tst_FakeClient::watchReplaysFromAVersion()
{
    auto a = m_client->create(configMaps, configMap(QStringLiteral("w-a")));
    QVERIFY(a);
    QVERIFY(m_client->create(configMaps, configMap(QStringLiteral("w-b"))));
    ListOptions from;
    from.resourceVersion = a->resourceVersion();
    auto watch = m_client->tracker().watch(configMaps, ns(), from);
    QVERIFY(watch);
    const auto first = (*watch)->next(std::chrono::seconds(1));
    QVERIFY(first && first->type == WatchEvent::Type::Added);
    QCOMPARE(first->object.name(), QStringLiteral("w-b"));
    QVERIFY(!(*watch)->next(std::chrono::milliseconds(10)));
    (*watch)->stop();
}

QTEST_MAIN(tst_FakeClient)
#include "tst_fakeclient.moc"
