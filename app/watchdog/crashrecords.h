// SPDX-License-Identifier: Apache-2.0
// Crash records (written by crashrecorder.h) and the quarantine they decide at start: a
// controller whose plugin code crashed qcm at least `crashLimit` times within `window` (by
// the records' wall-clock times) is quarantined: the host does not load it this run, and says
// why. Older records no longer count; they stay for the operator. A file in the directory
// that is not a record is skipped with a warning.
//
// An operator lifts a quarantine by removing the controller's records
// (<stateDir>/crashes/<controller>.*), or by raising watchdog.quarantineCrashLimit (0 turns
// quarantine off), and restarting qcm.
//
// Thread safety: pure functions.
#pragma once

#include <qcm/clock.h>

#include <QtCore/QMap>
#include <QtCore/QString>

#include <optional>

namespace qcm::host {

struct CrashRecord
{
    QString controller;
    qint64 time = 0; // unix seconds
    int signal = 0;
    QString file;
};

// One record from its file name (<controller>.<unix seconds>.<pid>) and body (its signal
// line); nothing when the name is not a record's. `file` is left empty. Fuzzed by
// tests/fuzz/fuzz_reviews.cpp.
std::optional<CrashRecord> parseCrashRecord(const QString &fileName, const QByteArray &body);

// Every record in `recordsDir`, oldest first.
QList<CrashRecord> readCrashRecords(const QString &recordsDir);

// The quarantined controllers, with the reason, at wall-clock time `now` (unix seconds).
QMap<QString, QString> quarantinedControllers(const QList<CrashRecord> &records, int crashLimit,
    Duration window, qint64 now, const QString &recordsDir);

} // namespace qcm::host
