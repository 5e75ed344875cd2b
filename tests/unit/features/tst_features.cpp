// SPDX-License-Identifier: Apache-2.0
// Client feature gates: Go's ParseBool reading, client-go's defaults, and the environment
// override, which this process sets before the first read (the gates are read once).
#include <qcm/cache/sharedindexinformer.h>
#include <qcm/features/features.h>

#include <QtTest/QtTest>

using namespace qcm;

class tst_Features : public QObject
{
    Q_OBJECT

private slots:
    void parseBool_data();
    void parseBool();
    void environmentTurnsWatchListOff();
};

void tst_Features::parseBool_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("value"); // 1, 0, or -1 for not a boolean
    for (const char *yes : {"1", "t", "T", "TRUE", "true", "True"})
        QTest::newRow(yes) << QByteArray(yes) << 1;
    for (const char *no : {"0", "f", "F", "FALSE", "false", "False"})
        QTest::newRow(no) << QByteArray(no) << 0;
    for (const char *neither : {"", "yes", "on", "tRUE", " true", "2", "off"})
        QTest::newRow(neither[0] ? neither : "empty") << QByteArray(neither) << -1;
}

void tst_Features::parseBool()
{
    QFETCH(QByteArray, text);
    QFETCH(int, value);
    const std::optional<bool> read = features::detail::parseBool(text);
    QCOMPARE(read.has_value(), value >= 0);
    if (read)
        QCOMPARE(int(*read), value);
}

void tst_Features::environmentTurnsWatchListOff()
{
    // main() set KUBE_FEATURE_WatchListClient=false before anything read the gates.
    QCOMPARE(features::name(features::Feature::WatchListClient), QLatin1String("WatchListClient"));
    QVERIFY(!features::enabled(features::Feature::WatchListClient));
    QVERIFY(!cache::Reflector::Options().useWatchList);
    QVERIFY(!cache::SharedIndexInformer::Options().useWatchList);
    // Read once: a later change of the environment does not move it.
    qputenv("KUBE_FEATURE_WatchListClient", "true");
    QVERIFY(!features::enabled(features::Feature::WatchListClient));
}

int main(int argc, char **argv)
{
    qputenv("KUBE_FEATURE_WatchListClient", "False");
    QCoreApplication app(argc, argv);
    tst_Features test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_features.moc"
