// SPDX-License-Identifier: Apache-2.0
// TextSerializer: writes metric families in the Prometheus text exposition format 0.0.4.
//
// Output is checked by `promtool check metrics` in the tests.
//
// Thread safety: stateless; safe from any thread.
#pragma once

#include <qcm/metrics/metricfamily.h>

#include <QtCore/QByteArray>

namespace qcm::metrics {

class QCM_SDK_EXPORT TextSerializer
{
public:
    // The Content-Type of the output, for /metrics.
    static constexpr const char *ContentType = "text/plain; version=0.0.4; charset=utf-8";

    static QByteArray serialize(const std::vector<MetricFamily> &families);
    // A sample value as Prometheus writes it: shortest round-trip form, +Inf, -Inf, NaN.
    static QByteArray formatValue(double value);
};

} // namespace qcm::metrics
