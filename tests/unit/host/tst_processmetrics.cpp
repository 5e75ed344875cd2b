// SPDX-License-Identifier: Apache-2.0
// The process metrics: /proc/<pid>/stat parsed by field position after the command name
// (which may hold spaces and parentheses), values of this very process that make sense, and
// a broken /proc leaving out what it cannot read instead of reporting zeros.
#include "serving/processmetrics.h"

#include <qcm/metrics/textserializer.h>

#include <QtCore/QDateTime>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <ctime>

#include <unistd.h>

using namespace qcm;
using namespace qcm::host;

class tst_ProcessMetrics : public QObject
{
    Q_OBJECT

private slots:
    void parseStat();
    void parseStatRejectsGarbage();
    void parseBootTime();
    void valuesOfThisProcess();
    void brokenProcLeavesValuesOut();
};

namespace {

std::map<QString, metrics::MetricFamily> byName(const std::vector<metrics::MetricFamily> &families)
{
    std::map<QString, metrics::MetricFamily> out;
    for (const auto &f : families)
        out.emplace(f.name, f);
    return out;
}

double valueOf(const std::map<QString, metrics::MetricFamily> &families, const char *name)
{
    const auto it = families.find(QLatin1String(name));
    if (it == families.end() || it->second.metrics.size() != 1)
        qFatal("no single sample for %s", name);
    return it->second.metrics.front().value;
}

} // namespace

void tst_ProcessMetrics::parseStat()
{
    // A command name with spaces and a ')' of its own: fields count from the last ')'.
    const QByteArray stat = "4242 (qcm (test) x) S 1 4242 4242 0 -1 4194560 1000 0 0 0 "
                            "150 50 0 0 20 0 7 0 123456 987654321 2500 18446744073709551615\n";
    const auto s = ProcessMetrics::parseStat(stat);
    QVERIFY(s);
    QCOMPARE(s->utimeTicks, 150.0);
    QCOMPARE(s->stimeTicks, 50.0);
    QCOMPARE(s->startTimeTicks, 123456.0);
    QCOMPARE(s->virtualBytes, 987654321.0);
    QCOMPARE(s->residentPages, 2500.0);
}

void tst_ProcessMetrics::parseStatRejectsGarbage()
{
    QVERIFY(!ProcessMetrics::parseStat("no parenthesis at all"));
    QVERIFY(!ProcessMetrics::parseStat("1 (short) S 1 2 3"));
    QVERIFY(!ProcessMetrics::parseStat("1 (x) S 1 1 1 0 -1 0 0 0 0 0 abc 50 0 0 20 0 7 0 1 2 3"));
}

void tst_ProcessMetrics::parseBootTime()
{
    QCOMPARE(ProcessMetrics::parseBootTime("cpu  1 2 3\nintr 5\nbtime 1700000000\nprocesses 9\n"),
        std::optional<double>(1700000000));
    QCOMPARE(ProcessMetrics::parseBootTime("cpu 1 2 3\n"), std::nullopt);
}

void tst_ProcessMetrics::valuesOfThisProcess()
{
    // Burn a little CPU so that the counter has something to count: 30 ms of CPU time, not of
    // wall time, which on a loaded machine may hold less than the kernel's 10 ms tick.
    QElapsedTimer busy;
    busy.start();
    const std::clock_t cpuStart = std::clock();
    volatile double sink = 0;
    while (std::clock() - cpuStart < CLOCKS_PER_SEC * 3 / 100 && busy.elapsed() < 10000)
        sink = sink + 1.0;

    const auto families = byName(ProcessMetrics().collect());
    QCOMPARE(families.size(), std::size_t(7));
    QCOMPARE(families.at(QStringLiteral("process_cpu_seconds_total")).type,
        metrics::MetricType::Counter);
    QVERIFY(valueOf(families, "process_cpu_seconds_total") > 0);
    const double rss = valueOf(families, "process_resident_memory_bytes");
    QVERIFY2(rss > 1e6 && rss < 4e9, qPrintable(QString::number(rss)));
    QVERIFY(valueOf(families, "process_virtual_memory_bytes") >= rss);
    const double fds = valueOf(families, "process_open_fds");
    QVERIFY2(fds >= 3 && fds < 1000, qPrintable(QString::number(fds)));
    QVERIFY(valueOf(families, "process_max_fds") >= fds);
    QVERIFY(valueOf(families, "process_virtual_memory_max_bytes") > 0);
    // Started within the last hour (the test has just started), not in the future.
    const double now = double(QDateTime::currentMSecsSinceEpoch()) / 1000;
    const double start = valueOf(families, "process_start_time_seconds");
    QVERIFY2(start <= now + 1 && start > now - 3600,
        qPrintable(QStringLiteral("start %1, now %2").arg(start, 0, 'f', 2).arg(now, 0, 'f', 2)));

    // One more open descriptor shows up.
    QTemporaryFile file;
    QVERIFY(file.open());
    const auto after = byName(ProcessMetrics().collect());
    QCOMPARE(valueOf(after, "process_open_fds"), fds + 1);
}

void tst_ProcessMetrics::brokenProcLeavesValuesOut()
{
    QTemporaryDir proc;
    QVERIFY(QDir().mkpath(proc.filePath(QStringLiteral("self/fd"))));
    QFile stat(proc.filePath(QStringLiteral("self/stat")));
    QVERIFY(stat.open(QIODevice::WriteOnly));
    stat.write("garbage");
    stat.close();
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("cannot read or parse")));
    const auto families
        = byName(ProcessMetrics(proc.filePath(QStringLiteral("self")), proc.path()).collect());
    QVERIFY(!families.count(QStringLiteral("process_cpu_seconds_total")));
    QVERIFY(!families.count(QStringLiteral("process_resident_memory_bytes")));
    QVERIFY(!families.count(QStringLiteral("process_start_time_seconds")));
    QCOMPARE(valueOf(families, "process_open_fds"), 0.0); // the fake fd directory is empty
    QVERIFY(families.count(QStringLiteral("process_max_fds")));
}

QTEST_GUILESS_MAIN(tst_ProcessMetrics)
#include "tst_processmetrics.moc"
