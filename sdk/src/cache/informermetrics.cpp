// SPDX-License-Identifier: Apache-2.0
#include <qcm/cache/informermetrics.h>

#include "../workqueue/metricadapters_p.h"

#include <atomic>

namespace qcm::cache {

using metrics::Labels;
using workqueue::detail::GaugeAdapter;
using workqueue::detail::HistogramAdapter;

namespace {

// component-base's clientgo/fifo processing-latency buckets.
const metrics::BucketBoundaries &latencyBuckets()
{
    static const metrics::BucketBoundaries buckets {
        0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    return buckets;
}

Labels labels(const InformerNameAndResource &id)
{
    const client::GroupVersionResource r = id.groupVersionResource();
    return {{QStringLiteral("name"), id.name()}, {QStringLiteral("group"), r.group},
        {QStringLiteral("version"), r.version}, {QStringLiteral("resource"), r.resource}};
}

class NoopGauge final : public SettableGaugeMetric
{
public:
    void set(double) override { }
};

class NoopHistogram final : public HistogramMetric
{
public:
    void observe(double) override { }
};

class NoopProvider final : public InformerMetricsProvider
{
public:
    std::unique_ptr<SettableGaugeMetric> newQueuedItemMetric(
        const InformerNameAndResource &) override
    {
        return std::make_unique<NoopGauge>();
    }
    std::unique_ptr<HistogramMetric> newProcessingLatencyMetric(
        const InformerNameAndResource &) override
    {
        return std::make_unique<NoopHistogram>();
    }
    std::unique_ptr<SettableGaugeMetric> newStoreResourceVersionMetric(
        const InformerNameAndResource &) override
    {
        return std::make_unique<NoopGauge>();
    }
};

// Records only while the identity stays reserved (component-base's reserved*Metric), so an
// informer whose name was released stops writing its series.
class ReservedGauge final : public SettableGaugeMetric
{
public:
    ReservedGauge(InformerNameAndResource id, std::unique_ptr<SettableGaugeMetric> gauge)
        : m_id(std::move(id)), m_gauge(std::move(gauge))
    { }
    void set(double value) override
    {
        if (m_id.reserved())
            m_gauge->set(value);
    }

private:
    const InformerNameAndResource m_id;
    const std::unique_ptr<SettableGaugeMetric> m_gauge;
};

class ReservedHistogram final : public HistogramMetric
{
public:
    ReservedHistogram(InformerNameAndResource id, std::unique_ptr<HistogramMetric> histogram)
        : m_id(std::move(id)), m_histogram(std::move(histogram))
    { }
    void observe(double value) override
    {
        if (m_id.reserved())
            m_histogram->observe(value);
    }

private:
    const InformerNameAndResource m_id;
    const std::unique_ptr<HistogramMetric> m_histogram;
};

NoopProvider noopProvider;
std::atomic<InformerMetricsProvider *> globalProvider {&noopProvider};
std::atomic<bool> globalProviderSet {false};

} // namespace

InformerMetricsProvider::~InformerMetricsProvider() = default;

bool setInformerMetricsProvider(InformerMetricsProvider *provider)
{
    if (!provider || globalProviderSet.exchange(true))
        return false;
    globalProvider.store(provider);
    return true;
}

InformerMetricsProvider *globalInformerMetricsProvider()
{
    return globalProvider.load();
}

FifoMetrics FifoMetrics::create(
    const InformerNameAndResource &id, InformerMetricsProvider *provider)
{
    if (!id.reserved())
        return {};
    if (!provider)
        provider = globalInformerMetricsProvider();
    FifoMetrics m;
    m.queuedItems = std::make_shared<ReservedGauge>(id, provider->newQueuedItemMetric(id));
    m.processingLatency
        = std::make_shared<ReservedHistogram>(id, provider->newProcessingLatencyMetric(id));
    return m;
}

std::unique_ptr<SettableGaugeMetric> newStoreResourceVersionGauge(
    const InformerNameAndResource &id, InformerMetricsProvider *provider)
{
    if (!id.reserved())
        return nullptr;
    if (!provider)
        provider = globalInformerMetricsProvider();
    return std::make_unique<ReservedGauge>(id, provider->newStoreResourceVersionMetric(id));
}

PrometheusInformerMetricsProvider::PrometheusInformerMetricsProvider(metrics::Registry &registry)
    : m_queuedItems(registry.add<metrics::Gauge>(QStringLiteral("informer_queued_items"),
        QStringLiteral("Number of items currently queued in the FIFO.")))
    , m_processingLatency(
          registry.add<metrics::Histogram>(QStringLiteral("informer_processing_latency_seconds"),
              QStringLiteral("Time taken to process events after popping from the queue.")))
    , m_storeResourceVersion(
          registry.add<metrics::Gauge>(QStringLiteral("informer_store_resource_version"),
              QStringLiteral("The 15 least significant digits of the resource version of the "
                             "store.")))
{ }

std::unique_ptr<SettableGaugeMetric> PrometheusInformerMetricsProvider::newQueuedItemMetric(
    const InformerNameAndResource &id)
{
    return std::make_unique<GaugeAdapter>(m_queuedItems.add(labels(id)));
}

std::unique_ptr<HistogramMetric> PrometheusInformerMetricsProvider::newProcessingLatencyMetric(
    const InformerNameAndResource &id)
{
    return std::make_unique<HistogramAdapter>(
        m_processingLatency.add(labels(id), latencyBuckets()));
}

std::unique_ptr<SettableGaugeMetric>
PrometheusInformerMetricsProvider::newStoreResourceVersionMetric(const InformerNameAndResource &id)
{
    return std::make_unique<GaugeAdapter>(m_storeResourceVersion.add(labels(id)));
}

std::optional<double> resourceVersionForMetrics(const QString &resourceVersion)
{
    if (resourceVersion.isEmpty())
        return 0.0;
    bool ok = false;
    const qint64 value = QStringView(resourceVersion).right(15).toLongLong(&ok);
    if (!ok)
        return std::nullopt;
    return double(value);
}

} // namespace qcm::cache
