// SPDX-License-Identifier: Apache-2.0
// Builders for metric families (prometheus-cpp's BuildCounter() and friends):
//
//     auto &reconciles = qcm::metrics::buildCounter()
//                                .name("qcm_reconcile_total")
//                                .help("Reconciles by controller and result.")
//                                .registerIn(registry);
//     reconciles.add({{"controller", "foo"}, {"result", "success"}}).increment();
//
// Thread safety: a builder is a plain value; registerIn() is as safe as Registry::add().
#pragma once

#include <qcm/metrics/registry.h>

namespace qcm::metrics {

template<typename T>
class Builder
{
public:
    Builder &name(const QString &name)
    {
        m_name = name;
        return *this;
    }
    Builder &help(const QString &help)
    {
        m_help = help;
        return *this;
    }
    // Labels every series of the family carries.
    Builder &labels(const Labels &constantLabels)
    {
        m_labels = constantLabels;
        return *this;
    }
    Family<T> &registerIn(Registry &registry) const
    {
        return registry.add<T>(m_name, m_help, m_labels);
    }

private:
    QString m_name;
    QString m_help;
    Labels m_labels;
};

inline Builder<Counter> buildCounter()
{
    return {};
}
inline Builder<Gauge> buildGauge()
{
    return {};
}
inline Builder<Histogram> buildHistogram()
{
    return {};
}

} // namespace qcm::metrics
