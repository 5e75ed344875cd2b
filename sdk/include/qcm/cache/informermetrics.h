// SPDX-License-Identifier: Apache-2.0
// InformerMetricsProvider: where informers get their metrics (client-go's
// cache.InformerMetricsProvider), and the Prometheus implementation under client-go's names
// (component-base's clientgo/fifo metrics), so existing dashboards work:
//
//   informer_queued_items{name,group,version,resource}                gauge
//   informer_processing_latency_seconds{name,group,version,resource}  histogram
//   informer_store_resource_version{name,group,version,resource}      gauge (15 low digits)
//
// Only informers with a reserved InformerNameAndResource record anything (informername.h).
// An informer without its own provider uses the global one; until setInformerMetricsProvider()
// is called that is a no-op, as in client-go.
//
// Thread safety: metric objects are called from the informer's threads; providers must return
// thread-safe metrics. setInformerMetricsProvider() and globalInformerMetricsProvider() are
// thread-safe.
#pragma once

#include <qcm/cache/informername.h>
#include <qcm/metrics/registry.h>
#include <qcm/workqueue/metricsprovider.h>

#include <chrono>
#include <memory>

namespace qcm::cache {

using workqueue::HistogramMetric;
using workqueue::SettableGaugeMetric;

class QCM_SDK_EXPORT InformerMetricsProvider
{
public:
    virtual ~InformerMetricsProvider();
    virtual std::unique_ptr<SettableGaugeMetric> newQueuedItemMetric(
        const InformerNameAndResource &id)
        = 0;
    virtual std::unique_ptr<HistogramMetric> newProcessingLatencyMetric(
        const InformerNameAndResource &id)
        = 0;
    virtual std::unique_ptr<SettableGaugeMetric> newStoreResourceVersionMetric(
        const InformerNameAndResource &id)
        = 0;
};

// The metrics of one FIFO. Empty members record nothing.
struct FifoMetrics
{
    std::shared_ptr<SettableGaugeMetric> queuedItems;
    std::shared_ptr<HistogramMetric> processingLatency;

    void setQueuedItems(std::size_t count) const
    {
        if (queuedItems)
            queuedItems->set(double(count));
    }
    // Runs `process` and observes how long it took.
    template<typename F>
    auto timeProcessing(F &&process) const
    {
        if (!processingLatency)
            return process();
        const auto started = std::chrono::steady_clock::now();
        auto result = process();
        processingLatency->observe(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        return result;
    }

    // The metrics for `id` from `provider` (null: the global one), or none if not reserved.
    QCM_SDK_EXPORT static FifoMetrics create(
        const InformerNameAndResource &id, InformerMetricsProvider *provider);
};

// The store-resourceVersion gauge for `id` from `provider` (null: the global one), or null if
// `id` is not reserved.
QCM_SDK_EXPORT std::unique_ptr<SettableGaugeMetric> newStoreResourceVersionGauge(
    const InformerNameAndResource &id, InformerMetricsProvider *provider);

// Sets the global provider; only the first call takes effect, as in client-go. The provider
// must outlive every informer created after the call.
QCM_SDK_EXPORT bool setInformerMetricsProvider(InformerMetricsProvider *provider);
QCM_SDK_EXPORT InformerMetricsProvider *globalInformerMetricsProvider();

class QCM_SDK_EXPORT PrometheusInformerMetricsProvider : public InformerMetricsProvider
{
public:
    explicit PrometheusInformerMetricsProvider(metrics::Registry &registry);
    std::unique_ptr<SettableGaugeMetric> newQueuedItemMetric(
        const InformerNameAndResource &id) override;
    std::unique_ptr<HistogramMetric> newProcessingLatencyMetric(
        const InformerNameAndResource &id) override;
    std::unique_ptr<SettableGaugeMetric> newStoreResourceVersionMetric(
        const InformerNameAndResource &id) override;

private:
    metrics::Family<metrics::Gauge> &m_queuedItems;
    metrics::Family<metrics::Histogram> &m_processingLatency;
    metrics::Family<metrics::Gauge> &m_storeResourceVersion;
};

// client-go's parseRVForMetricsWithTruncation: the last 15 digits of a resourceVersion as a
// number ("" is 0); nullopt if they are not a number.
QCM_SDK_EXPORT std::optional<double> resourceVersionForMetrics(const QString &resourceVersion);

} // namespace qcm::cache
