// SPDX-License-Identifier: Apache-2.0
#include <qcm/metrics/gauge.h>

#include "atomicdouble_p.h"

#include <QtCore/QDateTime>

namespace qcm::metrics {

void Gauge::increment(double value)
{
    detail::atomicAdd(m_value, value);
}

void Gauge::decrement(double value)
{
    detail::atomicAdd(m_value, -value);
}

void Gauge::set(double value)
{
    m_value.store(value, std::memory_order_relaxed);
}

void Gauge::setToCurrentTime()
{
    set(double(QDateTime::currentMSecsSinceEpoch()) / 1000.0);
}

double Gauge::value() const
{
    return m_value.load(std::memory_order_relaxed);
}

ClientMetric Gauge::collect() const
{
    ClientMetric metric;
    metric.value = value();
    return metric;
}

} // namespace qcm::metrics
