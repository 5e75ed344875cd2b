// SPDX-License-Identifier: Apache-2.0
// PrometheusMetricsProvider: work-queue metrics in a qcm::metrics::Registry, under client-go's
// names (component-base's workqueue metrics), so existing dashboards work:
//
//   workqueue_depth{name}                              gauge
//   workqueue_adds_total{name}                         counter
//   workqueue_queue_duration_seconds{name}             histogram, buckets 1e-8 .. 1e1
//   workqueue_work_duration_seconds{name}              histogram, buckets 1e-8 .. 1e1
//   workqueue_unfinished_work_seconds{name}            gauge
//   workqueue_longest_running_processor_seconds{name}  gauge
//   workqueue_retries_total{name}                      counter
//
// Thread safety: safe from any thread; the registry must outlive the provider's metrics.
#pragma once

#include <qcm/metrics/registry.h>
#include <qcm/workqueue/metricsprovider.h>

namespace qcm::workqueue {

class QCM_SDK_EXPORT PrometheusMetricsProvider : public MetricsProvider
{
public:
    explicit PrometheusMetricsProvider(metrics::Registry &registry);

    std::unique_ptr<GaugeMetric> newDepthMetric(const QString &name) override;
    std::unique_ptr<CounterMetric> newAddsMetric(const QString &name) override;
    std::unique_ptr<HistogramMetric> newLatencyMetric(const QString &name) override;
    std::unique_ptr<HistogramMetric> newWorkDurationMetric(const QString &name) override;
    std::unique_ptr<SettableGaugeMetric> newUnfinishedWorkSecondsMetric(
        const QString &name) override;
    std::unique_ptr<SettableGaugeMetric> newLongestRunningProcessorSecondsMetric(
        const QString &name) override;
    std::unique_ptr<CounterMetric> newRetriesMetric(const QString &name) override;

private:
    metrics::Family<metrics::Gauge> &m_depth;
    metrics::Family<metrics::Counter> &m_adds;
    metrics::Family<metrics::Histogram> &m_latency;
    metrics::Family<metrics::Histogram> &m_workDuration;
    metrics::Family<metrics::Gauge> &m_unfinishedWorkSeconds;
    metrics::Family<metrics::Gauge> &m_longestRunningProcessor;
    metrics::Family<metrics::Counter> &m_retries;
};

} // namespace qcm::workqueue
