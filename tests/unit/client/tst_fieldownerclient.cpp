// SPDX-License-Identifier: Apache-2.0
// FieldOwnerClient (controller-runtime's client.WithFieldOwner) over the fake client: every
// write carries the owner unless the call names a manager of its own, reads and deletes pass
// through, and controllerutil::createOrUpdate through it writes as the owner.
#include <qcm/api/core/v1.h>
#include <qcm/client/fieldownerclient.h>
#include <qcm/controllerutil/controllerutil.h>
#include <qcm/testing/fakeclient.h>

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::client;
using qcm::api::core::v1::ConfigMap;

namespace {
const GroupVersionResource ConfigMaps = ConfigMap::groupVersionResource();

Object configMap(const QString &name)
{
    return ConfigMap::build()
        .name(name)
        .namespaceName(QStringLiteral("default"))
        .data({{QStringLiteral("k"), QStringLiteral("v")}})
        .object();
}
} // namespace

class tst_FieldOwnerClient : public QObject
{
    Q_OBJECT

private slots:
    void writesCarryTheOwner()
    {
        testing::FakeClient fake;
        FieldOwnerClient client(fake, QStringLiteral("my-controller"));
        const ObjectResult created = client.create(ConfigMaps, configMap(QStringLiteral("a")));
        QVERIFY(created);
        const ObjectResult updated = client.update(ConfigMaps, *created);
        QVERIFY(updated);
        // Recorded whatever the tracker answers (a ConfigMap has no status subresource).
        client.updateStatus(ConfigMaps, *updated);
        QVERIFY(client.patch(ConfigMaps, QStringLiteral("default"), QStringLiteral("a"),
            PatchType::Merge, R"({"data":{"k":"w"}})"));
        QVERIFY(client.apply(ConfigMaps, configMap(QStringLiteral("b")), {}));
        QVERIFY(client.get(ConfigMaps, QStringLiteral("default"), QStringLiteral("a")));
        QVERIFY(client.list(ConfigMaps, QStringLiteral("default")));
        QVERIFY(client.remove(ConfigMaps, QStringLiteral("default"), QStringLiteral("a")));

        const QList<testing::Action> actions = fake.actions();
        QCOMPARE(fake.actionStrings(),
            QStringList({QStringLiteral("create configmaps default/a"),
                QStringLiteral("update configmaps default/a"),
                QStringLiteral("update configmaps/status default/a"),
                QStringLiteral("patch configmaps default/a"),
                QStringLiteral("patch configmaps default/b"),
                QStringLiteral("get configmaps default/a"),
                QStringLiteral("list configmaps default/"),
                QStringLiteral("delete configmaps default/a")}));
        for (int i : {0, 1, 2})
            QCOMPARE(actions[i].writeOptions.fieldManager, QStringLiteral("my-controller"));
        QCOMPARE(actions[3].patchOptions.fieldManager, QStringLiteral("my-controller"));
        // Server-side apply needs a manager: the owner is it.
        QCOMPARE(actions[4].patchType, PatchType::Apply);
        QCOMPARE(actions[4].patchOptions.fieldManager, QStringLiteral("my-controller"));
    }

    void aManagerNamedByTheCallWins()
    {
        testing::FakeClient fake;
        FieldOwnerClient client(fake, QStringLiteral("my-controller"));
        WriteOptions write;
        write.fieldManager = QStringLiteral("someone-else");
        QVERIFY(client.create(ConfigMaps, configMap(QStringLiteral("a")), write));
        PatchOptions patch;
        patch.fieldManager = QStringLiteral("kubectl");
        patch.force = true;
        QVERIFY(client.apply(ConfigMaps, configMap(QStringLiteral("a")), patch));
        QCOMPARE(fake.actions().at(0).writeOptions.fieldManager, QStringLiteral("someone-else"));
        QCOMPARE(fake.actions().at(1).patchOptions.fieldManager, QStringLiteral("kubectl"));
        QVERIFY(fake.actions().at(1).patchOptions.force);
    }

    void createOrUpdateWritesAsTheOwner()
    {
        testing::FakeClient fake;
        FieldOwnerClient client(fake, QStringLiteral("my-controller"));
        Object wanted = ConfigMap::build()
                            .name(QStringLiteral("c"))
                            .namespaceName(QStringLiteral("default"))
                            .object();
        auto mutate = [](Object &cm) -> std::optional<Error> {
            cm.json().insert(
                QStringLiteral("data"), QJsonObject {{QStringLiteral("k"), QStringLiteral("v")}});
            return std::nullopt;
        };
        QCOMPARE(
            toString(controllerutil::createOrUpdate(client, ConfigMaps, wanted, mutate).result),
            QStringLiteral("created"));
        const QList<testing::Action> actions = fake.actions();
        QCOMPARE(actions.last().verb, QStringLiteral("create"));
        QCOMPARE(actions.last().writeOptions.fieldManager, QStringLiteral("my-controller"));
    }
};

QTEST_MAIN(tst_FieldOwnerClient)
#include "tst_fieldownerclient.moc"
