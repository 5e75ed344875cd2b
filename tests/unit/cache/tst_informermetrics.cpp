// SPDX-License-Identifier: Apache-2.0
// Informer metrics: client-go's InformerName identities (identity_test.go) and the metrics an
// informer with a reserved identity records (informer_queued_items,
// informer_processing_latency_seconds, informer_store_resource_version).
#include <qcm/cache/informermetrics.h>
#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/fakeclock.h>
#include <qcm/metrics/textserializer.h>

#include <QtTest/QtTest>

#include "fakelisterwatcher.h"

using namespace qcm::cache;
using namespace qcm::cache::testing;
using namespace std::chrono_literals;

namespace {

const GroupVersionResource ConfigMaps {
    QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};
const GroupVersionResource Deployments {
    QStringLiteral("apps"), QStringLiteral("v1"), QStringLiteral("deployments")};

QString exposition(const qcm::metrics::Registry &registry)
{
    return QString::fromUtf8(qcm::metrics::TextSerializer::serialize(registry.collect()));
}

// The value of the one sample line starting with `series`, or NaN.
double sample(const QString &text, const QString &series)
{
    for (const QString &line : text.split(QLatin1Char('\n')))
        if (line.startsWith(series + QLatin1Char(' ')))
            return line.mid(series.size() + 1).toDouble();
    return qQNaN();
}

} // namespace

class tst_InformerMetrics : public QObject
{
    Q_OBJECT

private slots:
    void names();
    void resources();
    void resourceVersionTruncation_data();
    void resourceVersionTruncation();
    void informerRecords_data();
    void informerRecords();
    void unnamedInformerRecordsNothing();
};

// NewInformerName: empty and duplicate names are errors; a released name can be reused.
void tst_InformerMetrics::names()
{
    QVERIFY(!InformerName::create(QString()));
    auto a = InformerName::create(QStringLiteral("kcm"));
    QVERIFY(a);
    QCOMPARE((*a)->name(), QStringLiteral("kcm"));
    auto again = InformerName::create(QStringLiteral("kcm"));
    QVERIFY(!again);
    QVERIFY2(again.error().reason.contains(QLatin1String("already registered")),
        qPrintable(again.error().reason));
    (*a)->release();
    auto reused = InformerName::create(QStringLiteral("kcm"));
    QVERIFY(reused);
    // Destroying a name frees it too.
    reused = InformerName::create(QStringLiteral("other"));
    QVERIFY(reused);
    QVERIFY(InformerName::create(QStringLiteral("kcm")));
}

// WithResource: the first registration of a resource is reserved, a duplicate is not, and
// release() turns every identity off.
void tst_InformerMetrics::resources()
{
    auto name = *InformerName::create(QStringLiteral("resources"));
    const InformerNameAndResource first = name->withResource(ConfigMaps);
    const InformerNameAndResource duplicate = name->withResource(ConfigMaps);
    const InformerNameAndResource other = name->withResource(Deployments);
    QVERIFY(first.reserved());
    QVERIFY(!duplicate.reserved());
    QVERIFY(other.reserved());
    QCOMPARE(first.name(), QStringLiteral("resources"));
    QCOMPARE(other.groupVersionResource(), Deployments);
    QVERIFY(!InformerNameAndResource().reserved());
    name->release();
    QVERIFY(!first.reserved());
    QVERIFY(!other.reserved());
    QVERIFY(!name->withResource(Deployments).reserved()); // released names reserve nothing
}

void tst_InformerMetrics::resourceVersionTruncation_data()
{
    QTest::addColumn<QString>("rv");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<double>("value");
    QTest::newRow("empty") << QString() << true << 0.0;
    QTest::newRow("small") << QStringLiteral("12345") << true << 12345.0;
    QTest::newRow("15 digits") << QStringLiteral("123456789012345") << true << 123456789012345.0;
    QTest::newRow("19 digits: the last 15")
        << QStringLiteral("1234567890123456789") << true << 567890123456789.0;
    QTest::newRow("not a number") << QStringLiteral("abc") << false << 0.0;
}

// parseRVForMetricsWithTruncation
void tst_InformerMetrics::resourceVersionTruncation()
{
    QFETCH(QString, rv);
    QFETCH(bool, valid);
    QFETCH(double, value);
    const std::optional<double> parsed = resourceVersionForMetrics(rv);
    QCOMPARE(parsed.has_value(), valid);
    if (valid)
        QCOMPARE(*parsed, value);
}

void tst_InformerMetrics::informerRecords_data()
{
    QTest::addColumn<bool>("deltaFifo");
    QTest::newRow("RealFifo") << false;
    QTest::newRow("DeltaFifo") << true;
}

