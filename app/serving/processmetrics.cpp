// SPDX-License-Identifier: Apache-2.0
#include "serving/processmetrics.h"

#include "logging.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QList>

#include <atomic>
#include <limits>

#include <sys/resource.h>
#include <unistd.h>

namespace qcm::host {

using metrics::MetricFamily;
using metrics::MetricType;

namespace {

std::optional<QByteArray> readFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    return file.readAll(); // /proc files report size 0: read until the end
}

// Logs each kind of failure once, so that a broken /proc does not flood the log.
void warnOnce(std::atomic<bool> &warned, const QString &message)
{
    if (!warned.exchange(true))
        qCWarning(lcHost).noquote() << message;
}

std::atomic<bool> g_statWarned {false};
std::atomic<bool> g_fdWarned {false};

void add(std::vector<MetricFamily> &out, const char *name, const char *help, MetricType type,
    double value)
{
    MetricFamily family {QLatin1String(name), QLatin1String(help), type, {}};
    metrics::ClientMetric sample;
    sample.value = value;
    family.metrics.push_back(sample);
    out.push_back(std::move(family));
}

// client_golang reports an unlimited rlimit as the largest uint64.
double limitValue(rlim_t limit)
{
    if (limit == RLIM_INFINITY)
        return double(std::numeric_limits<quint64>::max());
    return double(limit);
}

} // namespace

ProcessMetrics::ProcessMetrics(QString procDir, QString procRoot)
    : m_procDir(std::move(procDir)), m_procRoot(std::move(procRoot))
{ }

std::optional<ProcessMetrics::Stat> ProcessMetrics::parseStat(const QByteArray &stat)
{
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so the fields are
    // counted from the last ')'. After it, field 3 (state) is index 0; utime is field 14,
    // stime 15, starttime 22, vsize 23, rss 24 (proc(5)).
    const int close = stat.lastIndexOf(')');
    if (close < 0)
        return std::nullopt;
    const QList<QByteArray> fields = stat.mid(close + 1).simplified().split(' ');
    if (fields.size() < 22)
        return std::nullopt;
    auto field = [&](int number, double &out) {
        bool ok = false;
        out = fields.at(number - 3).toDouble(&ok);
        return ok;
    };
    Stat s;
    if (!field(14, s.utimeTicks) || !field(15, s.stimeTicks) || !field(22, s.startTimeTicks)
        || !field(23, s.virtualBytes) || !field(24, s.residentPages))
        return std::nullopt;
    return s;
}

std::optional<double> ProcessMetrics::parseBootTime(const QByteArray &procStat)
{
    for (const QByteArray &line : procStat.split('\n')) {
        if (!line.startsWith("btime "))
            continue;
        bool ok = false;
        const double value = line.mid(6).trimmed().toDouble(&ok);
        if (ok)
            return value;
    }
    return std::nullopt;
}

std::vector<MetricFamily> ProcessMetrics::collect() const
{
    std::vector<MetricFamily> out;
    const double ticks = double(::sysconf(_SC_CLK_TCK));
    const double pageSize = double(::sysconf(_SC_PAGESIZE));

    const std::optional<QByteArray> statText = readFile(m_procDir + QStringLiteral("/stat"));
    const std::optional<Stat> stat = statText ? parseStat(*statText) : std::nullopt;
    if (stat && ticks > 0) {
        add(out, "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
            MetricType::Counter, (stat->utimeTicks + stat->stimeTicks) / ticks);
        add(out, "process_virtual_memory_bytes", "Virtual memory size in bytes.", MetricType::Gauge,
            stat->virtualBytes);
        add(out, "process_resident_memory_bytes", "Resident memory size in bytes.",
            MetricType::Gauge, stat->residentPages * pageSize);
        const std::optional<QByteArray> procStat = readFile(m_procRoot + QStringLiteral("/stat"));
        if (const std::optional<double> boot = procStat ? parseBootTime(*procStat) : std::nullopt)
            add(out, "process_start_time_seconds",
                "Start time of the process since unix epoch in seconds.", MetricType::Gauge,
                *boot + stat->startTimeTicks / ticks);
    } else {
        warnOnce(g_statWarned,
            QStringLiteral("process metrics: cannot read or parse %1/stat; CPU, memory and "
                           "start time are left out of /metrics")
                .arg(m_procDir));
    }

    const QDir fds(m_procDir + QStringLiteral("/fd"));
    if (fds.exists()) {
        // The directory listing itself holds one descriptor open, which client_golang counts
        // too (it reads the directory the same way).
        add(out, "process_open_fds", "Number of open file descriptors.", MetricType::Gauge,
            double(fds.entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System).size()));
    } else {
        warnOnce(g_fdWarned,
            QStringLiteral("process metrics: cannot list %1/fd; process_open_fds is left out")
                .arg(m_procDir));
    }

    struct rlimit limit = {};
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0)
        add(out, "process_max_fds", "Maximum number of open file descriptors.", MetricType::Gauge,
            limitValue(limit.rlim_cur));
    if (::getrlimit(RLIMIT_AS, &limit) == 0)
        add(out, "process_virtual_memory_max_bytes",
            "Maximum amount of virtual memory available in bytes.", MetricType::Gauge,
            limitValue(limit.rlim_cur));
    return out;
}

} // namespace qcm::host
