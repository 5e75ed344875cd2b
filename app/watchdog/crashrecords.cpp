// SPDX-License-Identifier: Apache-2.0
#include "watchdog/crashrecords.h"

#include "config/duration.h"
#include "logging.h"

#include <qcm/detail/readatmost.h>

#include <QtCore/QDateTime>
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QRegularExpression>

#include <algorithm>

namespace qcm::host {

namespace {

constexpr qint64 MaxRecordBytes = 4096;

QString signalName(int sig)
{
    switch (sig) {
    case 4:
        return QStringLiteral("SIGILL");
    case 6:
        return QStringLiteral("SIGABRT");
    case 7:
        return QStringLiteral("SIGBUS");
    case 8:
        return QStringLiteral("SIGFPE");
    case 11:
        return QStringLiteral("SIGSEGV");
    default:
        return QStringLiteral("signal %1").arg(sig);
    }
}

} // namespace

std::optional<CrashRecord> parseCrashRecord(const QString &fileName, const QByteArray &body)
{
    static const QRegularExpression name(
        QStringLiteral("^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\\.([0-9]{1,12})\\.([0-9]{1,10})$"));
    const QRegularExpressionMatch m = name.match(fileName);
    if (!m.hasMatch())
        return std::nullopt;
    CrashRecord r {m.captured(1), m.captured(3).toLongLong(), 0, {}};
    for (const QByteArray &line : body.left(MaxRecordBytes).split('\n'))
        if (line.startsWith("signal "))
            r.signal = qBound(0, line.mid(7).toInt(), 255);
    return r;
}

QList<CrashRecord> readCrashRecords(const QString &recordsDir)
{
    QList<CrashRecord> records;
    const QDir dir(recordsDir);
    for (const QString &file : dir.entryList(QDir::Files, QDir::Name)) {
        QByteArray body;
        QFile f(dir.filePath(file));
        if (f.open(QIODevice::ReadOnly)) {
            const Result<QByteArray> read
                = detail::readAtMost(f, MaxRecordBytes, QStringLiteral("the crash record"));
            if (read)
                body = *read;
        }
        std::optional<CrashRecord> r = parseCrashRecord(file, body);
        if (!r) {
            qCWarning(lcHost).noquote()
                << QStringLiteral("%1: not a crash record (<controller>.<unix seconds>.<pid>); "
                                  "skipped")
                       .arg(dir.filePath(file));
            continue;
        }
        r->file = dir.filePath(file);
        records << *r;
    }
    std::stable_sort(records.begin(), records.end(),
        [](const CrashRecord &a, const CrashRecord &b) { return a.time < b.time; });
    return records;
}

QMap<QString, QString> quarantinedControllers(const QList<CrashRecord> &records, int crashLimit,
    Duration window, qint64 now, const QString &recordsDir)
{
    QMap<QString, QString> out;
    if (crashLimit <= 0)
        return out;
    const qint64 windowSeconds = std::chrono::duration_cast<std::chrono::seconds>(window).count();
    QMap<QString, QList<CrashRecord>> recent;
    for (const CrashRecord &r : records)
        if (now - r.time <= windowSeconds)
            recent[r.controller] << r;
    for (auto it = recent.cbegin(); it != recent.cend(); ++it) {
        if (it->size() < crashLimit)
            continue;
        const CrashRecord &last = it->constLast();
        out.insert(it.key(),
            QStringLiteral("its plugin code crashed qcm %1 times in the last %2 (the last: %3 at "
                           "%4); remove %5/%6.* (or raise watchdog.quarantineCrashLimit) and "
                           "restart qcm to run it again")
                .arg(it->size())
                .arg(formatDuration(window),
                    last.signal ? signalName(last.signal) : QStringLiteral("a fatal signal"),
                    QDateTime::fromSecsSinceEpoch(last.time, Qt::UTC).toString(Qt::ISODate),
                    recordsDir, it.key()));
    }
    return out;
}

} // namespace qcm::host
