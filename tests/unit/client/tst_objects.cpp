// SPDX-License-Identifier: Apache-2.0
// Object, Status and resource names.
#include <qcm/client/object.h>
#include <qcm/client/resource.h>
#include <qcm/client/status.h>

#include <QtCore/QJsonDocument>
#include <QtTest/QtTest>

#include <thread>
#include <vector>

using namespace qcm::client;

class tst_Objects : public QObject
{
    Q_OBJECT

private slots:
    void metadataAccessors();
    void settersDetach();
    void identityFollowsTheJson();
    void copiesShareUntilModified();
    void statusFromBody();
    void statusPredicates_data();
    void statusPredicates();
    void statusWithoutBody();
    void resourcePaths();
};

void tst_Objects::metadataAccessors()
{
    QFile f(QStringLiteral(QCM_SHARED_TESTDATA "/pod-nginx.json"));
    QVERIFY2(f.open(QIODevice::ReadOnly),
        "missing ../shared/testdata/pod-nginx.json: shared/ must sit beside the repository");
    const Object pod(QJsonDocument::fromJson(f.readAll()).object());
    QCOMPARE(pod.kind(), QStringLiteral("Pod"));
    QCOMPARE(pod.apiVersion(), QStringLiteral("v1"));
    QVERIFY(!pod.name().isEmpty());
    QVERIFY(!pod.namespaceName().isEmpty());
    QCOMPARE(pod.key(), pod.namespaceName() + QLatin1Char('/') + pod.name());
    QVERIFY(!pod.uid().isEmpty());
    QVERIFY(!pod.resourceVersion().isEmpty());
    QVERIFY(pod.creationTimestamp().isValid());

    Object o(QJsonDocument::fromJson(R"({"metadata":{"name":"x","generation":7,
        "labels":{"a":"1"},"annotations":{"b":"2"},"finalizers":["f1","f2"],
        "deletionTimestamp":"2026-11-22T07:00:00Z",
        "ownerReferences":[{"apiVersion":"v1","kind":"Foo","name":"o1","uid":"u1"},
                           {"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"u2","controller":true,"blockOwnerDeletion":true}]}})")
                 .object());
    QCOMPARE(o.generation(), 7);
    QCOMPARE(o.labels(), (QMap<QString, QString> {{QStringLiteral("a"), QStringLiteral("1")}}));
    QCOMPARE(o.annotations().value(QStringLiteral("b")), QStringLiteral("2"));
    QCOMPARE(o.finalizers(), (QStringList {QStringLiteral("f1"), QStringLiteral("f2")}));
    QCOMPARE(o.deletionTimestamp()->toString(Qt::ISODate), QStringLiteral("2026-11-22T07:00:00Z"));
    QCOMPARE(o.ownerReferences().size(), 2);
    QCOMPARE(o.controllerRef()->name, QStringLiteral("d"));
    QVERIFY(o.controllerRef()->blockOwnerDeletion);
    QCOMPARE(o.key(), QStringLiteral("x")); // cluster-scoped
    QVERIFY(!Object().deletionTimestamp().has_value());
    QVERIFY(!Object().controllerRef().has_value());
}

void tst_Objects::settersDetach()
{
    Object a;
    a.setName(QStringLiteral("a"));
    a.setNamespaceName(QStringLiteral("ns"));
    Object b = a;
    b.setName(QStringLiteral("b"));
    b.setLabels({{QStringLiteral("k"), QStringLiteral("v")}});
    b.setOwnerReferences({{QStringLiteral("v1"), QStringLiteral("Foo"), QStringLiteral("f"),
        QStringLiteral("u"), true, false}});
    b.setFinalizers({QStringLiteral("x")});
    QCOMPARE(a.name(), QStringLiteral("a"));
    QVERIFY(a.labels().isEmpty());
    QCOMPARE(b.key(), QStringLiteral("ns/b"));
    QCOMPARE(b.controllerRef()->uid, QStringLiteral("u"));
    b.setLabels({});
    QVERIFY(!b.json()[QStringLiteral("metadata")].toObject().contains(QStringLiteral("labels")));
}

// key() and hasName() are cached when the Object is built; every way of changing the name or
// namespace must show in them.
void tst_Objects::identityFollowsTheJson()
{
    const QJsonObject json {{QStringLiteral("metadata"),
        QJsonObject {{QStringLiteral("name"), QStringLiteral("a")},
            {QStringLiteral("namespace"), QStringLiteral("ns")}}}};
    Object a(json);
    QCOMPARE(a.key(), QStringLiteral("ns/a"));
    QVERIFY(a.hasName());

    a.setName(QStringLiteral("b"));
    QCOMPARE(a.key(), QStringLiteral("ns/b"));
    a.setNamespaceName(QString());
    QCOMPARE(a.key(), QStringLiteral("b"));
    a.setName(QString());
    QVERIFY(!a.hasName());
    QCOMPARE(a.key(), QString());

    // Through the JSON itself, held across later calls.
    Object c(json);
    QJsonObject &raw = c.json();
    QCOMPARE(c.key(), QStringLiteral("ns/a"));
    raw.insert(QStringLiteral("metadata"),
        QJsonObject {{QStringLiteral("name"), QStringLiteral("z")},
            {QStringLiteral("namespace"), QStringLiteral("other")}});
    QCOMPARE(c.key(), QStringLiteral("other/z"));
    c.setName(QStringLiteral("y")); // a setter does not make the lent JSON stale
    raw.insert(
        QStringLiteral("metadata"), QJsonObject {{QStringLiteral("name"), QStringLiteral("w")}});
    QCOMPARE(c.key(), QStringLiteral("w"));
    QVERIFY(c.hasName());

    // Copies and assignments carry the identity of the JSON they hold.
    const Object copy = c;
    raw.insert(
        QStringLiteral("metadata"), QJsonObject {{QStringLiteral("name"), QStringLiteral("v")}});
    QCOMPARE(copy.key(), QStringLiteral("w"));
    QCOMPARE(c.key(), QStringLiteral("v"));
    Object assigned;
    QCOMPARE(assigned.key(), QString());
    QVERIFY(!assigned.hasName());
    assigned = c;
    QCOMPARE(assigned.key(), QStringLiteral("v"));
    Object moved(std::move(assigned));
    QCOMPARE(moved.key(), QStringLiteral("v"));
    QVERIFY(moved.hasName());
    Object target(json);
    target = std::move(moved);
    QCOMPARE(target.key(), QStringLiteral("v"));
    QVERIFY(target.hasName());

    // No metadata, or metadata that is not an object.
    QCOMPARE(Object(QJsonObject {{QStringLiteral("metadata"), 3}}).key(), QString());
    QVERIFY(!Object(QJsonObject {{QStringLiteral("kind"), QStringLiteral("X")}}).hasName());
}

// Copies share one block (one reference count) and each detaches on its first change: four
// threads copy one Object, modify their copies and drop them, while the original, read
// meanwhile, never changes (run under TSan too).
void tst_Objects::copiesShareUntilModified()
{
    const Object original(QJsonObject {{QStringLiteral("metadata"),
        QJsonObject {{QStringLiteral("name"), QStringLiteral("a")},
            {QStringLiteral("namespace"), QStringLiteral("ns")}}}});
    std::vector<std::thread> threads;
    std::vector<int> wrong(4, 0);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 2000; ++i) {
                Object copy = original;
                Object second = copy;
                if (i % 2)
                    copy.setName(QStringLiteral("t%1").arg(t));
                else
                    copy.json().insert(QStringLiteral("kind"), QStringLiteral("X"));
                const Object third = copy;
                if (second.key() != QLatin1String("ns/a") || original.name() != QLatin1String("a")
                    || third.key()
                        != (i % 2 ? QStringLiteral("ns/t%1").arg(t) : QStringLiteral("ns/a"))
                    || (i % 2 == 0 && third.kind() != QLatin1String("X")))
                    ++wrong[size_t(t)];
            }
        });
    for (std::thread &thread : threads)
        thread.join();
    QCOMPARE(wrong, std::vector<int>(4, 0));
    QCOMPARE(original.key(), QStringLiteral("ns/a"));
    QVERIFY(!original.json().contains(QStringLiteral("kind")));
}

