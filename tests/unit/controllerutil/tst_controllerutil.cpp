// SPDX-License-Identifier: Apache-2.0
// controllerutil, with controller-runtime's controllerutil_test.go cases ported where they
// apply: SetControllerReference / SetOwnerReference (upserts, AlreadyOwnedError, scopes),
// finalizers, CreateOrUpdate and CreateOrPatch (what they report, and what they write), on the
// fake client.
#include <qcm/controllerutil/controllerutil.h>
#include <qcm/testing/fakeclient.h>

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::client;
using namespace qcm::controllerutil;

namespace {

const GroupVersionResource Deployments {
    QStringLiteral("apps"), QStringLiteral("v1"), QStringLiteral("deployments")};

Object object(const QString &apiVersion, const QString &kind, const QString &ns,
    const QString &name, const QString &uid = {})
{
    Object o(
        QJsonObject {{QStringLiteral("apiVersion"), apiVersion}, {QStringLiteral("kind"), kind},
            {QStringLiteral("metadata"),
                QJsonObject {{QStringLiteral("name"), name}, {QStringLiteral("uid"), uid}}}});
    if (!ns.isEmpty())
        o.setNamespaceName(ns);
    return o;
}

Object replicaSet()
{
    return object(QStringLiteral("apps/v1"), QStringLiteral("ReplicaSet"),
        QStringLiteral("default"), QStringLiteral("foo"));
}
Object deployment(const QString &uid = QStringLiteral("foo-uid"))
{
    return object(QStringLiteral("apps/v1"), QStringLiteral("Deployment"),
        QStringLiteral("default"), QStringLiteral("foo"), uid);
}

} // namespace

class tst_ControllerUtil : public QObject
{
    Q_OBJECT

private slots:
    void setOwnerReferenceAddsAndUpserts();
    void setOwnerReferenceKeepsControllerFlag();
    void controllerReference();
    void setControllerReferenceReplacesItsOwnOldReference();
    void setControllerReferenceRefusesASecondController();
    void controllerReferenceScopes_data();
    void controllerReferenceScopes();
    void ownerReferenceRemoval();
    void finalizers();
    void createOrUpdateReports();
    void createOrUpdateErrors();
    void createOrPatchReports();
};

void tst_ControllerUtil::setOwnerReferenceAddsAndUpserts()
{
    Object rs = replicaSet();
    QVERIFY(!setOwnerReference(deployment(), rs));
    QCOMPARE(rs.ownerReferences().size(), 1);
    const OwnerReference ref = rs.ownerReferences().first();
    QCOMPARE(ref.apiVersion, QStringLiteral("apps/v1"));
    QCOMPARE(ref.kind, QStringLiteral("Deployment"));
    QCOMPARE(ref.name, QStringLiteral("foo"));
    QCOMPARE(ref.uid, QStringLiteral("foo-uid"));
    QVERIFY(!ref.controller);
    // "should update the existing owner reference": same group, kind and name, new uid.
    QVERIFY(!setOwnerReference(deployment(QStringLiteral("new-uid")), rs));
    QCOMPARE(rs.ownerReferences().size(), 1);
    QCOMPARE(rs.ownerReferences().first().uid, QStringLiteral("new-uid"));
    // Another owner is added beside.
    QVERIFY(!setOwnerReference(
        object(QStringLiteral("v1"), QStringLiteral("ConfigMap"), QStringLiteral("default"),
            QStringLiteral("cm"), QStringLiteral("cm-uid")),
        rs));
    QCOMPARE(rs.ownerReferences().size(), 2);
}

void tst_ControllerUtil::setOwnerReferenceKeepsControllerFlag()
{
    Object rs = replicaSet();
    QVERIFY(!setControllerReference(deployment(), rs));
    QVERIFY(!setOwnerReference(deployment(), rs));
    QCOMPARE(rs.ownerReferences().size(), 1);
    QVERIFY(rs.ownerReferences().first().controller);
}

void tst_ControllerUtil::controllerReference()
{
    Object rs = replicaSet();
    QVERIFY(!setControllerReference(deployment(), rs));
    const OwnerReference ref = rs.ownerReferences().first();
    QVERIFY(ref.controller);
    QVERIFY(ref.blockOwnerDeletion);
    QVERIFY(hasControllerReference(deployment(), rs));
    QVERIFY(!hasControllerReference(deployment(QStringLiteral("other")), rs));
    // "should not duplicate an existing owner reference"
    QVERIFY(!setControllerReference(deployment(), rs));
    QCOMPARE(rs.ownerReferences().size(), 1);
}

