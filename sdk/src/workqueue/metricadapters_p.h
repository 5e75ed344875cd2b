// SPDX-License-Identifier: Apache-2.0
// Adapters from qcm::metrics series to the metric interfaces that queues and informers record
// into (workqueue/metricsprovider.h). Private to the SDK.
//
// Thread safety: as the series they wrap (safe from any thread).
#pragma once

#include <qcm/metrics/counter.h>
#include <qcm/metrics/gauge.h>
#include <qcm/metrics/histogram.h>
#include <qcm/workqueue/metricsprovider.h>

namespace qcm::workqueue::detail {

class GaugeAdapter final : public GaugeMetric, public SettableGaugeMetric
{
public:
    explicit GaugeAdapter(metrics::Gauge &gauge) : m_gauge(gauge) { }
    void inc() override { m_gauge.increment(); }
    void dec() override { m_gauge.decrement(); }
    void set(double value) override { m_gauge.set(value); }

private:
    metrics::Gauge &m_gauge;
};

class CounterAdapter final : public CounterMetric
{
public:
    explicit CounterAdapter(metrics::Counter &counter) : m_counter(counter) { }
    void inc() override { m_counter.increment(); }

private:
    metrics::Counter &m_counter;
};

class HistogramAdapter final : public HistogramMetric
{
public:
    explicit HistogramAdapter(metrics::Histogram &histogram) : m_histogram(histogram) { }
    void observe(double value) override { m_histogram.observe(value); }

private:
    metrics::Histogram &m_histogram;
};

} // namespace qcm::workqueue::detail
