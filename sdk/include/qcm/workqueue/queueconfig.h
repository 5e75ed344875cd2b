// SPDX-License-Identifier: Apache-2.0
// QueueConfig: the injection seams of every work queue (client-go's TypedQueueConfig).
//
// Plain data; copy it freely.
#pragma once

#include <qcm/clock.h>
#include <qcm/workqueue/metricsprovider.h>

#include <QtCore/QString>

namespace qcm::workqueue {

struct QueueConfig
{
    // The queue's name: the `name` label of its metrics. Empty records no metrics.
    QString name;
    // Where a named queue gets its metrics; null means the global provider.
    MetricsProvider *metricsProvider = nullptr;
    // The time source; null means Clock::system(). Tests pass a FakeClock.
    Clock *clock = nullptr;
};

} // namespace qcm::workqueue

namespace qcm::workqueue {

// The provider a queue with this config records to, or null when it records nothing: the
// name is empty, or no provider was given and the global one is the no-op default.
QCM_SDK_EXPORT MetricsProvider *effectiveProvider(const QueueConfig &config);

} // namespace qcm::workqueue
