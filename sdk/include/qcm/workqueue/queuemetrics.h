// SPDX-License-Identifier: Apache-2.0
// QueueMetrics: the bookkeeping behind a named queue's metrics (client-go's defaultQueueMetrics).
//
// Not used directly by plugins. Update rules, as in client-go:
//   add  (an item becomes dirty): adds +1, depth +1, remember when add() was first called;
//   get:  depth -1, observe queue_duration since the first add, remember when processing began;
//   done: observe work_duration since processing began;
//   every 500 ms: unfinished_work_seconds = sum of in-flight ages, longest_running = the oldest.
//
// Thread safety: none of its own. The owning queue calls it with its lock held.
#pragma once

#include <qcm/workqueue/queueconfig.h>

#include <QtCore/QHash>

#include <algorithm>

namespace qcm::workqueue::detail {

template<typename T>
class QueueMetrics
{
public:
    QueueMetrics(MetricsProvider *provider, const QString &name, Clock *clock)
        : m_clock(clock)
        , m_depth(provider->newDepthMetric(name))
        , m_adds(provider->newAddsMetric(name))
        , m_latency(provider->newLatencyMetric(name))
        , m_workDuration(provider->newWorkDurationMetric(name))
        , m_unfinishedWorkSeconds(provider->newUnfinishedWorkSecondsMetric(name))
        , m_longestRunningProcessor(provider->newLongestRunningProcessorSecondsMetric(name))
    { }

    // `addedAt`: when add() was called, which may be before the queue applied it.
    void add(const T &item, TimePoint addedAt)
    {
        m_adds->inc();
        m_depth->inc();
        if (!m_addTimes.contains(item))
            m_addTimes.insert(item, addedAt);
    }

    TimePoint now() const { return m_clock->now(); }

    void get(const T &item)
    {
        m_depth->dec();
        const TimePoint now = m_clock->now();
        m_processingStartTimes.insert(item, now);
        if (auto it = m_addTimes.find(item); it != m_addTimes.end()) {
            m_latency->observe(seconds(now - *it));
            m_addTimes.erase(it);
        }
    }

    void done(const T &item)
    {
        if (auto it = m_processingStartTimes.find(item); it != m_processingStartTimes.end()) {
            m_workDuration->observe(seconds(m_clock->since(*it)));
            m_processingStartTimes.erase(it);
        }
    }

    void updateUnfinishedWork()
    {
        const TimePoint now = m_clock->now();
        double total = 0;
        double oldest = 0;
        for (const TimePoint &start : std::as_const(m_processingStartTimes)) {
            const double age = seconds(now - start);
            total += age;
            oldest = std::max(oldest, age);
        }
        m_unfinishedWorkSeconds->set(total);
        m_longestRunningProcessor->set(oldest);
    }

private:
    static double seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

    Clock *m_clock;
    std::unique_ptr<GaugeMetric> m_depth;
    std::unique_ptr<CounterMetric> m_adds;
    std::unique_ptr<HistogramMetric> m_latency;
    std::unique_ptr<HistogramMetric> m_workDuration;
    std::unique_ptr<SettableGaugeMetric> m_unfinishedWorkSeconds;
    std::unique_ptr<SettableGaugeMetric> m_longestRunningProcessor;
    QHash<T, TimePoint> m_addTimes;
    QHash<T, TimePoint> m_processingStartTimes;
};

} // namespace qcm::workqueue::detail
