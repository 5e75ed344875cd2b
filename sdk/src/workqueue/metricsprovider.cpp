// SPDX-License-Identifier: Apache-2.0
#include <qcm/workqueue/metricsprovider.h>
#include <qcm/workqueue/queueconfig.h>
#include <qcm/workqueue/retrymetrics.h>

#include <atomic>

namespace qcm::workqueue {

GaugeMetric::~GaugeMetric() = default;
SettableGaugeMetric::~SettableGaugeMetric() = default;
CounterMetric::~CounterMetric() = default;
HistogramMetric::~HistogramMetric() = default;
MetricsProvider::~MetricsProvider() = default;

namespace {

std::atomic<MetricsProvider *> g_provider {nullptr};

// client-go's noopMetricsProvider, for callers that ask the global provider directly.
class NoopMetric final : public GaugeMetric,
                         public SettableGaugeMetric,
                         public CounterMetric,
                         public HistogramMetric
{
public:
    void inc() override { }
    void dec() override { }
    void set(double) override { }
    void observe(double) override { }
};

class NoopProvider final : public MetricsProvider
{
public:
    std::unique_ptr<GaugeMetric> newDepthMetric(const QString &) override { return noop(); }
    std::unique_ptr<CounterMetric> newAddsMetric(const QString &) override { return noop(); }
    std::unique_ptr<HistogramMetric> newLatencyMetric(const QString &) override { return noop(); }
    std::unique_ptr<HistogramMetric> newWorkDurationMetric(const QString &) override
    {
        return noop();
    }
    std::unique_ptr<SettableGaugeMetric> newUnfinishedWorkSecondsMetric(const QString &) override
    {
        return noop();
    }
    std::unique_ptr<SettableGaugeMetric> newLongestRunningProcessorSecondsMetric(
        const QString &) override
    {
        return noop();
    }
    std::unique_ptr<CounterMetric> newRetriesMetric(const QString &) override { return noop(); }

private:
    static std::unique_ptr<NoopMetric> noop() { return std::make_unique<NoopMetric>(); }
};

NoopProvider g_noop;

} // namespace

bool setProvider(MetricsProvider *provider)
{
    MetricsProvider *expected = nullptr;
    return provider && g_provider.compare_exchange_strong(expected, provider);
}

MetricsProvider *globalProvider()
{
    MetricsProvider *provider = g_provider.load();
    return provider ? provider : &g_noop;
}

MetricsProvider *effectiveProvider(const QueueConfig &config)
{
    if (config.name.isEmpty())
        return nullptr;
    if (config.metricsProvider)
        return config.metricsProvider;
    return g_provider.load();
}

RetryMetrics::RetryMetrics(const QueueConfig &config)
{
    if (MetricsProvider *provider = effectiveProvider(config))
        m_retries = provider->newRetriesMetric(config.name);
}

RetryMetrics::~RetryMetrics() = default;

void RetryMetrics::retry()
{
    if (m_retries)
        m_retries->inc();
}

} // namespace qcm::workqueue
