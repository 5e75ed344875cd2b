// SPDX-License-Identifier: Apache-2.0
// qcm::metrics: registry rules, the three metric types and the text format.
#include <qcm/metrics/builder.h>
#include <qcm/metrics/textserializer.h>

#include <QtTest/QtTest>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>

using namespace qcm::metrics;

class tst_Registry : public QObject
{
    Q_OBJECT

private slots:
    void counterOnlyGoesUp();
    void gauge();
    void histogramBuckets();
    void histogramRejectsUnsortedBuckets();
    void exponentialBucketsMatchClientGo();
    void sameDefinitionSharesTheFamily();
    void conflictingDefinitionThrows();
    void invalidNamesThrow();
    void textFormat();
    void escaping();
    void formatValue();
    void concurrentUpdates();
};

void tst_Registry::counterOnlyGoesUp()
{
    Registry registry;
    Counter &c = buildCounter()
                     .name(QStringLiteral("c_total"))
                     .help(QStringLiteral("h"))
                     .registerIn(registry)
                     .add({});
    c.increment();
    c.increment(2.5);
    c.increment(-10);
    QCOMPARE(c.value(), 3.5);
}

void tst_Registry::gauge()
{
    Gauge g;
    g.increment();
    g.increment(4);
    g.decrement(2);
    QCOMPARE(g.value(), 3.0);
    g.set(-7.5);
    QCOMPARE(g.value(), -7.5);
    g.setToCurrentTime();
    QVERIFY(g.value() > 1.7e9);
}

void tst_Registry::histogramBuckets()
{
    Histogram h({1, 2, 5});
    for (double v : {0.5, 1.0, 1.5, 2.0, 4.0, 100.0})
        h.observe(v);
    const ClientMetric m = h.collect();
    QCOMPARE(m.buckets.size(), size_t(4));
    QCOMPARE(m.buckets[0].cumulativeCount, quint64(2)); // le=1: 0.5, 1.0
    QCOMPARE(m.buckets[1].cumulativeCount, quint64(4)); // le=2
    QCOMPARE(m.buckets[2].cumulativeCount, quint64(5)); // le=5
    QCOMPARE(m.buckets[3].cumulativeCount, quint64(6)); // +Inf
    QVERIFY(std::isinf(m.buckets[3].upperBound));
    QCOMPARE(m.count, quint64(6));
    QCOMPARE(m.sum, 109.0);
}

void tst_Registry::histogramRejectsUnsortedBuckets()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Histogram({1, 1}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Histogram({2, 1}));
}

void tst_Registry::exponentialBucketsMatchClientGo()
{
    const BucketBoundaries b = exponentialBuckets(10e-9, 10, 10);
    QCOMPARE(b.size(), size_t(10));
    QCOMPARE(TextSerializer::formatValue(b.front()), QByteArray("1e-08"));
    QCOMPARE(TextSerializer::formatValue(b.back()), QByteArray("10"));
}

void tst_Registry::sameDefinitionSharesTheFamily()
{
    Registry registry;
    auto &a = registry.add<Gauge>(QStringLiteral("g"), QStringLiteral("help"));
    auto &b = registry.add<Gauge>(QStringLiteral("g"), QStringLiteral("help"));
    QCOMPARE(&a, &b);
    QCOMPARE(&a.add({{QStringLiteral("x"), QStringLiteral("1")}}),
        &b.add({{QStringLiteral("x"), QStringLiteral("1")}}));
}

void tst_Registry::conflictingDefinitionThrows()
{
    Registry registry;
    registry.add<Gauge>(QStringLiteral("m"), QStringLiteral("help"));
    try {
        registry.add<Counter>(QStringLiteral("m"), QStringLiteral("help"));
        QFAIL("expected std::invalid_argument");
    } catch (const std::invalid_argument &e) {
        const QString message = QString::fromUtf8(e.what());
        QVERIFY2(message.contains(QLatin1String("already registered as a gauge")), e.what());
        QVERIFY2(message.contains(QLatin1String("as a counter")), e.what());
    }
    QVERIFY_THROWS_EXCEPTION(
        std::invalid_argument, registry.add<Gauge>(QStringLiteral("m"), QStringLiteral("other")));
}

