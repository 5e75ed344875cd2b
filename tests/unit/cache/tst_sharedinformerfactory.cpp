// SPDX-License-Identifier: Apache-2.0
// SharedInformerFactory: one informer per key, started together or at once when late.
#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/fakeclock.h>

#include <QtTest/QtTest>

#include "fakelisterwatcher.h"

using namespace qcm::cache;
using namespace qcm::cache::testing;
using namespace std::chrono_literals;

class tst_SharedInformerFactory : public QObject
{
    Q_OBJECT

private slots:
    void oneInformerPerKey();
    void startAndLateInformers();
};

namespace {
const GroupVersionResource ConfigMaps {
    QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};
const GroupVersionResource Secrets {QString(), QStringLiteral("v1"), QStringLiteral("secrets")};
} // namespace

void tst_SharedInformerFactory::oneInformerPerKey()
{
    qcm::FakeClock clock;
    int made = 0;
    SharedInformerFactory factory(
        [&](const GroupVersionResource &, const SharedInformerFactory::InformerOptions &) {
            ++made;
            return std::make_unique<FakeListerWatcher>();
        },
        {}, &clock);
    SharedIndexInformer *a = factory.informerFor(ConfigMaps);
    QCOMPARE(factory.informerFor(ConfigMaps), a); // shared
    QVERIFY(factory.informerFor(ConfigMaps, {QStringLiteral("ns"), {}, {}}) != a);
    QVERIFY(factory.informerFor(ConfigMaps, {{}, QStringLiteral("app=x"), {}}) != a);
    QVERIFY(factory.informerFor(ConfigMaps, {{}, {}, QStringLiteral("metadata.name=y")}) != a);
    QVERIFY(factory.informerFor(Secrets) != a);
    SharedInformerFactory::InformerOptions metadataOnly;
    metadataOnly.metadataOnly = true;
    QVERIFY(factory.informerFor(ConfigMaps, metadataOnly) != a);
    QCOMPARE(made, 6);
    QVERIFY(!a->isStarted());
}

void tst_SharedInformerFactory::startAndLateInformers()
{
    qcm::FakeClock clock;
    SharedInformerFactory factory(
        [](const GroupVersionResource &, const SharedInformerFactory::InformerOptions &) {
            return std::make_unique<FakeListerWatcher>();
        },
        {}, &clock);
    SharedIndexInformer *early = factory.informerFor(ConfigMaps);
    factory.start();
    QVERIFY(early->isStarted());
    SharedIndexInformer *late = factory.informerFor(Secrets);
    QVERIFY(late->isStarted()); // requested after start(): started at once
    QVERIFY(factory.waitForCacheSync(10s));
    QVERIFY(early->hasSynced() && late->hasSynced());
    factory.shutdown();
}

QTEST_GUILESS_MAIN(tst_SharedInformerFactory)
#include "tst_sharedinformerfactory.moc"