void tst_Objects::statusFromBody()
{
    const QByteArray body = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
        "message":"ConfigMap \"x\" is invalid: data[a b]: Invalid value","reason":"Invalid",
        "details":{"name":"x","kind":"ConfigMap","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"a b\"","field":"data[a b]"}]},
        "code":422})";
    const Status s = Status::fromResponse(422, body);
    QVERIFY(s.isInvalid());
    QCOMPARE(s.code, 422);
    QCOMPARE(s.detailsName, QStringLiteral("x"));
    QCOMPARE(s.detailsKind, QStringLiteral("ConfigMap"));
    QCOMPARE(s.causes.size(), 1);
    QCOMPARE(s.causes[0].field, QStringLiteral("data[a b]"));
    QCOMPARE(s.causes[0].reason, QStringLiteral("FieldValueInvalid"));
    QVERIFY(s.toString().contains(QStringLiteral("Invalid (422)")));
    QVERIFY(s.toString().contains(QStringLiteral("data[a b]: Invalid value")));

    const Status tooMany = Status::fromResponse(429,
        R"({"kind":"Status","reason":"TooManyRequests","code":429,"details":{"retryAfterSeconds":3}})");
    QVERIFY(tooMany.isTooManyRequests());
    QCOMPARE(tooMany.retryAfterSeconds.value_or(-1), 3);
}

