// SPDX-License-Identifier: Apache-2.0
// RetryMetrics: the workqueue_retries_total counter of one named queue.
//
// Thread safety: retry() is safe from any thread.
#pragma once

#include <qcm/workqueue/queueconfig.h>

namespace qcm::workqueue {

class QCM_SDK_EXPORT RetryMetrics
{
public:
    explicit RetryMetrics(const QueueConfig &config);
    ~RetryMetrics();
    void retry();

private:
    std::unique_ptr<CounterMetric> m_retries; // null: no metrics
};

} // namespace qcm::workqueue
