// SPDX-License-Identifier: Apache-2.0
// The client conformance suite: what a client::Client does, as the API server does it. It runs
// on testing::FakeClient (tests/unit/testing/tst_fakeclient.cpp) and on a DirectClient against
// the real kube-apiserver (tests/e2e/client/tst_clientsuite.cpp), so the fake's semantics are
// the server's wherever this suite looks. A derived test gives the client, a namespace that
// exists, and the suite's Gizmo CRD (gizmo-crd.yaml: a status subresource) installed.
#pragma once

#include <qcm/client/client.h>
#include <qcm/client/patch.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtTest/QtTest>

namespace qcm::testing {

class ClientSuite : public QObject
{
    Q_OBJECT

protected:
    virtual client::Client &client() = 0;
    virtual QString ns() const = 0;

    const client::GroupVersionResource configMaps {
        QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};
    const client::GroupVersionResource gizmos {QStringLiteral("clientsuite.qcm.dev"),
        QStringLiteral("v1alpha1"), QStringLiteral("gizmos")};

    client::Object configMap(const QString &name, const QJsonObject &data = {},
        const QMap<QString, QString> &labels = {}) const
    {
        client::Object o(QJsonObject {{QStringLiteral("apiVersion"), QStringLiteral("v1")},
            {QStringLiteral("kind"), QStringLiteral("ConfigMap")}, {QStringLiteral("data"), data}});
        o.setNamespaceName(ns());
        o.setName(name);
        if (!labels.isEmpty())
            o.setLabels(labels);
        return o;
    }
    client::Object gizmo(const QString &name, int replicas) const
    {
        client::Object o(QJsonObject {
            {QStringLiteral("apiVersion"), QStringLiteral("clientsuite.qcm.dev/v1alpha1")},
            {QStringLiteral("kind"), QStringLiteral("Gizmo")},
            {QStringLiteral("spec"),
                QJsonObject {{QStringLiteral("deploymentName"), name},
                    {QStringLiteral("replicas"), replicas}}},
            {QStringLiteral("status"), QJsonObject {{QStringLiteral("availableReplicas"), 7}}}});
        o.setNamespaceName(ns());
        o.setName(name);
        return o;
    }
    static QString errorOf(const client::ObjectResult &r)
    {
        return r.ok() ? QStringLiteral("ok") : r.error().toString();
    }

private slots:
    void suite_createStampsIdentityAndVersion()
    {
        auto created = client().create(configMaps,
            configMap(QStringLiteral("s-create"), {{QStringLiteral("k"), QStringLiteral("v")}}));
        QVERIFY2(created, qPrintable(errorOf(created)));
        QVERIFY(!created->uid().isEmpty());
        QVERIFY(!created->resourceVersion().isEmpty());
        QVERIFY(created->creationTimestamp().isValid());
        auto got = client().get(configMaps, ns(), QStringLiteral("s-create"));
        QVERIFY(got);
        QCOMPARE(got->uid(), created->uid());
        QCOMPARE(got->resourceVersion(), created->resourceVersion());
        QCOMPARE(got->json().value(QStringLiteral("data")),
            created->json().value(QStringLiteral("data")));
    }

    void suite_alreadyExistsAndNotFound()
    {
        QVERIFY(client().create(configMaps, configMap(QStringLiteral("s-twice"))));
        auto again = client().create(configMaps, configMap(QStringLiteral("s-twice")));
        QVERIFY(!again && again.error().isAlreadyExists());
        QCOMPARE(again.error().message, QStringLiteral("configmaps \"s-twice\" already exists"));
        auto missing = client().get(configMaps, ns(), QStringLiteral("s-missing"));
        QVERIFY(!missing && missing.error().isNotFound());
        QCOMPARE(missing.error().message, QStringLiteral("configmaps \"s-missing\" not found"));
        QVERIFY(client()
                    .update(configMaps, configMap(QStringLiteral("s-missing")))
                    .error()
                    .isNotFound());
        QVERIFY(
            client().remove(configMaps, ns(), QStringLiteral("s-missing")).error().isNotFound());
        QVERIFY(client()
                    .patch(configMaps, ns(), QStringLiteral("s-missing"), client::PatchType::Merge,
                        "{}")
                    .error()
                    .isNotFound());
        auto noName = client().create(configMaps, configMap(QString()));
        QVERIFY(!noName && noName.error().isInvalid());
    }