void tst_Objects::statusPredicates_data()
{
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("predicate");
    QTest::newRow("404") << 404 << QStringLiteral("NotFound") << QStringLiteral("notFound");
    QTest::newRow("409 exists") << 409 << QStringLiteral("AlreadyExists")
                                << QStringLiteral("alreadyExists");
    QTest::newRow("409 conflict") << 409 << QStringLiteral("Conflict")
                                  << QStringLiteral("conflict");
    QTest::newRow("410 gone") << 410 << QStringLiteral("Gone") << QStringLiteral("gone");
    QTest::newRow("410 expired") << 410 << QStringLiteral("Expired") << QStringLiteral("expired");
    QTest::newRow("429") << 429 << QStringLiteral("TooManyRequests") << QStringLiteral("tooMany");
    QTest::newRow("403") << 403 << QStringLiteral("Forbidden") << QStringLiteral("forbidden");
    QTest::newRow("401") << 401 << QStringLiteral("Unauthorized") << QStringLiteral("unauthorized");
    QTest::newRow("422") << 422 << QStringLiteral("Invalid") << QStringLiteral("invalid");
    QTest::newRow("504") << 504 << QStringLiteral("Timeout") << QStringLiteral("timeout");
    QTest::newRow("500 server timeout")
        << 500 << QStringLiteral("ServerTimeout") << QStringLiteral("serverTimeout");
}

void tst_Objects::statusPredicates()
{
    QFETCH(int, code);
    QFETCH(QString, reason);
    QFETCH(QString, predicate);
    const Status s = Status::fromResponse(code,
        QStringLiteral(R"({"kind":"Status","reason":"%1","code":%2})")
            .arg(reason)
            .arg(code)
            .toUtf8());
    const QMap<QString, bool> all {{QStringLiteral("notFound"), s.isNotFound()},
        {QStringLiteral("alreadyExists"), s.isAlreadyExists()},
        {QStringLiteral("conflict"), s.isConflict()},
        {QStringLiteral("gone"), s.isGone() && !s.isResourceExpired()},
        {QStringLiteral("expired"), s.isResourceExpired() && s.isGone()},
        {QStringLiteral("tooMany"), s.isTooManyRequests()},
        {QStringLiteral("forbidden"), s.isForbidden()},
        {QStringLiteral("unauthorized"), s.isUnauthorized()},
        {QStringLiteral("invalid"), s.isInvalid()}, {QStringLiteral("timeout"), s.isTimeout()},
        {QStringLiteral("serverTimeout"), s.isServerTimeout()}};
    for (auto it = all.begin(); it != all.end(); ++it)
        QVERIFY2(it.value() == (it.key() == predicate),
            qPrintable(it.key() + QStringLiteral(" for ") + s.toString()));
}

// A body that is not a Status: the reason comes from the code, as apimachinery assumes.
void tst_Objects::statusWithoutBody()
{
    const Status s = Status::fromResponse(404, "<html>not here</html>");
    QVERIFY(s.isNotFound());
    QVERIFY(s.message.contains(QStringLiteral("<html>not here</html>")));
    QVERIFY(Status::fromResponse(410, {}).isGone());
    QVERIFY(Status::fromResponse(503, {}).reason == QStringLiteral("ServiceUnavailable"));
    const Status transport = Status::transportError(
        QStringLiteral("ConnectionRefused"), QStringLiteral("connection refused"));
    QCOMPARE(transport.code, 0);
    QCOMPARE(transport.toString(), QStringLiteral("ConnectionRefused: connection refused"));
}

void tst_Objects::resourcePaths()
{
    const GroupVersionResource cm {QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};
    QCOMPARE(cm.collectionPath(QStringLiteral("ns")),
        QStringLiteral("/api/v1/namespaces/ns/configmaps"));
    QCOMPARE(cm.collectionPath(), QStringLiteral("/api/v1/configmaps"));
    QCOMPARE(cm.toString(), QStringLiteral("configmaps.v1."));
    const GroupVersionResource dep {
        QStringLiteral("apps"), QStringLiteral("v1"), QStringLiteral("deployments")};
    QCOMPARE(dep.collectionPath(QStringLiteral("x")),
        QStringLiteral("/apis/apps/v1/namespaces/x/deployments"));
    QCOMPARE(dep.groupVersion(), QStringLiteral("apps/v1"));
    const GroupVersionKind gvk
        = GroupVersionKind::fromApiVersion(QStringLiteral("apps/v1"), QStringLiteral("Deployment"));
    QCOMPARE(gvk.group, QStringLiteral("apps"));
    QCOMPARE(gvk.toString(), QStringLiteral("apps/v1, Kind=Deployment"));
    QCOMPARE(GroupVersionKind::fromApiVersion(QStringLiteral("v1"), QStringLiteral("Pod")).group,
        QString());
    QVERIFY(qHash(cm) != qHash(dep));
}

QTEST_GUILESS_MAIN(tst_Objects)
#include "tst_objects.moc"
