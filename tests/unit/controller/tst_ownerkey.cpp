// SPDX-License-Identifier: Apache-2.0
// controllerOwnerKey: the key of an object's controller owner, as sample-controller's
// handleObject finds it.
#include <qcm/ownerkey.h>

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::client;

class tst_OwnerKey : public QObject
{
    Q_OBJECT

private slots:
    void keys_data();
    void keys();
};

namespace {

OwnerReference ref(const char *apiVersion, const char *kind, const char *name, bool controller)
{
    OwnerReference r;
    r.apiVersion = QLatin1String(apiVersion);
    r.kind = QLatin1String(kind);
    r.name = QLatin1String(name);
    r.uid = QStringLiteral("uid");
    r.controller = controller;
    return r;
}

} // namespace

Q_DECLARE_METATYPE(qcm::OwnerScope)

void tst_OwnerKey::keys_data()
{
    QTest::addColumn<QString>("objectNamespace");
    QTest::addColumn<QList<OwnerReference>>("owners");
    QTest::addColumn<QString>("group");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<OwnerScope>("scope");
    QTest::addColumn<QString>("key"); // empty: none
    const QString apps = QStringLiteral("apps");
    const QString rs = QStringLiteral("ReplicaSet");
    const auto ns = OwnerScope::Namespaced;
    QTest::newRow("controller") << "web"
                                << QList<OwnerReference> {ref(
                                       "apps/v1", "ReplicaSet", "rs-1", true)}
                                << apps << rs << ns << "web/rs-1";
    QTest::newRow("not the controller")
        << "web" << QList<OwnerReference> {ref("apps/v1", "ReplicaSet", "rs-1", false)} << apps
        << rs << ns << QString();
    QTest::newRow("the controller among others")
        << "web"
        << QList<OwnerReference> {ref("v1", "ConfigMap", "c", false),
               ref("apps/v1beta2", "ReplicaSet", "rs-2", true)}
        << apps << rs << ns << "web/rs-2";
    QTest::newRow("other kind") << "web"
                                << QList<OwnerReference> {ref("apps/v1", "Deployment", "d", true)}
                                << apps << rs << ns << QString();
    QTest::newRow("other group") << "web"
                                 << QList<OwnerReference> {ref(
                                        "example.com/v1", "ReplicaSet", "x", true)}
                                 << apps << rs << ns << QString();
    QTest::newRow("core group") << "web"
                                << QList<OwnerReference> {ref(
                                       "v1", "ReplicationController", "rc", true)}
                                << QString() << "ReplicationController" << ns << "web/rc";
    QTest::newRow("no owners") << "web" << QList<OwnerReference> {} << apps << rs << ns
                               << QString();
    QTest::newRow("cluster-scoped owner")
        << "web" << QList<OwnerReference> {ref("example.com/v1", "Tenant", "t", true)}
        << "example.com"
        << "Tenant" << OwnerScope::Cluster << "t";
    QTest::newRow("cluster-scoped dependent")
        << "" << QList<OwnerReference> {ref("example.com/v1", "Tenant", "t", true)} << "example.com"
        << "Tenant" << ns << "t";
}

void tst_OwnerKey::keys()
{
    QFETCH(QString, objectNamespace);
    QFETCH(QList<OwnerReference>, owners);
    QFETCH(QString, group);
    QFETCH(QString, kind);
    QFETCH(OwnerScope, scope);
    QFETCH(QString, key);
    Object o;
    o.setName(QStringLiteral("dependent"));
    o.setNamespaceName(objectNamespace);
    o.setOwnerReferences(owners);
    const std::optional<QString> got = controllerOwnerKey(o, group, kind, scope);
    QCOMPARE(got.value_or(QString()), key);
    QCOMPARE(got.has_value(), !key.isEmpty());
}

QTEST_APPLESS_MAIN(tst_OwnerKey)
#include "tst_ownerkey.moc"