    void suite_staleResourceVersionConflicts()
    {
        auto created = client().create(configMaps, configMap(QStringLiteral("s-conflict")));
        QVERIFY(created);
        client::Object first = *created;
        first.json().insert(
            QStringLiteral("data"), QJsonObject {{QStringLiteral("a"), QStringLiteral("1")}});
        auto updated = client().update(configMaps, first);
        QVERIFY2(updated, qPrintable(errorOf(updated)));
        QVERIFY(updated->resourceVersion() != created->resourceVersion());
        client::Object stale = *created; // still at the first version
        stale.json().insert(
            QStringLiteral("data"), QJsonObject {{QStringLiteral("a"), QStringLiteral("2")}});
        auto conflict = client().update(configMaps, stale);
        QVERIFY(!conflict && conflict.error().isConflict());
        QVERIFY(conflict.error().message.contains(QStringLiteral("the object has been modified")));
        // An update that changes nothing writes nothing: the version stays.
        auto same = client().update(configMaps, *updated);
        QVERIFY(same);
        QCOMPARE(same->resourceVersion(), updated->resourceVersion());
    }

    void suite_generateName()
    {
        client::Object o = configMap(QString());
        o.json()[QStringLiteral("metadata")] = QJsonObject {{QStringLiteral("namespace"), ns()},
            {QStringLiteral("generateName"), QStringLiteral("gen-")}};
        auto a = client().create(configMaps, o);
        auto b = client().create(configMaps, o);
        QVERIFY2(a && b, qPrintable(errorOf(a) + errorOf(b)));
        QVERIFY(a->name().startsWith(QStringLiteral("gen-")) && a->name().size() == 9);
        QVERIFY(a->name() != b->name());
    }

    void suite_statusSubresource()
    {
        auto created = client().create(gizmos, gizmo(QStringLiteral("s-status"), 1));
        QVERIFY2(created, qPrintable(errorOf(created)));
        QVERIFY(!created->json().contains(QStringLiteral("status"))); // status is not created
        QCOMPARE(created->generation(), 1);
        // update: spec changes, status does not; generation counts the spec change.
        client::Object o = *created;
        o.json().insert(QStringLiteral("spec"),
            QJsonObject {{QStringLiteral("deploymentName"), QStringLiteral("x")},
                {QStringLiteral("replicas"), 2}});
        o.json().insert(
            QStringLiteral("status"), QJsonObject {{QStringLiteral("availableReplicas"), 5}});
        auto updated = client().update(gizmos, o);
        QVERIFY2(updated, qPrintable(errorOf(updated)));
        QCOMPARE(updated->json()
                     .value(QStringLiteral("spec"))
                     .toObject()
                     .value(QStringLiteral("replicas"))
                     .toInt(),
            2);
        QVERIFY(!updated->json().contains(QStringLiteral("status")));
        QCOMPARE(updated->generation(), 2);
        // updateStatus: status changes, spec does not; generation stays.
        client::Object s = *updated;
        s.json().insert(
            QStringLiteral("status"), QJsonObject {{QStringLiteral("availableReplicas"), 3}});
        s.json().insert(QStringLiteral("spec"),
            QJsonObject {{QStringLiteral("deploymentName"), QStringLiteral("y")},
                {QStringLiteral("replicas"), 9}});
        auto status = client().updateStatus(gizmos, s);
        QVERIFY2(status, qPrintable(errorOf(status)));
        QCOMPARE(status->json()
                     .value(QStringLiteral("status"))
                     .toObject()
                     .value(QStringLiteral("availableReplicas"))
                     .toInt(),
            3);
        QCOMPARE(status->json()
                     .value(QStringLiteral("spec"))
                     .toObject()
                     .value(QStringLiteral("replicas"))
                     .toInt(),
            2);
        QCOMPARE(status->generation(), 2);
        // A stale status update conflicts too.
        QVERIFY(client().updateStatus(gizmos, s).error().isConflict());
        // ConfigMaps have no status subresource.
        auto cm = client().create(configMaps, configMap(QStringLiteral("s-nostatus")));
        QVERIFY(cm);
        QVERIFY(client().updateStatus(configMaps, *cm).error().isNotFound());
    }

