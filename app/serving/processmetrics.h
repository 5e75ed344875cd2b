// SPDX-License-Identifier: Apache-2.0
// ProcessMetrics: the standard Prometheus process metrics of this process, under the names
// and help texts of client_golang's process collector (what kube-controller-manager serves):
//
//   process_cpu_seconds_total          counter  user + system CPU time
//   process_open_fds                   gauge    open file descriptors
//   process_max_fds                    gauge    RLIMIT_NOFILE (soft)
//   process_virtual_memory_bytes       gauge    virtual memory size
//   process_virtual_memory_max_bytes   gauge    RLIMIT_AS (soft; 2^64-1 when unlimited)
//   process_resident_memory_bytes      gauge    resident set size
//   process_start_time_seconds         gauge    start time, seconds since the Unix epoch
//
// They are read from /proc at each collect(), so a scrape always sees current values. A value
// that cannot be read is left out of that scrape (and logged once), never reported as 0.
//
// Thread safety: collect() is safe from any thread.
#pragma once

#include <qcm/metrics/collectable.h>

#include <QtCore/QByteArray>

#include <optional>

namespace qcm::host {

class ProcessMetrics : public metrics::Collectable
{
public:
    // `procDir` is /proc/self; tests point it at a fake one (`procRoot` holds its "stat").
    explicit ProcessMetrics(
        QString procDir = QStringLiteral("/proc/self"), QString procRoot = QStringLiteral("/proc"));

    std::vector<metrics::MetricFamily> collect() const override;

    // The fields of /proc/<pid>/stat the metrics use, or nothing if `stat` is malformed.
    struct Stat
    {
        double utimeTicks = 0;
        double stimeTicks = 0;
        double startTimeTicks = 0;
        double virtualBytes = 0;
        double residentPages = 0;
    };
    static std::optional<Stat> parseStat(const QByteArray &stat);
    // "btime" of /proc/stat: the boot time in seconds since the epoch.
    static std::optional<double> parseBootTime(const QByteArray &procStat);

private:
    const QString m_procDir;
    const QString m_procRoot;
};

} // namespace qcm::host
