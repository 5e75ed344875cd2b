// SPDX-License-Identifier: Apache-2.0
// Go's time.ParseDuration and Duration.String, against the cases of Go's own time_test.go.
#include "config/duration.h"

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::host;
using namespace std::chrono;

Q_DECLARE_METATYPE(qcm::Duration)

class tst_Duration : public QObject
{
    Q_OBJECT

private slots:
    void parse_data();
    void parse();
    void parseErrors_data();
    void parseErrors();
    void format_data();
    void format();
};

void tst_Duration::parse_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<Duration>("want");
    auto row = [](const char *text, Duration want) {
        QTest::newRow(text) << QString::fromUtf8(text) << want;
    };
    row("0", 0s);
    row("5s", 5s);
    row("30s", 30s);
    row("1478s", 1478s);
    row("-5s", -5s);
    row("+5s", 5s);
    row("-0", 0s);
    row("+0", 0s);
    row("5.0s", 5s);
    row("5.6s", 5s + 600ms);
    row("5.s", 5s);
    row(".5s", 500ms);
    row("1.0s", 1s);
    row("1.00s", 1s);
    row("1.004s", 1s + 4ms);
    row("1.0040s", 1s + 4ms);
    row("100.00100s", 100s + 1ms);
    row("10ns", 10ns);
    row("11us", 11us);
    row("12\u00b5s", 12us);
    row("12\u03bcs", 12us);
    row("13ms", 13ms);
    row("14s", 14s);
    row("15m", 15min);
    row("16h", 16h);
    row("3h30m", 3h + 30min);
    row("10.5s4m", 4min + 10s + 500ms);
    row("-2m3.4s", -(2min + 3s + 400ms));
    row("1h2m3s4ms5us6ns", 1h + 2min + 3s + 4ms + 5us + 6ns);
    row("39h9m14.425s", 39h + 9min + 14s + 425ms);
    row("52763797000ns", 52763797000ns);
    row("0.3333333333333333333h", 20min);
    row("9007199254740993ns", Duration((qint64(1) << 53) + 1));
    row("9223372036854775807ns", Duration(std::numeric_limits<qint64>::max()));
    row("9223372036854775.807us", Duration(std::numeric_limits<qint64>::max()));
    row("9223372036s854ms775us807ns", Duration(std::numeric_limits<qint64>::max()));
    row("-9223372036854775808ns", Duration(std::numeric_limits<qint64>::min()));
    row("-9223372036854775.808us", Duration(std::numeric_limits<qint64>::min()));
    row("-9223372036s854ms775us808ns", Duration(std::numeric_limits<qint64>::min()));
    row("-2562047h47m16.854775808s", Duration(std::numeric_limits<qint64>::min()));
    row("0.100000000000000000000h", 6min);
    row("0.830103483285477580700h", 49min + 48s + 372539827ns);
}

void tst_Duration::parse()
{
    QFETCH(QString, text);
    QFETCH(Duration, want);
    const Result<Duration> got = parseDuration(text);
    QVERIFY2(got.ok(), qPrintable(got.ok() ? QString() : got.error().reason));
    QCOMPARE(got->count(), want.count());
}

void tst_Duration::parseErrors_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("reason");
    QTest::newRow("empty") << QString() << QStringLiteral("invalid duration \"\"");
    QTest::newRow("3") << QStringLiteral("3") << QStringLiteral("missing unit in duration \"3\"");
    QTest::newRow("-") << QStringLiteral("-") << QStringLiteral("invalid duration \"-\"");
    QTest::newRow("s") << QStringLiteral("s") << QStringLiteral("invalid duration \"s\"");
    QTest::newRow(".") << QStringLiteral(".") << QStringLiteral("invalid duration \".\"");
    QTest::newRow("-.") << QStringLiteral("-.") << QStringLiteral("invalid duration \"-.\"");
    QTest::newRow(".s") << QStringLiteral(".s") << QStringLiteral("invalid duration \".s\"");
    QTest::newRow("+.s") << QStringLiteral("+.s") << QStringLiteral("invalid duration \"+.s\"");
    QTest::newRow("1d") << QStringLiteral("1d")
                        << QStringLiteral("unknown unit \"d\" in duration \"1d\"");
    QTest::newRow("10 s") << QStringLiteral("10 s")
                          << QStringLiteral("unknown unit \" s\" in duration \"10 s\"");
    QTest::newRow("overflow") << QStringLiteral("9223372036854775808ns")
                              << QStringLiteral("invalid duration \"9223372036854775808ns\"");
    QTest::newRow("overflow fraction")
        << QStringLiteral("9223372036854775.808us") << QStringLiteral("invalid duration");
    QTest::newRow("overflow sum") << QStringLiteral("9223372036854ms775us808ns")
                                  << QStringLiteral("invalid duration");
    QTest::newRow("negative overflow")
        << QStringLiteral("-9223372036854775809ns") << QStringLiteral("invalid duration");
}

void tst_Duration::parseErrors()
{
    QFETCH(QString, text);
    QFETCH(QString, reason);
    const Result<Duration> got = parseDuration(text);
    QVERIFY(!got.ok());
    QVERIFY2(got.error().reason.startsWith(reason), qPrintable(got.error().reason));
    // Every message shows the right form.
    QVERIFY2(got.error().reason.contains(QLatin1String("1m30s")), qPrintable(got.error().reason));
}

void tst_Duration::format_data()
{
    QTest::addColumn<Duration>("duration");
    QTest::addColumn<QString>("want");
    auto row
        = [](Duration d, const char *want) { QTest::newRow(want) << d << QString::fromUtf8(want); };
    row(0s, "0s");
    row(1ns, "1ns");
    row(1100ns, "1.1\u00b5s");
    row(2200us, "2.2ms");
    row(3300ms, "3.3s");
    row(4min + 5s, "4m5s");
    row(4min + 5001ms, "4m5.001s");
    row(5h + 6min + 7001ms, "5h6m7.001s");
    row(8min + 1ns, "8m0.000000001s");
    row(Duration(std::numeric_limits<qint64>::max()), "2562047h47m16.854775807s");
    row(Duration(std::numeric_limits<qint64>::min()), "-2562047h47m16.854775808s");
    row(12h, "12h0m0s");
    row(15s, "15s");
}

void tst_Duration::format()
{
    QFETCH(Duration, duration);
    QFETCH(QString, want);
    QCOMPARE(formatDuration(duration), want);
    if (duration.count() != std::numeric_limits<qint64>::min()) {
        const Result<Duration> back = parseDuration(want);
        QVERIFY(back.ok());
        QCOMPARE(back->count(), duration.count());
    }
}

QTEST_APPLESS_MAIN(tst_Duration)
#include "tst_duration.moc"