    void suite_mergePatch()
    {
        QVERIFY(client().create(configMaps,
            configMap(QStringLiteral("s-merge"),
                {{QStringLiteral("a"), QStringLiteral("1")},
                    {QStringLiteral("b"), QStringLiteral("2")}})));
        auto patched
            = client().patch(configMaps, ns(), QStringLiteral("s-merge"), client::PatchType::Merge,
                R"({"data":{"a":null,"c":"3"},"metadata":{"labels":{"l":"x"}}})");
        QVERIFY2(patched, qPrintable(errorOf(patched)));
        QCOMPARE(patched->json().value(QStringLiteral("data")).toObject(),
            (QJsonObject {{QStringLiteral("b"), QStringLiteral("2")},
                {QStringLiteral("c"), QStringLiteral("3")}}));
        QCOMPARE(patched->labels().value(QStringLiteral("l")), QStringLiteral("x"));
        // A merge patch computed from two objects (controller-runtime's MergeFrom).
        client::Object changed = *patched;
        changed.json().insert(
            QStringLiteral("data"), QJsonObject {{QStringLiteral("b"), QStringLiteral("22")}});
        const QJsonObject diff = client::createMergePatch(patched->json(), changed.json());
        auto again = client().patch(configMaps, ns(), QStringLiteral("s-merge"),
            client::PatchType::Merge, QJsonDocument(diff).toJson());
        QVERIFY2(again, qPrintable(errorOf(again)));
        QCOMPARE(again->json().value(QStringLiteral("data")).toObject(),
            (QJsonObject {{QStringLiteral("b"), QStringLiteral("22")}}));
        // With a stale resourceVersion in it, a merge patch conflicts.
        auto stale
            = client().patch(configMaps, ns(), QStringLiteral("s-merge"), client::PatchType::Merge,
                QStringLiteral(R"({"metadata":{"resourceVersion":"%1"},"data":{"z":"1"}})")
                    .arg(patched->resourceVersion())
                    .toUtf8());
        QVERIFY(!stale && stale.error().isConflict());
    }

    void suite_jsonPatch()
    {
        QVERIFY(client().create(configMaps,
            configMap(QStringLiteral("s-json"), {{QStringLiteral("a"), QStringLiteral("1")}})));
        auto patched = client().patch(configMaps, ns(), QStringLiteral("s-json"),
            client::PatchType::Json,
            R"([{"op":"test","path":"/data/a","value":"1"},{"op":"add","path":"/data/b","value":"2"},{"op":"replace","path":"/data/a","value":"9"}])");
        QVERIFY2(patched, qPrintable(errorOf(patched)));
        QCOMPARE(patched->json().value(QStringLiteral("data")).toObject(),
            (QJsonObject {{QStringLiteral("a"), QStringLiteral("9")},
                {QStringLiteral("b"), QStringLiteral("2")}}));
        auto failed
            = client().patch(configMaps, ns(), QStringLiteral("s-json"), client::PatchType::Json,
                R"([{"op":"test","path":"/data/a","value":"1"},{"op":"remove","path":"/data/a"}])");
        QVERIFY(!failed);
        QCOMPARE(failed.error().code, 422);
        QVERIFY(client()
                    .get(configMaps, ns(), QStringLiteral("s-json"))
                    ->json()
                    .value(QStringLiteral("data"))
                    .toObject()
                    .contains(QStringLiteral("a")));
    }

