// SPDX-License-Identifier: Apache-2.0
// Queue metrics: client-go's util/workqueue/metrics_test.go (TestMetrics, TestMetricShutdown)
// and the Prometheus names of component-base.
#include <qcm/fakeclock.h>
#include <qcm/metrics/textserializer.h>
#include <qcm/workqueue/delayingqueue.h>
#include <qcm/workqueue/prometheusmetrics.h>

#include <QtTest/QtTest>

using namespace qcm::workqueue;
using namespace std::chrono_literals;

namespace {

struct TestValue
{
    double value = 0;
    double lastObservation = 0;
    int observations = 0;
};

class TestMetric final : public GaugeMetric,
                         public SettableGaugeMetric,
                         public CounterMetric,
                         public HistogramMetric
{
public:
    explicit TestMetric(TestValue *v) : m_v(v) { }
    void inc() override { m_v->value += 1; }
    void dec() override { m_v->value -= 1; }
    void set(double value) override { m_v->value = value; }
    void observe(double value) override
    {
        m_v->lastObservation = value;
        ++m_v->observations;
    }

private:
    TestValue *m_v;
};

class TestMetricsProvider final : public MetricsProvider
{
public:
    TestValue depth, adds, latency, duration, unfinished, longest, retries;
    QStringList names;

    std::unique_ptr<GaugeMetric> newDepthMetric(const QString &n) override
    {
        return make(n, &depth);
    }
    std::unique_ptr<CounterMetric> newAddsMetric(const QString &n) override
    {
        return make(n, &adds);
    }
    std::unique_ptr<HistogramMetric> newLatencyMetric(const QString &n) override
    {
        return make(n, &latency);
    }
    std::unique_ptr<HistogramMetric> newWorkDurationMetric(const QString &n) override
    {
        return make(n, &duration);
    }
    std::unique_ptr<SettableGaugeMetric> newUnfinishedWorkSecondsMetric(const QString &n) override
    {
        return make(n, &unfinished);
    }
    std::unique_ptr<SettableGaugeMetric> newLongestRunningProcessorSecondsMetric(
        const QString &n) override
    {
        return make(n, &longest);
    }
    std::unique_ptr<CounterMetric> newRetriesMetric(const QString &n) override
    {
        return make(n, &retries);
    }

private:
    std::unique_ptr<TestMetric> make(const QString &name, TestValue *v)
    {
        names << name;
        return std::make_unique<TestMetric>(v);
    }
};

} // namespace

class tst_QueueMetrics : public QObject
{
    Q_OBJECT

private slots:
    void metrics();
    void unnamedQueueRecordsNothing();
    void retries();
    void metricShutdown();
    void prometheusNames();
};

// TestMetrics
void tst_QueueMetrics::metrics()
{
    TestMetricsProvider mp;
    qcm::FakeClock clock;
    QueueConfig config;
    config.name = QStringLiteral("test");
    config.clock = &clock;
    config.metricsProvider = &mp;
    Queue<QString> q(config);
    QVERIFY(clock.hasWaiters()); // the unfinished-work updater

    q.add(QStringLiteral("foo"));
    QCOMPARE(mp.adds.value, 1.0);
    QCOMPARE(mp.depth.value, 1.0);
    clock.step(50us);

    auto i = q.get();
    QCOMPARE(*i, QStringLiteral("foo"));
    QCOMPARE(mp.latency.lastObservation, 5e-05);
    QCOMPARE(mp.latency.observations, 1);

    // Adds while processing are de-duplicated.
    for (int n = 0; n < 5; ++n)
        q.add(*i);
    QCOMPARE(mp.adds.value, 2.0);
    QCOMPARE(mp.depth.value, 1.0);
    clock.step(25us);

    q.done(*i);
    QCOMPARE(mp.duration.lastObservation, 2.5e-05);
    QCOMPARE(mp.duration.observations, 1);
    QCOMPARE(mp.depth.value, 1.0);

    i = q.get();
    QCOMPARE(*i, QStringLiteral("foo"));
    QCOMPARE(mp.latency.lastObservation, 2.5e-05);
    QCOMPARE(mp.latency.observations, 2);

    // The updater runs every 500 ms of clock time; the item began processing at 75 us.
    clock.step(500ms - 75us - 1us);
    QCOMPARE(mp.unfinished.value, 0.0); // not updated yet
    clock.step(1us);
    QCOMPARE(mp.unfinished.value, 0.499925);
    QCOMPARE(mp.longest.value, 0.499925);

    q.done(*i);
    QCOMPARE(mp.duration.lastObservation, 0.499925);
    QCOMPARE(mp.duration.observations, 2);
    QVERIFY(mp.names.size() == 6 && mp.names.count(QStringLiteral("test")) == 6);
}

