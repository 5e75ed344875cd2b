// SPDX-License-Identifier: Apache-2.0
// Registry: the metric families and collectors of one process (prometheus-cpp's Registry).
//
// Families are created through the registry (or the builders in builder.h) and owned by it.
// Registering a name again with the same type and help returns the existing family, so that
// several users can share one; any other clash throws std::invalid_argument with both
// definitions in the message. collect() returns every family sorted by name, ready for
// TextSerializer.
//
// Thread safety: every method is safe from any thread.
#pragma once

#include <qcm/metrics/counter.h>
#include <qcm/metrics/family.h>
#include <qcm/metrics/gauge.h>
#include <qcm/metrics/histogram.h>

#include <functional>

namespace qcm::metrics {

class QCM_SDK_EXPORT Registry
{
public:
    Registry();
    ~Registry();
    Q_DISABLE_COPY_MOVE(Registry)

    template<typename T>
    Family<T> &add(const QString &name, const QString &help, const Labels &constantLabels = {})
    {
        return static_cast<Family<T> &>(addFamily(name, help, T::Type, [&] {
            return std::unique_ptr<Collectable>(new Family<T>(name, help, constantLabels));
        }));
    }

    // Adds a custom collector, such as process metrics. The registry shares ownership.
    void registerCollectable(std::shared_ptr<Collectable> collectable);
    bool removeCollectable(const Collectable *collectable);

    std::vector<MetricFamily> collect() const;

private:
    Collectable &addFamily(const QString &name, const QString &help, MetricType type,
        const std::function<std::unique_ptr<Collectable>()> &make);

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::metrics
