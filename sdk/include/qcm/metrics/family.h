// SPDX-License-Identifier: Apache-2.0
// Family<T>: the labelled series of one metric (prometheus-cpp's Family).
//
// add(labels) returns the series for those labels, creating it on first use; the reference
// stays valid until remove() or the family's destruction. Hot paths keep the reference and
// never look it up again.
//
// Thread safety: every method is safe from any thread; add() and remove() take a lock.
#pragma once

#include <qcm/metrics/collectable.h>

#include <memory>
#include <mutex>

namespace qcm::metrics {

namespace detail {
// Throw std::invalid_argument naming the offending name and the rule it breaks.
QCM_SDK_EXPORT void checkMetricName(const QString &name);
QCM_SDK_EXPORT void checkLabelNames(const Labels &labels, const QString &metricName);
} // namespace detail

template<typename T>
class Family : public Collectable
{
public:
    Family(const QString &name, const QString &help, Labels constantLabels = {})
        : m_name(name), m_help(help), m_constantLabels(std::move(constantLabels))
    {
        detail::checkMetricName(name);
        detail::checkLabelNames(m_constantLabels, name);
    }
    Q_DISABLE_COPY_MOVE(Family)

    // The series for `labels`; `args` construct it the first time (a Histogram's buckets).
    template<typename... Args>
    T &add(const Labels &labels, Args &&...args)
    {
        std::lock_guard lock(m_mutex);
        auto it = m_metrics.find(labels);
        if (it == m_metrics.end()) {
            detail::checkLabelNames(labels, m_name);
            it = m_metrics.emplace(labels, std::make_unique<T>(std::forward<Args>(args)...)).first;
        }
        return *it->second;
    }

    // Removes a series; references to it become dangling.
    void remove(const T *metric)
    {
        std::lock_guard lock(m_mutex);
        for (auto it = m_metrics.begin(); it != m_metrics.end(); ++it) {
            if (it->second.get() == metric) {
                m_metrics.erase(it);
                return;
            }
        }
    }

    bool has(const Labels &labels) const
    {
        std::lock_guard lock(m_mutex);
        return m_metrics.count(labels) != 0;
    }

    const QString &name() const { return m_name; }
    const QString &help() const { return m_help; }

    std::vector<MetricFamily> collect() const override
    {
        MetricFamily family {m_name, m_help, T::Type, {}};
        std::lock_guard lock(m_mutex);
        family.metrics.reserve(m_metrics.size());
        for (const auto &[labels, metric] : m_metrics) {
            ClientMetric sample = metric->collect();
            sample.labels = labels;
            sample.labels.insert(m_constantLabels.begin(), m_constantLabels.end());
            family.metrics.push_back(std::move(sample));
        }
        return {std::move(family)};
    }

private:
    const QString m_name;
    const QString m_help;
    const Labels m_constantLabels;
    mutable std::mutex m_mutex;
    std::map<Labels, std::unique_ptr<T>> m_metrics; // guarded by m_mutex
};

} // namespace qcm::metrics
