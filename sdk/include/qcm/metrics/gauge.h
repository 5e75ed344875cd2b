// SPDX-License-Identifier: Apache-2.0
// Gauge: a value that goes up and down (prometheus-cpp's Gauge).
//
// Thread safety: lock-free; every method is safe from any thread.
#pragma once

#include <qcm/metrics/metricfamily.h>

#include <atomic>

namespace qcm::metrics {

class QCM_SDK_EXPORT Gauge
{
public:
    static constexpr MetricType Type = MetricType::Gauge;

    explicit Gauge(double value = 0.0) : m_value(value) { }
    Q_DISABLE_COPY_MOVE(Gauge)

    void increment(double value = 1.0);
    void decrement(double value = 1.0);
    void set(double value);
    // Sets the gauge to the current Unix time in seconds.
    void setToCurrentTime();
    double value() const;
    ClientMetric collect() const;

private:
    std::atomic<double> m_value;
};

} // namespace qcm::metrics