void tst_ControllerUtil::setControllerReferenceReplacesItsOwnOldReference()
{
    // "should replace the owner reference if the controller's version changed": the same
    // group, kind and name through another apiVersion is the same owner.
    Object rs = replicaSet();
    QVERIFY(!setControllerReference(
        object(QStringLiteral("apps/v1beta1"), QStringLiteral("Deployment"),
            QStringLiteral("default"), QStringLiteral("foo"), QStringLiteral("foo-uid")),
        rs));
    QVERIFY(!setControllerReference(deployment(), rs));
    QCOMPARE(rs.ownerReferences().size(), 1);
    QCOMPARE(rs.ownerReferences().first().apiVersion, QStringLiteral("apps/v1"));
}

void tst_ControllerUtil::setControllerReferenceRefusesASecondController()
{
    // "should return an error if it's already owned by another controller"
    Object rs = replicaSet();
    QVERIFY(!setControllerReference(deployment(), rs));
    const Object other = object(QStringLiteral("apps/v1"), QStringLiteral("Deployment"),
        QStringLiteral("default"), QStringLiteral("bar"), QStringLiteral("bar-uid"));
    const auto refused = setControllerReference(other, rs);
    QVERIFY(refused);
    QVERIFY(refused->kind == OwnershipError::Kind::AlreadyOwned);
    QCOMPARE(refused->reason,
        QStringLiteral("Object default/foo is already owned by another Deployment controller foo"));
    QCOMPARE(rs.ownerReferences().size(), 1);
    QCOMPARE(rs.ownerReferences().first().name, QStringLiteral("foo"));
    // A plain owner reference to it is still fine.
    QVERIFY(!setOwnerReference(other, rs));
    QCOMPARE(rs.ownerReferences().size(), 2);
}

void tst_ControllerUtil::controllerReferenceScopes_data()
{
    QTest::addColumn<QString>("ownerNamespace");
    QTest::addColumn<QString>("objectNamespace");
    QTest::addColumn<QString>("error"); // empty: allowed
    QTest::newRow("same namespace") << "default"
                                    << "default" << QString();
    QTest::newRow("cluster-scoped owner of a namespaced object") << ""
                                                                 << "default" << QString();
    QTest::newRow("cluster-scoped owner of a cluster-scoped object") << ""
                                                                     << "" << QString();
    QTest::newRow("namespaced owner of a cluster-scoped object")
        << "default"
        << ""
        << "cluster-scoped resource must not have a namespace-scoped owner, owner's namespace "
           "default";
    QTest::newRow("cross-namespace") << "default"
                                     << "other"
                                     << "cross-namespace owner references are disallowed, owner's "
                                        "namespace default, obj's namespace other";
}

void tst_ControllerUtil::controllerReferenceScopes()
{
    QFETCH(QString, ownerNamespace);
    QFETCH(QString, objectNamespace);
    QFETCH(QString, error);
    const Object owner = object(QStringLiteral("v1"), QStringLiteral("Owner"), ownerNamespace,
        QStringLiteral("o"), QStringLiteral("o-uid"));
    Object o = object(
        QStringLiteral("v1"), QStringLiteral("Thing"), objectNamespace, QStringLiteral("t"));
    const auto result = setControllerReference(owner, o);
    if (error.isEmpty()) {
        QVERIFY(!result);
        QCOMPARE(o.ownerReferences().size(), 1);
    } else {
        QVERIFY(result);
        QVERIFY(result->kind == OwnershipError::Kind::ScopeMismatch);
        QCOMPARE(result->reason, error);
        QVERIFY(o.ownerReferences().isEmpty());
    }
    // An owner that was never stored (no uid) is refused too.
    Object incomplete = object(
        QStringLiteral("v1"), QStringLiteral("Thing"), objectNamespace, QStringLiteral("t"));
    QCOMPARE(setControllerReference(
                 object(QStringLiteral("v1"), QStringLiteral("Owner"), {}, QStringLiteral("o")),
                 incomplete)
                 ->kind,
        OwnershipError::Kind::IncompleteOwner);
}