    void suite_serverSideApply()
    {
        client::PatchOptions options;
        options.fieldManager = QStringLiteral("suite");
        auto applied = client().apply(configMaps,
            configMap(QStringLiteral("s-apply"), {{QStringLiteral("a"), QStringLiteral("1")}}),
            options);
        QVERIFY2(applied, qPrintable(errorOf(applied)));
        QCOMPARE(applied->json()
                     .value(QStringLiteral("data"))
                     .toObject()
                     .value(QStringLiteral("a"))
                     .toString(),
            QStringLiteral("1"));
        auto again = client().apply(configMaps,
            configMap(QStringLiteral("s-apply"), {{QStringLiteral("a"), QStringLiteral("2")}}),
            options);
        QVERIFY2(again, qPrintable(errorOf(again)));
        QCOMPARE(again->json()
                     .value(QStringLiteral("data"))
                     .toObject()
                     .value(QStringLiteral("a"))
                     .toString(),
            QStringLiteral("2"));
        QCOMPARE(again->uid(), applied->uid());
        QVERIFY(!client().apply(configMaps, configMap(QStringLiteral("s-apply")), {}));
    }

    void suite_finalizersHoldDeletion()
    {
        client::Object o = configMap(QStringLiteral("s-final"));
        o.setFinalizers({QStringLiteral("example.com/hold")});
        QVERIFY(client().create(configMaps, o));
        auto removed = client().remove(configMaps, ns(), QStringLiteral("s-final"));
        QVERIFY2(removed, qPrintable(errorOf(removed)));
        auto held = client().get(configMaps, ns(), QStringLiteral("s-final"));
        QVERIFY2(held, qPrintable(errorOf(held)));
        QVERIFY(held->deletionTimestamp().has_value());
        client::Object release = *held;
        release.setFinalizers({});
        auto released = client().update(configMaps, release);
        QVERIFY2(released, qPrintable(errorOf(released)));
        QVERIFY(client().get(configMaps, ns(), QStringLiteral("s-final")).error().isNotFound());
    }

    void suite_deletePreconditions()
    {
        auto created = client().create(configMaps, configMap(QStringLiteral("s-pre")));
        QVERIFY(created);
        client::DeleteOptions wrongUid;
        wrongUid.preconditionUid = QStringLiteral("00000000-0000-0000-0000-000000000000");
        QVERIFY(client()
                    .remove(configMaps, ns(), QStringLiteral("s-pre"), wrongUid)
                    .error()
                    .isConflict());
        client::DeleteOptions right;
        right.preconditionUid = created->uid();
        QVERIFY(client().remove(configMaps, ns(), QStringLiteral("s-pre"), right));
        QVERIFY(client().get(configMaps, ns(), QStringLiteral("s-pre")).error().isNotFound());
    }

    void suite_listSelects()
    {
        for (const char *name : {"s-list-a", "s-list-b", "s-list-c"})
            QVERIFY(client().create(configMaps,
                configMap(QLatin1String(name), {},
                    {{QStringLiteral("suite"), QStringLiteral("list")},
                        {QStringLiteral("tier"),
                            name[7] == 'c' ? QStringLiteral("back") : QStringLiteral("front")}})));
        client::ListOptions options;
        options.labelSelector = QStringLiteral("suite=list,tier=front");
        auto list = client().list(configMaps, ns(), options);
        QVERIFY2(list, qPrintable(list.ok() ? QString() : list.error().toString()));
        QStringList names;
        for (const client::Object &o : list->items)
            names << o.name();
        QCOMPARE(names, (QStringList {QStringLiteral("s-list-a"), QStringLiteral("s-list-b")}));
        QVERIFY(!list->resourceVersion.isEmpty());
        options.labelSelector = QStringLiteral("suite=list");
        options.fieldSelector = QStringLiteral("metadata.name=s-list-c");
        QCOMPARE(client().list(configMaps, ns(), options)->items.size(), 1);
    }
};

} // namespace qcm::testing