void tst_Registry::invalidNamesThrow()
{
    Registry registry;
    QVERIFY_THROWS_EXCEPTION(
        std::invalid_argument, registry.add<Counter>(QStringLiteral("1bad"), QStringLiteral("h")));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
        registry.add<Counter>(QStringLiteral("bad-name"), QStringLiteral("h")));
    auto &family = registry.add<Counter>(QStringLiteral("ok_total"), QStringLiteral("h"));
    QVERIFY_THROWS_EXCEPTION(
        std::invalid_argument, family.add({{QStringLiteral("__reserved"), QStringLiteral("v")}}));
    QVERIFY_THROWS_EXCEPTION(
        std::invalid_argument, family.add({{QStringLiteral("le"), QStringLiteral("v")}}));
    auto &hist = registry.add<Histogram>(QStringLiteral("h_seconds"), QStringLiteral("h"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
        hist.add({{QStringLiteral("bad label"), QStringLiteral("v")}}, BucketBoundaries {1.0}));
}

void tst_Registry::textFormat()
{
    Registry registry;
    auto &requests = buildCounter()
                         .name(QStringLiteral("http_requests_total"))
                         .help(QStringLiteral("Requests."))
                         .registerIn(registry);
    requests
        .add({{QStringLiteral("code"), QStringLiteral("200")},
            {QStringLiteral("method"), QStringLiteral("get")}})
        .increment(3);
    auto &latency = buildHistogram()
                        .name(QStringLiteral("latency_seconds"))
                        .help(QStringLiteral("Latency."))
                        .registerIn(registry);
    latency.add({}, BucketBoundaries {0.1, 1}).observe(0.5);
    buildGauge().name(QStringLiteral("a_gauge")).help(QStringLiteral("G.")).registerIn(registry);

    const QByteArray expected = "# HELP http_requests_total Requests.\n"
                                "# TYPE http_requests_total counter\n"
                                "http_requests_total{code=\"200\",method=\"get\"} 3\n"
                                "# HELP latency_seconds Latency.\n"
                                "# TYPE latency_seconds histogram\n"
                                "latency_seconds_bucket{le=\"0.1\"} 0\n"
                                "latency_seconds_bucket{le=\"1\"} 1\n"
                                "latency_seconds_bucket{le=\"+Inf\"} 1\n"
                                "latency_seconds_sum 0.5\n"
                                "latency_seconds_count 1\n";
    // The family with no series writes nothing.
    QCOMPARE(TextSerializer::serialize(registry.collect()), expected);
}

void tst_Registry::escaping()
{
    Registry registry;
    auto &family = registry.add<Gauge>(
        QStringLiteral("esc"), QStringLiteral("Back\\slash and\nnewline \"quoted\"."));
    family.add({{QStringLiteral("path"), QStringLiteral("C:\\dir\n\"x\"")}}).set(1);
    const QByteArray text = TextSerializer::serialize(registry.collect());
    QVERIFY2(
        text.contains("# HELP esc Back\\\\slash and\\nnewline \"quoted\".\n"), text.constData());
    QVERIFY2(text.contains("esc{path=\"C:\\\\dir\\n\\\"x\\\"\"} 1\n"), text.constData());
}

void tst_Registry::formatValue()
{
    QCOMPARE(TextSerializer::formatValue(0), QByteArray("0"));
    QCOMPARE(TextSerializer::formatValue(42), QByteArray("42"));
    QCOMPARE(TextSerializer::formatValue(-1.5), QByteArray("-1.5"));
    QCOMPARE(TextSerializer::formatValue(0.1), QByteArray("0.1"));
    QCOMPARE(
        TextSerializer::formatValue(std::numeric_limits<double>::infinity()), QByteArray("+Inf"));
    QCOMPARE(
        TextSerializer::formatValue(-std::numeric_limits<double>::infinity()), QByteArray("-Inf"));
    QCOMPARE(TextSerializer::formatValue(std::nan("")), QByteArray("NaN"));
}

void tst_Registry::concurrentUpdates()
{
    Registry registry;
    auto &family = registry.add<Counter>(QStringLiteral("n_total"), QStringLiteral("h"));
    auto &hist = registry.add<Histogram>(QStringLiteral("d_seconds"), QStringLiteral("h"));
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < 10000; ++i) {
                family.add({{QStringLiteral("k"), QString::number(i % 4)}}).increment();
                hist.add({}, exponentialBuckets(1e-3, 10, 4)).observe(0.01);
            }
            registry.collect();
        });
    }
    for (auto &t : threads)
        t.join();
    double total = 0;
    for (int k = 0; k < 4; ++k)
        total += family.add({{QStringLiteral("k"), QString::number(k)}}).value();
    QCOMPARE(total, 40000.0);
    QCOMPARE(hist.add({}, BucketBoundaries {}).count(), quint64(40000));
}

QTEST_GUILESS_MAIN(tst_Registry)
#include "tst_registry.moc"
