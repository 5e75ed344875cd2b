// SPDX-License-Identifier: Apache-2.0
// finalizer::Finalizers, with controller-runtime's finalizer_test.go cases: registering a key
// twice fails; a live object gets its finalizers; on deletion each step runs and its finalizer
// goes, a failing step keeps its own and reports its error, and an object without the
// finalizer runs no step. Then end to end on the fake client: the object is deleted once the
// updated object drops the last finalizer.
#include <qcm/controllerutil/controllerutil.h>
#include <qcm/finalizer/finalizers.h>
#include <qcm/testing/fakeclient.h>

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::finalizer;
using client::Object;

namespace {

Object pod(bool deleting, const QStringList &finalizers)
{
    Object o(QJsonObject {{QStringLiteral("apiVersion"), QStringLiteral("v1")},
        {QStringLiteral("kind"), QStringLiteral("ConfigMap")}});
    o.setNamespaceName(QStringLiteral("ns"));
    o.setName(QStringLiteral("p"));
    if (!finalizers.isEmpty())
        o.setFinalizers(finalizers);
    if (deleting) {
        QJsonObject meta = o.json().value(QStringLiteral("metadata")).toObject();
        meta.insert(QStringLiteral("deletionTimestamp"), QStringLiteral("2026-11-26T10:00:00Z"));
        o.json().insert(QStringLiteral("metadata"), meta);
    }
    return o;
}

} // namespace

class tst_Finalizers : public QObject
{
    Q_OBJECT

private slots:
    void registerTwiceFails();
    void addsToALiveObject();
    void runsAndRemovesOnDeletion();
    void failingStepKeepsItsFinalizer();
    void nothingToDoWithoutTheFinalizer();
    void endToEndOnTheFakeClient();
};

void tst_Finalizers::registerTwiceFails()
{
    Finalizers f;
    QVERIFY(!f.registerFinalizer(
        QStringLiteral("a"), [](Object &) { return Result<StepResult>(StepResult {}); }));
    const auto error = f.registerFinalizer(
        QStringLiteral("a"), [](Object &) { return Result<StepResult>(StepResult {}); });
    QVERIFY(error);
    QCOMPARE(error->reason, QStringLiteral("finalizer for key \"a\" already registered"));
}

void tst_Finalizers::addsToALiveObject()
{
    Finalizers f;
    int runs = 0;
    QVERIFY(!f.registerFinalizer(QStringLiteral("example.com/a"), [&](Object &) {
        ++runs;
        return Result<StepResult>(StepResult {});
    }));
    Object o = pod(false, {});
    const Outcome out = f.finalize(o);
    QVERIFY(out.updated);
    QCOMPARE(o.finalizers(), QStringList {QStringLiteral("example.com/a")});
    QCOMPARE(runs, 0);
    QVERIFY(!f.finalize(o).updated); // already there
}

void tst_Finalizers::runsAndRemovesOnDeletion()
{
    Finalizers f;
    QStringList ran;
    QVERIFY(!f.registerFinalizer(QStringLiteral("a"), [&](Object &) {
        ran << QStringLiteral("a");
        return Result<StepResult>(StepResult {false, true});
    }));
    QVERIFY(!f.registerFinalizer(QStringLiteral("b"), [&](Object &) {
        ran << QStringLiteral("b");
        return Result<StepResult>(StepResult {});
    }));
    Object o
        = pod(true, {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("someone-else")});
    const Outcome out = f.finalize(o);
    QVERIFY(out.updated);
    QVERIFY(out.statusUpdated);
    QVERIFY(out.errors.isEmpty());
    QCOMPARE(ran, (QStringList {QStringLiteral("a"), QStringLiteral("b")}));
    QCOMPARE(o.finalizers(), QStringList {QStringLiteral("someone-else")});
}

void tst_Finalizers::failingStepKeepsItsFinalizer()
{
    Finalizers f;
    QVERIFY(!f.registerFinalizer(QStringLiteral("fails"), [](Object &) {
        return Result<StepResult>(Error {{}, {}, QStringLiteral("cleanup failed")});
    }));
    QVERIFY(!f.registerFinalizer(
        QStringLiteral("works"), [](Object &) { return Result<StepResult>(StepResult {}); }));
    Object o = pod(true, {QStringLiteral("fails"), QStringLiteral("works")});
    const Outcome out = f.finalize(o);
    QCOMPARE(out.errors.size(), 1);
    QCOMPARE(out.errors.first().toString(), QStringLiteral("fails: cleanup failed"));
    QVERIFY(out.updated);
    QCOMPARE(o.finalizers(), QStringList {QStringLiteral("fails")});
}

void tst_Finalizers::nothingToDoWithoutTheFinalizer()
{
    Finalizers f;
    int runs = 0;
    QVERIFY(!f.registerFinalizer(QStringLiteral("a"), [&](Object &) {
        ++runs;
        return Result<StepResult>(StepResult {});
    }));
    Object o = pod(true, {});
    const Outcome out = f.finalize(o);
    QVERIFY(!out.updated);
    QCOMPARE(runs, 0);
}

void tst_Finalizers::endToEndOnTheFakeClient()
{
    const client::GroupVersionResource cms {
        QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};
    testing::FakeClient client;
    Finalizers f;
    bool cleaned = false;
    QVERIFY(!f.registerFinalizer(QStringLiteral("example.com/cleanup"), [&](Object &) {
        cleaned = true;
        return Result<StepResult>(StepResult {});
    }));
    // A reconcile of the live object adds the finalizer...
    auto created = client.create(cms, pod(false, {}));
    QVERIFY(created);
    Object live = *created;
    QVERIFY(f.finalize(live).updated);
    QVERIFY(client.update(cms, live));
    // ...a delete only marks it...
    QVERIFY(client.remove(cms, QStringLiteral("ns"), QStringLiteral("p")));
    Object deleting = *client.get(cms, QStringLiteral("ns"), QStringLiteral("p"));
    QVERIFY(deleting.deletionTimestamp());
    // ...and the reconcile that runs the step and writes the object without it lets it go.
    QVERIFY(f.finalize(deleting).updated);
    QVERIFY(cleaned);
    QVERIFY(client.update(cms, deleting));
    const auto gone = client.get(cms, QStringLiteral("ns"), QStringLiteral("p"));
    QVERIFY(!gone && gone.error().isNotFound());
}

QTEST_APPLESS_MAIN(tst_Finalizers)
#include "tst_finalizers.moc"