void tst_ControllerUtil::ownerReferenceRemoval()
{
    Object rs = replicaSet();
    QVERIFY(!setControllerReference(deployment(), rs));
    QVERIFY(!qcm::controllerutil::removeOwnerReference(
        object(QStringLiteral("v1"), QStringLiteral("Other"), QStringLiteral("default"),
            QStringLiteral("x"), QStringLiteral("u")),
        rs));
    QVERIFY(qcm::controllerutil::removeOwnerReference(deployment(), rs));
    QVERIFY(rs.ownerReferences().isEmpty());
}

void tst_ControllerUtil::finalizers()
{
    // controller-runtime's "Finalizers" cases: add is idempotent, remove removes every copy.
    Object o = deployment();
    const QString f = QStringLiteral("foo.com/finalizer");
    QVERIFY(!containsFinalizer(o, f));
    QVERIFY(addFinalizer(o, f));
    QVERIFY(!addFinalizer(o, f));
    QCOMPARE(o.finalizers(), QStringList {f});
    QVERIFY(containsFinalizer(o, f));
    o.setFinalizers({f, QStringLiteral("other"), f});
    QVERIFY(removeFinalizer(o, f));
    QCOMPARE(o.finalizers(), QStringList {QStringLiteral("other")});
    QVERIFY(!removeFinalizer(o, f));
}

void tst_ControllerUtil::createOrUpdateReports()
{
    testing::FakeClient client;
    Object d = deployment(QString());
    int calls = 0;
    auto mutate = [&](Object &o) -> std::optional<Error> {
        ++calls;
        o.json().insert(QStringLiteral("spec"), QJsonObject {{QStringLiteral("replicas"), 3}});
        o.setLabels({{QStringLiteral("app"), QStringLiteral("foo")}});
        return std::nullopt;
    };
    // "creates a new object if one doesn't exist"
    OperationOutcome r = qcm::controllerutil::createOrUpdate(client, Deployments, d, mutate);
    QVERIFY2(r.ok(), qPrintable(r.errorString()));
    QCOMPARE(toString(r.result), toString(OperationResult::Created));
    QVERIFY(!d.uid().isEmpty()); // the object as created
    QCOMPARE(client.get(Deployments, QStringLiteral("default"), QStringLiteral("foo"))
                 ->labels()
                 .value(QStringLiteral("app")),
        QStringLiteral("foo"));
    // "updates existing object": another mutation.
    Object again = deployment(QString());
    r = qcm::controllerutil::createOrUpdate(
        client, Deployments, again, [](Object &o) -> std::optional<Error> {
            o.json().insert(QStringLiteral("spec"), QJsonObject {{QStringLiteral("replicas"), 5}});
            return std::nullopt;
        });
    QCOMPARE(toString(r.result), toString(OperationResult::Updated));
    QCOMPARE(client.get(Deployments, QStringLiteral("default"), QStringLiteral("foo"))
                 ->json()
                 .value(QStringLiteral("spec"))
                 .toObject()
                 .value(QStringLiteral("replicas"))
                 .toInt(),
        5);
    QCOMPARE(again.json()
                 .value(QStringLiteral("spec"))
                 .toObject()
                 .value(QStringLiteral("replicas"))
                 .toInt(),
        5);
    // "updates only changed objects": the same mutation again is unchanged, and writes nothing.
    const QString version = again.resourceVersion();
    Object same = deployment(QString());
    r = qcm::controllerutil::createOrUpdate(
        client, Deployments, same, [](Object &o) -> std::optional<Error> {
            o.json().insert(QStringLiteral("spec"), QJsonObject {{QStringLiteral("replicas"), 5}});
            return std::nullopt;
        });
    QCOMPARE(toString(r.result), toString(OperationResult::None));
    QCOMPARE(toString(r.result), QStringLiteral("unchanged"));
    QCOMPARE(client.get(Deployments, QStringLiteral("default"), QStringLiteral("foo"))
                 ->resourceVersion(),
        version);
}