void tst_QueueMetrics::unnamedQueueRecordsNothing()
{
    TestMetricsProvider mp;
    qcm::FakeClock clock;
    QueueConfig config;
    config.clock = &clock;
    config.metricsProvider = &mp;
    DelayingQueue<QString> q(config);
    q.add(QStringLiteral("foo"));
    q.addAfter(QStringLiteral("bar"), 1s);
    QVERIFY(mp.names.isEmpty());
    QCOMPARE(mp.adds.value, 0.0);
    QCOMPARE(clock.waiterCount(), 1); // only the delaying heartbeat, no updater
}

// Every addAfter counts one retry, whatever the delay, but not after shutdown.
void tst_QueueMetrics::retries()
{
    TestMetricsProvider mp;
    qcm::FakeClock clock;
    QueueConfig config;
    config.name = QStringLiteral("r");
    config.clock = &clock;
    config.metricsProvider = &mp;
    DelayingQueue<QString> q(config);
    q.addAfter(QStringLiteral("a"), 0ns);
    q.addAfter(QStringLiteral("a"), 1s);
    q.addAfter(QStringLiteral("b"), 1s);
    QCOMPARE(mp.retries.value, 3.0);
    q.shutDown();
    q.addAfter(QStringLiteral("c"), 1s);
    QCOMPARE(mp.retries.value, 3.0);
}

// TestMetricShutdown: after shutdown the updater stops.
void tst_QueueMetrics::metricShutdown()
{
    TestMetricsProvider mp;
    qcm::FakeClock clock;
    QueueConfig config;
    config.name = QStringLiteral("test");
    config.clock = &clock;
    config.metricsProvider = &mp;
    Queue<QString> q(config);
    QVERIFY(clock.hasWaiters());
    q.shutDown();
    QVERIFY(!clock.hasWaiters());
}

void tst_QueueMetrics::prometheusNames()
{
    qcm::metrics::Registry registry;
    PrometheusMetricsProvider provider(registry);
    qcm::FakeClock clock;
    QueueConfig config;
    config.name = QStringLiteral("deployments");
    config.clock = &clock;
    config.metricsProvider = &provider;
    DelayingQueue<QString> q(config);
    q.add(QStringLiteral("a"));
    q.addAfter(QStringLiteral("b"), 1s);
    clock.step(2ms);
    q.done(*q.get());
    const QByteArray text = qcm::metrics::TextSerializer::serialize(registry.collect());
    QVERIFY2(text.contains("workqueue_depth{name=\"deployments\"} 0\n"), text.constData());
    QVERIFY(text.contains("workqueue_adds_total{name=\"deployments\"} 1\n"));
    QVERIFY(text.contains("workqueue_retries_total{name=\"deployments\"} 1\n"));
    QVERIFY(text.contains(
        "workqueue_queue_duration_seconds_bucket{name=\"deployments\",le=\"1e-08\"} 0\n"));
    QVERIFY(text.contains(
        "workqueue_queue_duration_seconds_bucket{name=\"deployments\",le=\"0.01\"} 1\n"));
    QVERIFY(text.contains(
        "workqueue_queue_duration_seconds_bucket{name=\"deployments\",le=\"10\"} 1\n"));
    QVERIFY(text.contains("workqueue_work_duration_seconds_count{name=\"deployments\"} 1\n"));
    QVERIFY(text.contains("workqueue_unfinished_work_seconds{name=\"deployments\"} 0\n"));
    QVERIFY(text.contains("workqueue_longest_running_processor_seconds{name=\"deployments\"} 0\n"));
}

QTEST_GUILESS_MAIN(tst_QueueMetrics)
#include "tst_queuemetrics.moc"
