// SPDX-License-Identifier: Apache-2.0
#include <qcm/workqueue/prometheusmetrics.h>

#include "metricadapters_p.h"

namespace qcm::workqueue {

namespace {

using detail::CounterAdapter;
using detail::GaugeAdapter;
using detail::HistogramAdapter;
using metrics::Labels;

// component-base: metrics.ExponentialBuckets(10e-9, 10, 10).
const metrics::BucketBoundaries &durationBuckets()
{
    static const metrics::BucketBoundaries buckets = metrics::exponentialBuckets(10e-9, 10, 10);
    return buckets;
}

Labels nameLabel(const QString &name)
{
    return {{QStringLiteral("name"), name}};
}

} // namespace

PrometheusMetricsProvider::PrometheusMetricsProvider(metrics::Registry &registry)
    : m_depth(registry.add<metrics::Gauge>(
        QStringLiteral("workqueue_depth"), QStringLiteral("Current depth of workqueue")))
    , m_adds(registry.add<metrics::Counter>(QStringLiteral("workqueue_adds_total"),
          QStringLiteral("Total number of adds handled by workqueue")))
    , m_latency(registry.add<metrics::Histogram>(QStringLiteral("workqueue_queue_duration_seconds"),
          QStringLiteral("How long in seconds an item stays in workqueue before being "
                         "requested.")))
    , m_workDuration(
          registry.add<metrics::Histogram>(QStringLiteral("workqueue_work_duration_seconds"),
              QStringLiteral("How long in seconds processing an item from workqueue takes.")))
    , m_unfinishedWorkSeconds(
          registry.add<metrics::Gauge>(QStringLiteral("workqueue_unfinished_work_seconds"),
              QStringLiteral("How many seconds of work has done that is in progress and hasn't "
                             "been observed by work_duration. Large values indicate stuck "
                             "threads. One can deduce the number of stuck threads by observing "
                             "the rate at which this increases.")))
    , m_longestRunningProcessor(registry.add<metrics::Gauge>(
          QStringLiteral("workqueue_longest_running_processor_seconds"),
          QStringLiteral("How many seconds has the longest running processor for workqueue "
                         "been running.")))
    , m_retries(registry.add<metrics::Counter>(QStringLiteral("workqueue_retries_total"),
          QStringLiteral("Total number of retries handled by workqueue")))
{ }

std::unique_ptr<GaugeMetric> PrometheusMetricsProvider::newDepthMetric(const QString &name)
{
    return std::make_unique<GaugeAdapter>(m_depth.add(nameLabel(name)));
}

std::unique_ptr<CounterMetric> PrometheusMetricsProvider::newAddsMetric(const QString &name)
{
    return std::make_unique<CounterAdapter>(m_adds.add(nameLabel(name)));
}

std::unique_ptr<HistogramMetric> PrometheusMetricsProvider::newLatencyMetric(const QString &name)
{
    return std::make_unique<HistogramAdapter>(m_latency.add(nameLabel(name), durationBuckets()));
}

std::unique_ptr<HistogramMetric> PrometheusMetricsProvider::newWorkDurationMetric(
    const QString &name)
{
    return std::make_unique<HistogramAdapter>(
        m_workDuration.add(nameLabel(name), durationBuckets()));
}

std::unique_ptr<SettableGaugeMetric> PrometheusMetricsProvider::newUnfinishedWorkSecondsMetric(
    const QString &name)
{
    return std::make_unique<GaugeAdapter>(m_unfinishedWorkSeconds.add(nameLabel(name)));
}

std::unique_ptr<SettableGaugeMetric>
PrometheusMetricsProvider::newLongestRunningProcessorSecondsMetric(const QString &name)
{
    return std::make_unique<GaugeAdapter>(m_longestRunningProcessor.add(nameLabel(name)));
}

std::unique_ptr<CounterMetric> PrometheusMetricsProvider::newRetriesMetric(const QString &name)
{
    return std::make_unique<CounterAdapter>(m_retries.add(nameLabel(name)));
}

} // namespace qcm::workqueue
