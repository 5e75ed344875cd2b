// SPDX-License-Identifier: Apache-2.0
// MetricsProvider: where work queues get their metrics (client-go's workqueue.MetricsProvider).
//
// A queue with an empty name records nothing. A queue with a name asks its config's provider,
// or else the global one set by setProvider(); until then the global provider is a no-op, as in
// client-go. PrometheusMetricsProvider (prometheusmetrics.h) registers client-go's metric names.
//
// Thread safety: the metric objects are called concurrently from every queue user; providers
// must return thread-safe metrics. setProvider() and globalProvider() are thread-safe.
#pragma once

#include <qcm/global.h>

#include <QtCore/QString>

#include <memory>

namespace qcm::workqueue {

class QCM_SDK_EXPORT GaugeMetric
{
public:
    virtual ~GaugeMetric();
    virtual void inc() = 0;
    virtual void dec() = 0;
};

class QCM_SDK_EXPORT SettableGaugeMetric
{
public:
    virtual ~SettableGaugeMetric();
    virtual void set(double value) = 0;
};

class QCM_SDK_EXPORT CounterMetric
{
public:
    virtual ~CounterMetric();
    virtual void inc() = 0;
};

class QCM_SDK_EXPORT HistogramMetric
{
public:
    virtual ~HistogramMetric();
    virtual void observe(double value) = 0;
};

class QCM_SDK_EXPORT MetricsProvider
{
public:
    virtual ~MetricsProvider();
    virtual std::unique_ptr<GaugeMetric> newDepthMetric(const QString &name) = 0;
    virtual std::unique_ptr<CounterMetric> newAddsMetric(const QString &name) = 0;
    virtual std::unique_ptr<HistogramMetric> newLatencyMetric(const QString &name) = 0;
    virtual std::unique_ptr<HistogramMetric> newWorkDurationMetric(const QString &name) = 0;
    virtual std::unique_ptr<SettableGaugeMetric> newUnfinishedWorkSecondsMetric(const QString &name)
        = 0;
    virtual std::unique_ptr<SettableGaugeMetric> newLongestRunningProcessorSecondsMetric(
        const QString &name)
        = 0;
    virtual std::unique_ptr<CounterMetric> newRetriesMetric(const QString &name) = 0;
};

// Sets the global provider used by named queues without their own. As in client-go, only the
// first call takes effect; it returns whether this call did. The provider must outlive every
// queue created after the call.
QCM_SDK_EXPORT bool setProvider(MetricsProvider *provider);
// The global provider: the one set by setProvider(), or a provider of no-op metrics.
QCM_SDK_EXPORT MetricsProvider *globalProvider();

} // namespace qcm::workqueue
