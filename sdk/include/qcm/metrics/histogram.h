// SPDX-License-Identifier: Apache-2.0
// Histogram: counts observations in cumulative buckets (prometheus-cpp's Histogram).
//
// Buckets are fixed at construction: sorted upper bounds, and +Inf is implicit.
// exponentialBuckets(start, factor, count) builds client-go's workqueue buckets:
// exponentialBuckets(10e-9, 10, 10) = 1e-8 ... 1e1.
//
// Thread safety: observe() is lock-free; every method is safe from any thread. A collect()
// that races with observe() may see the sum a little ahead of the counts, as in every
// Prometheus client.
#pragma once

#include <qcm/metrics/metricfamily.h>

#include <atomic>
#include <memory>
#include <vector>

namespace qcm::metrics {

using BucketBoundaries = std::vector<double>;

class QCM_SDK_EXPORT Histogram
{
public:
    static constexpr MetricType Type = MetricType::Histogram;

    // Throws std::invalid_argument if `buckets` is not strictly increasing.
    explicit Histogram(BucketBoundaries buckets);
    Q_DISABLE_COPY_MOVE(Histogram)

    void observe(double value);
    std::uint64_t count() const;
    double sum() const;
    ClientMetric collect() const;

private:
    const BucketBoundaries m_bounds;
    std::unique_ptr<std::atomic<std::uint64_t>[]> m_counts; // one per bound, plus +Inf
    std::atomic<double> m_sum {0.0};
};

// `count` bounds: start, start*factor, start*factor^2, ...
QCM_SDK_EXPORT BucketBoundaries exponentialBuckets(double start, double factor, int count);
// `count` bounds: start, start+width, start+2*width, ...
QCM_SDK_EXPORT BucketBoundaries linearBuckets(double start, double width, int count);

} // namespace qcm::metrics
