// SPDX-License-Identifier: Apache-2.0
// Crash records and the quarantine they decide: records are read from their names and bodies
// (a file that is not one is skipped with a warning), counted per controller within the
// window at the given time, and a controller at the limit is quarantined with a reason that
// says how often, the last signal and time, and how to lift it; a limit of zero quarantines
// nothing. The records themselves are written by the real binary in e2e_host_quarantine.
#include "watchdog/crashrecorder.h"
#include "watchdog/crashrecords.h"

#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <sys/stat.h>

using namespace qcm;
using namespace qcm::host;
using namespace std::chrono_literals;

class tst_Quarantine : public QObject
{
    Q_OBJECT

private slots:
    void readsRecords();
    void quarantineAtTheLimitWithinTheWindow();
    void limitZeroQuarantinesNothing();
    void installMakesThePrivateDirectory();

private:
    void write(const QString &dir, const QString &name, const QByteArray &body);
};

void tst_Quarantine::write(const QString &dir, const QString &name, const QByteArray &body)
{
    QFile f(dir + QLatin1Char('/') + name);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(body);
}

void tst_Quarantine::readsRecords()
{
    QTemporaryDir dir;
    write(dir.path(), QStringLiteral("web.1795700000.42"),
        "controller web\nsignal 11\ntime 1795700000\npid 42\n");
    write(dir.path(), QStringLiteral("web.1795690000.41"), "controller web\nsignal 6\n");
    write(dir.path(), QStringLiteral("jobs.1795695000.40"), "");
    QTest::ignoreMessage(QtWarningMsg,
        qPrintable(QStringLiteral("%1/notes.txt: not a crash record (<controller>.<unix "
                                  "seconds>.<pid>); skipped")
                       .arg(dir.path())));
    write(dir.path(), QStringLiteral("notes.txt"), "hello");
    const QList<CrashRecord> records = readCrashRecords(dir.path());
    QCOMPARE(records.size(), 3);
    // Oldest first.
    QCOMPARE(records.at(0).controller, QStringLiteral("web"));
    QCOMPARE(records.at(0).time, 1795690000);
    QCOMPARE(records.at(0).signal, 6);
    QCOMPARE(records.at(1).controller, QStringLiteral("jobs"));
    QCOMPARE(records.at(1).signal, 0);
    QCOMPARE(records.at(2).signal, 11);
    QCOMPARE(records.at(2).file, dir.path() + QStringLiteral("/web.1795700000.42"));
    QVERIFY(readCrashRecords(dir.path() + QStringLiteral("/none")).isEmpty());
}

void tst_Quarantine::quarantineAtTheLimitWithinTheWindow()
{
    const qint64 now = 1795700000;
    const QList<CrashRecord> records {
        {QStringLiteral("web"), now - 900, 11, {}}, // outside a 10m window
        {QStringLiteral("web"), now - 500, 11, {}},
        {QStringLiteral("web"), now - 300, 11, {}},
        {QStringLiteral("jobs"), now - 200, 6, {}},
        {QStringLiteral("jobs"), now - 100, 6, {}},
        {QStringLiteral("jobs"), now - 5, 6, {}},
    };
    const QMap<QString, QString> q
        = quarantinedControllers(records, 3, 10min, now, QStringLiteral("/var/lib/qcm/crashes"));
    QCOMPARE(q.keys(), QStringList {QStringLiteral("jobs")}); // web: 2 within the window
    QCOMPARE(q.value(QStringLiteral("jobs")),
        QStringLiteral("its plugin code crashed qcm 3 times in the last 10m0s (the last: SIGABRT "
                       "at 2026-11-26T13:33:15Z); remove /var/lib/qcm/crashes/jobs.* (or raise "
                       "watchdog.quarantineCrashLimit) and restart qcm to run it again"));
    // A wider window counts web's third crash too.
    QCOMPARE(quarantinedControllers(records, 3, 20min, now, {}).keys(),
        QStringList({QStringLiteral("jobs"), QStringLiteral("web")}));
    // A higher limit lifts both.
    QVERIFY(quarantinedControllers(records, 4, 20min, now, {}).isEmpty());
}

void tst_Quarantine::limitZeroQuarantinesNothing()
{
    const QList<CrashRecord> records(10, CrashRecord {QStringLiteral("web"), 100, 11, {}});
    QVERIFY(quarantinedControllers(records, 0, 10min, 100, {}).isEmpty());
    QCOMPARE(quarantinedControllers(records, 1, 10min, 100, {}).size(), 1);
}

void tst_Quarantine::installMakesThePrivateDirectory()
{
    QTemporaryDir state;
    const QString dir = CrashRecorder::recordsDir(state.filePath(QStringLiteral("qcm")));
    QCOMPARE(dir, state.filePath(QStringLiteral("qcm/crashes")));
    QVERIFY(!CrashRecorder::install(state.filePath(QStringLiteral("qcm"))));
    struct stat st
    { };
    QCOMPARE(::stat(QFile::encodeName(dir).constData(), &st), 0);
    QCOMPARE(st.st_mode & 07777, mode_t(0700));
    // A state directory that cannot be made is an error naming the flag.
    const std::optional<Error> e = CrashRecorder::install(QStringLiteral("/proc/qcm-state"));
    QVERIFY(e);
    QCOMPARE(
        e->toString(), QStringLiteral("/proc/qcm-state/crashes: --state-dir: cannot be created"));
}

QTEST_GUILESS_MAIN(tst_Quarantine)
#include "tst_quarantine.moc"
