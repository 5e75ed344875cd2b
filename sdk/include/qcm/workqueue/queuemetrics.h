// SPDX-License-Identifier: Apache-2.0
// QueueMetrics: the bookkeeping behind a named queue's metrics (client-go's defaultQueueMetrics).
//
// Not used directly by plugins. Update rules, as in client-go:
//   add  (an item becomes dirty): adds +1, depth +1, remember when add() was first called;
//   get:  depth -1, observe queue_duration since the first add, remember when processing began;
//   done: observe work_duration since processing began;
//   every 500 ms: unfinished_work_seconds = sum of in-flight ages, longest_running = the oldest.
// The times are kept in ItemTables under the hash the queue already computed for the item
// (ItemTable::hashOf, or the 32 bits an entry stores), so an add, get or done hashes nothing
// and reads one key: with QHash each took two or three of Qt's seeded hashes, ~105 ns each for
// a short key on an AVX-512 VAES CPU (RESULTS.md runs 20 and 27).
//
// Thread safety: none of its own. The owning queue calls it with its lock held.
#pragma once

#include <qcm/detail/itemtable.h>
#include <qcm/workqueue/queueconfig.h>

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

    // `addedAt`: when add() was called, which may be before the queue applied it. `hash`: the
    // item's, as the queue's table has it.
    void add(const T &item, size_t hash, TimePoint addedAt)
    {
        m_adds->inc();
        m_depth->inc();
        bool created = false;
        const int e = m_addTimes.findOrInsert(item, hash, &created);
        if (created)
            m_addTimes.entry(e).value = addedAt;
    }

    TimePoint now() const { return m_clock->now(); }

    void get(const T &item, size_t hash)
    {
        m_depth->dec();
        const TimePoint now = m_clock->now();
        m_processingStartTimes.entry(m_processingStartTimes.findOrInsert(item, hash)).value = now;
        if (const int e = m_addTimes.find(item, hash); e >= 0) {
            m_latency->observe(seconds(now - m_addTimes.entry(e).value));
            m_addTimes.erase(e);
        }
    }

    void done(const T &item, size_t hash)
    {
        if (const int e = m_processingStartTimes.find(item, hash); e >= 0) {
            m_workDuration->observe(seconds(m_clock->since(m_processingStartTimes.entry(e).value)));
            m_processingStartTimes.erase(e);
        }
    }

    void updateUnfinishedWork()
    {
        const TimePoint now = m_clock->now();
        double total = 0;
        double oldest = 0;
        m_processingStartTimes.forEach([&](const typename Times::Entry &entry) {
            const double age = seconds(now - entry.value);
            total += age;
            oldest = std::max(oldest, age);
        });
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
    using Times = qcm::detail::ItemTable<T, TimePoint>;
    Times m_addTimes;
    Times m_processingStartTimes;
};

} // namespace qcm::workqueue::detail