void tst_ControllerUtil::createOrUpdateErrors()
{
    testing::FakeClient client;
    // "errors when MutateFn changes object name on creation"
    Object d = deployment(QString());
    OperationOutcome r = qcm::controllerutil::createOrUpdate(
        client, Deployments, d, [](Object &o) -> std::optional<Error> {
            o.setName(QStringLiteral("renamed"));
            return std::nullopt;
        });
    QVERIFY(!r.ok() && r.error);
    QCOMPARE(r.error->reason,
        QStringLiteral("MutateFn cannot mutate object name and/or object namespace"));
    QVERIFY(client.get(Deployments, QStringLiteral("default"), QStringLiteral("foo"))
                .error()
                .isNotFound());
    // "errors when MutateFn renames an object": on update too.
    QVERIFY(client.create(Deployments, deployment(QString())));
    Object existing = deployment(QString());
    r = qcm::controllerutil::createOrUpdate(
        client, Deployments, existing, [](Object &o) -> std::optional<Error> {
            o.setNamespaceName(QStringLiteral("elsewhere"));
            return std::nullopt;
        });
    QVERIFY(r.error);
    // "propagates errors from MutateFn": nothing is written.
    Object other = object(QStringLiteral("apps/v1"), QStringLiteral("Deployment"),
        QStringLiteral("default"), QStringLiteral("other"));
    r = qcm::controllerutil::createOrUpdate(
        client, Deployments, other, [](Object &) -> std::optional<Error> {
            return Error {{}, {}, QStringLiteral("mutate failed")};
        });
    QCOMPARE(r.error->reason, QStringLiteral("mutate failed"));
    QCOMPARE(toString(r.result), toString(OperationResult::None));
    QVERIFY(client.get(Deployments, QStringLiteral("default"), QStringLiteral("other"))
                .error()
                .isNotFound());
    // The server's refusal comes back as its Status: a create with an invalid name.
    Object unnamed = object(QStringLiteral("apps/v1"), QStringLiteral("Deployment"),
        QStringLiteral("default"), QString());
    r = qcm::controllerutil::createOrUpdate(
        client, Deployments, unnamed, [](Object &) { return std::optional<Error>(); });
    QVERIFY(r.status && r.status->isInvalid());
}

void tst_ControllerUtil::createOrPatchReports()
{
    testing::FakeClient client;
    auto setSpec = [](int replicas) {
        return [replicas](Object &o) -> std::optional<Error> {
            o.json().insert(
                QStringLiteral("spec"), QJsonObject {{QStringLiteral("replicas"), replicas}});
            return std::nullopt;
        };
    };
    auto setStatus = [](int ready) {
        return [ready](Object &o) -> std::optional<Error> {
            o.json().insert(
                QStringLiteral("status"), QJsonObject {{QStringLiteral("readyReplicas"), ready}});
            return std::nullopt;
        };
    };
    Object d = deployment(QString());
    QCOMPARE(
        toString(qcm::controllerutil::createOrPatch(client, Deployments, d, setSpec(1)).result),
        toString(OperationResult::Created));
    d = deployment(QString());
    QCOMPARE(
        toString(qcm::controllerutil::createOrPatch(client, Deployments, d, setSpec(1)).result),
        toString(OperationResult::None));
    d = deployment(QString());
    QCOMPARE(
        toString(qcm::controllerutil::createOrPatch(client, Deployments, d, setSpec(2)).result),
        toString(OperationResult::Updated));
    d = deployment(QString());
    QCOMPARE(
        toString(qcm::controllerutil::createOrPatch(client, Deployments, d, setStatus(1)).result),
        toString(OperationResult::UpdatedStatusOnly));
    d = deployment(QString());
    auto both = [&](Object &o) {
        setSpec(4)(o);
        return setStatus(3)(o);
    };
    QCOMPARE(toString(qcm::controllerutil::createOrPatch(client, Deployments, d, both).result),
        toString(OperationResult::UpdatedStatus));
    const Object stored
        = *client.get(Deployments, QStringLiteral("default"), QStringLiteral("foo"));
    QCOMPARE(stored.json()
                 .value(QStringLiteral("spec"))
                 .toObject()
                 .value(QStringLiteral("replicas"))
                 .toInt(),
        4);
    QCOMPARE(stored.json()
                 .value(QStringLiteral("status"))
                 .toObject()
                 .value(QStringLiteral("readyReplicas"))
                 .toInt(),
        3);
    QCOMPARE(d.json(), stored.json()); // `object` ends as the server has it
    // A patch removes what mutate removed.
    d = deployment(QString());
    const auto removed = qcm::controllerutil::createOrPatch(
        client, Deployments, d, [](Object &o) -> std::optional<Error> {
            o.json().remove(QStringLiteral("spec"));
            return std::nullopt;
        });
    QCOMPARE(toString(removed.result), toString(OperationResult::Updated));
    QVERIFY(!client.get(Deployments, QStringLiteral("default"), QStringLiteral("foo"))
                 ->json()
                 .contains(QStringLiteral("spec")));
}

QTEST_APPLESS_MAIN(tst_ControllerUtil)
#include "tst_controllerutil.moc"