// An informer with a reserved identity records its queue, its processing time and the store's
// resourceVersion under client-go's names; a second informer of the same resource under the
// same name records nothing.
void tst_InformerMetrics::informerRecords()
{
    QFETCH(bool, deltaFifo);
    qcm::metrics::Registry registry;
    PrometheusInformerMetricsProvider provider(registry);
    auto name = *InformerName::create(QStringLiteral("informer-test"));

    FakeListerWatcher lw;
    lw.lists.push_back(listOf({cm(QStringLiteral("a"), QStringLiteral("5")),
                                  cm(QStringLiteral("b"), QStringLiteral("7"))},
        QStringLiteral("9")));
    auto watch = lw.scriptWatch();
    qcm::FakeClock clock;
    SharedIndexInformer::Options options;
    options.clock = &clock;
    options.identifier = name->withResource(ConfigMaps);
    options.metricsProvider = &provider;
    if (deltaFifo)
        options.queue = SharedIndexInformer::Options::QueueKind::DeltaFifo;
    SharedIndexInformer informer(&lw, options);

    FakeListerWatcher lw2;
    SharedIndexInformer::Options duplicateOptions = options;
    duplicateOptions.identifier = name->withResource(ConfigMaps); // not reserved
    SharedIndexInformer duplicate(&lw2, duplicateOptions);

    informer.start();
    duplicate.start();
    QVERIFY(waitForCacheSync({&informer, &duplicate}, 10s));
    watch->push(
        watchEvent(WatchEvent::Type::Modified, cm(QStringLiteral("a"), QStringLiteral("12"))));
    QTRY_COMPARE(informer.indexer().getByKey(QStringLiteral("ns/a"))->resourceVersion(),
        QStringLiteral("12"));

    // Labels come out sorted by name.
    const QString labels = QStringLiteral(
        "{group=\"\",name=\"informer-test\",resource=\"configmaps\",version=\"v1\"}");
    QString text;
    // The gauge is written after the handler distribution; poll the exposition briefly.
    QTRY_COMPARE(sample(text = exposition(registry),
                     QStringLiteral("informer_store_resource_version") + labels),
        12.0);
    QCOMPARE(sample(text, QStringLiteral("informer_queued_items") + labels), 0.0);
    // RealFifo: one processed pop per delta (2 listed + 1 modified); DeltaFifo: one per key.
    QTRY_COMPARE(sample(text = exposition(registry),
                     QStringLiteral("informer_processing_latency_seconds_count") + labels),
        3.0);
    QVERIFY(text.contains(QLatin1String("# TYPE informer_processing_latency_seconds histogram")));
    QVERIFY(text.contains(
        QLatin1String("informer_processing_latency_seconds_bucket{group=\"\",name=\"informer-"
                      "test\",resource=\"configmaps\",version=\"v1\",le=\"0.001\"}")));
    // Only one series per metric: the duplicate informer wrote none.
    QCOMPARE(text.count(QLatin1String("informer_queued_items{")), 1);

    // After release() the informer stops writing.
    name->release();
    watch->push(
        watchEvent(WatchEvent::Type::Modified, cm(QStringLiteral("b"), QStringLiteral("20"))));
    QTRY_COMPARE(informer.indexer().getByKey(QStringLiteral("ns/b"))->resourceVersion(),
        QStringLiteral("20"));
    QTest::qWait(50);
    QCOMPARE(
        sample(exposition(registry), QStringLiteral("informer_store_resource_version") + labels),
        12.0);
    informer.stop();
    duplicate.stop();
}

// Without an identity nothing is recorded, even with a provider at hand.
void tst_InformerMetrics::unnamedInformerRecordsNothing()
{
    qcm::metrics::Registry registry;
    PrometheusInformerMetricsProvider provider(registry);
    FakeListerWatcher lw;
    lw.lists.push_back(listOf({cm(QStringLiteral("a"), QStringLiteral("5"))}, QStringLiteral("9")));
    qcm::FakeClock clock;
    SharedIndexInformer::Options options;
    options.clock = &clock;
    options.metricsProvider = &provider;
    SharedIndexInformer informer(&lw, options);
    informer.start();
    QVERIFY(waitForCacheSync({&informer}, 10s));
    const QString text = exposition(registry);
    QVERIFY2(!text.contains(QLatin1String("informer_queued_items{")), qPrintable(text));
    informer.stop();
}

QTEST_GUILESS_MAIN(tst_InformerMetrics)
#include "tst_informermetrics.moc"
