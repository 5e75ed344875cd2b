// SPDX-License-Identifier: Apache-2.0
// Counter: a value that only goes up (prometheus-cpp's Counter).
//
// Thread safety: lock-free; every method is safe from any thread.
#pragma once

#include <qcm/metrics/metricfamily.h>

#include <atomic>

namespace qcm::metrics {

class QCM_SDK_EXPORT Counter
{
public:
    static constexpr MetricType Type = MetricType::Counter;

    Counter() = default;
    Q_DISABLE_COPY_MOVE(Counter)

    // Adds `value`; a negative value is ignored, since counters never go down.
    void increment(double value = 1.0);
    double value() const;
    ClientMetric collect() const;

private:
    std::atomic<double> m_value {0.0};
};

} // namespace qcm::metrics
