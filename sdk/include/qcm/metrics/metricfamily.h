// SPDX-License-Identifier: Apache-2.0
// MetricFamily: a snapshot of one metric family, as collected for exposition.
//
// Plain data, made by Registry::collect() and written by TextSerializer. Custom collectors
// (Collectable) produce it too.
#pragma once

#include <qcm/global.h>

#include <QtCore/QString>

#include <cstdint>
#include <map>
#include <vector>

namespace qcm::metrics {

using Labels = std::map<QString, QString>;

enum class MetricType { Counter, Gauge, Histogram };

// "counter", "gauge" or "histogram", as in the # TYPE line.
QCM_SDK_EXPORT const char *metricTypeName(MetricType type);

struct HistogramBucket
{
    double upperBound; // +infinity for the last bucket
    std::uint64_t cumulativeCount;
};

// One labelled series. `value` is used by counters and gauges; histograms use the rest.
struct ClientMetric
{
    Labels labels;
    double value = 0;
    std::vector<HistogramBucket> buckets;
    double sum = 0;
    std::uint64_t count = 0;
};

struct MetricFamily
{
    QString name;
    QString help;
    MetricType type = MetricType::Counter;
    std::vector<ClientMetric> metrics;
};

} // namespace qcm::metrics
