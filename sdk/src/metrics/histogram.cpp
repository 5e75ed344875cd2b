// SPDX-License-Identifier: Apache-2.0
#include <qcm/metrics/histogram.h>

#include "atomicdouble_p.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace qcm::metrics {

Histogram::Histogram(BucketBoundaries buckets)
    : m_bounds(std::move(buckets)), m_counts(new std::atomic<std::uint64_t>[m_bounds.size() + 1])
{
    for (std::size_t i = 0; i < m_bounds.size(); ++i) {
        if (std::isnan(m_bounds[i]) || (i > 0 && !(m_bounds[i - 1] < m_bounds[i])))
            throw std::invalid_argument("histogram buckets must be strictly increasing numbers");
    }
    for (std::size_t i = 0; i <= m_bounds.size(); ++i)
        m_counts[i].store(0, std::memory_order_relaxed);
}

void Histogram::observe(double value)
{
    // The first bucket whose upper bound is >= value (buckets are "less or equal").
    const auto index
        = std::size_t(std::lower_bound(m_bounds.begin(), m_bounds.end(), value) - m_bounds.begin());
    m_counts[index].fetch_add(1, std::memory_order_relaxed);
    detail::atomicAdd(m_sum, value);
}

std::uint64_t Histogram::count() const
{
    std::uint64_t total = 0;
    for (std::size_t i = 0; i <= m_bounds.size(); ++i)
        total += m_counts[i].load(std::memory_order_relaxed);
    return total;
}

double Histogram::sum() const
{
    return m_sum.load(std::memory_order_relaxed);
}

ClientMetric Histogram::collect() const
{
    ClientMetric metric;
    std::uint64_t cumulative = 0;
    metric.buckets.reserve(m_bounds.size() + 1);
    for (std::size_t i = 0; i <= m_bounds.size(); ++i) {
        cumulative += m_counts[i].load(std::memory_order_relaxed);
        const double bound
            = i < m_bounds.size() ? m_bounds[i] : std::numeric_limits<double>::infinity();
        metric.buckets.push_back({bound, cumulative});
    }
    metric.count = cumulative;
    metric.sum = sum();
    return metric;
}

BucketBoundaries exponentialBuckets(double start, double factor, int count)
{
    if (count < 1 || start <= 0 || factor <= 1)
        throw std::invalid_argument("exponentialBuckets needs count >= 1, start > 0, factor > 1");
    BucketBoundaries buckets(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        buckets[std::size_t(i)] = start;
        start *= factor;
    }
    return buckets;
}

BucketBoundaries linearBuckets(double start, double width, int count)
{
    if (count < 1 || width <= 0)
        throw std::invalid_argument("linearBuckets needs count >= 1 and width > 0");
    BucketBoundaries buckets(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        buckets[std::size_t(i)] = start;
        start += width;
    }
    return buckets;
}

} // namespace qcm::metrics
