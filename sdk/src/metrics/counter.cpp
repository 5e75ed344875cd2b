// SPDX-License-Identifier: Apache-2.0
#include <qcm/metrics/counter.h>

#include "atomicdouble_p.h"

namespace qcm::metrics {

void Counter::increment(double value)
{
    if (value < 0)
        return;
    detail::atomicAdd(m_value, value);
}

double Counter::value() const
{
    return m_value.load(std::memory_order_relaxed);
}

ClientMetric Counter::collect() const
{
    ClientMetric metric;
    metric.value = value();
    return metric;
}

} // namespace qcm::metrics
