// SPDX-License-Identifier: Apache-2.0
// The watchdog with a short stall timeout and real time: plugin code that runs too long on a
// worker makes its controller stalled (the reason, qcm_controller_stalled, the stall counter)
// until it returns; plugin code that blocks the event loop fails the event-loop check, naming
// it, and for one stall timeout after; short work trips nothing; a timeout of zero watches
// nothing. The activities come from ActivityTracker scopes, as the Controller opens them.
#include "watchdog/watchdog.h"

#include <qcm/detail/activitytracker.h>
#include <qcm/metrics/registry.h>
#include <qcm/metrics/textserializer.h>

#include <QtTest/QtTest>

#include <thread>

using namespace qcm;
using namespace qcm::host;
using namespace std::chrono_literals;
using Tracker = qcm::detail::ActivityTracker;

class tst_Watchdog : public QObject
{
    Q_OBJECT

private slots:
    void stalledReconcileOnAWorker();
    void blockedEventLoop();
    void shortWorkTripsNothing();
    void zeroTimeoutWatchesNothing();
    void trackerSnapshot();
};

namespace {

QByteArray metricsOf(const metrics::Registry &registry)
{
    return metrics::TextSerializer::serialize(registry.collect());
}

} // namespace

void tst_Watchdog::stalledReconcileOnAWorker()
{
    metrics::Registry registry;
    Watchdog watchdog(200ms, &registry);
    watchdog.start();
    std::atomic<bool> release {false};
    std::thread worker([&] {
        const Tracker::Scope scope(
            QStringLiteral("sleepy"), Tracker::Kind::Reconcile, QStringLiteral("default/web"));
        while (!release)
            std::this_thread::sleep_for(10ms);
    });
    QTest::ignoreMessage(QtWarningMsg,
        QRegularExpression(QStringLiteral("watchdog: controller sleepy has made no progress for "
                                          "[0-9.]+s in its reconcile of \"default/web\" \\(stall "
                                          "timeout 200ms\\)")));
    QTRY_VERIFY_WITH_TIMEOUT(watchdog.controllerStall(QStringLiteral("sleepy")).has_value(), 5000);
    const QString reason = *watchdog.controllerStall(QStringLiteral("sleepy"));
    QVERIFY2(reason.startsWith(QStringLiteral("stalled: no progress for ")), qPrintable(reason));
    QVERIFY2(reason.endsWith(QStringLiteral("in its reconcile of \"default/web\" (stall timeout "
                                            "200ms)")),
        qPrintable(reason));
    QVERIFY(!watchdog.controllerStall(QStringLiteral("other")));
    QVERIFY(metricsOf(registry).contains("qcm_controller_stalled{controller=\"sleepy\"} 1\n"));
    QVERIFY(metricsOf(registry).contains(
        "qcm_controller_stalls_total{activity=\"reconcile\",controller=\"sleepy\"} 1\n"));
    // The loop itself ran all along.
    QCOMPARE(watchdog.eventLoopCheck().check(), std::nullopt);

    release = true;
    worker.join();
    QTRY_VERIFY_WITH_TIMEOUT(!watchdog.controllerStall(QStringLiteral("sleepy")), 5000);
    QVERIFY(metricsOf(registry).contains("qcm_controller_stalled{controller=\"sleepy\"} 0\n"));
    QVERIFY(metricsOf(registry).contains(
        "qcm_controller_stalls_total{activity=\"reconcile\",controller=\"sleepy\"} 1\n"));
}

void tst_Watchdog::blockedEventLoop()
{
    metrics::Registry registry;
    Watchdog watchdog(300ms, &registry);
    watchdog.start();
    QTest::qWait(100);
    QTest::ignoreMessage(QtWarningMsg,
        QRegularExpression(QStringLiteral("watchdog: the event loop has made no progress for "
                                          "[0-9.]+s \\(stall timeout 300ms\\); it runs sleepy's "
                                          "add handler: /livez fails")));
    QTest::ignoreMessage(QtWarningMsg,
        QRegularExpression(QStringLiteral("watchdog: controller sleepy has made no progress")));
    {
        // A handler that blocks the loop, as a plugin's would.
        const Tracker::Scope scope(
            QStringLiteral("sleepy"), Tracker::Kind::Handler, QStringLiteral("add"));
        std::this_thread::sleep_for(1000ms);
        // Still blocked: the check, run from here, says so.
        const std::optional<QString> blocked = watchdog.eventLoopCheck().check();
        QVERIFY(blocked);
        QVERIFY2(blocked->startsWith(QStringLiteral("blocked for ")), qPrintable(*blocked));
        QVERIFY2(
            blocked->endsWith(QStringLiteral(" by sleepy's add handler")), qPrintable(*blocked));
    }
    // Running again: the check keeps failing for one stall timeout, then passes.
    QTRY_VERIFY_WITH_TIMEOUT(watchdog.eventLoopCheck().check().value_or(QString()).startsWith(
                                 QStringLiteral("was blocked for ")),
        2000);
    QTRY_COMPARE_WITH_TIMEOUT(watchdog.eventLoopCheck().check(), std::nullopt, 3000);
    QVERIFY(metricsOf(registry).contains(
        "qcm_controller_stalls_total{activity=\"handler\",controller=\"sleepy\"} 1\n"));
}

void tst_Watchdog::shortWorkTripsNothing()
{
    metrics::Registry registry;
    Watchdog watchdog(300ms, &registry);
    watchdog.start();
    for (int i = 0; i < 20; ++i) {
        const Tracker::Scope scope(
            QStringLiteral("brisk"), Tracker::Kind::Reconcile, QStringLiteral("default/%1").arg(i));
        std::this_thread::sleep_for(20ms);
        QCoreApplication::processEvents();
    }
    QTest::qWait(400);
    QVERIFY(!watchdog.controllerStall(QStringLiteral("brisk")));
    QCOMPARE(watchdog.eventLoopCheck().check(), std::nullopt);
    QVERIFY(!metricsOf(registry).contains("qcm_controller_stall"));
}

void tst_Watchdog::zeroTimeoutWatchesNothing()
{
    metrics::Registry registry;
    Watchdog watchdog(Duration::zero(), &registry);
    watchdog.start();
    const Tracker::Scope scope(
        QStringLiteral("slow"), Tracker::Kind::Handler, QStringLiteral("add"));
    std::this_thread::sleep_for(300ms);
    QVERIFY(!watchdog.controllerStall(QStringLiteral("slow")));
    QCOMPARE(watchdog.eventLoopCheck().check(), std::nullopt);
}

void tst_Watchdog::trackerSnapshot()
{
    QVERIFY(!Tracker::currentControllerForSignal());
    {
        const Tracker::Scope outer(
            QStringLiteral("outer"), Tracker::Kind::Reconcile, QStringLiteral("ns/a"));
        const Tracker::Scope inner(
            QStringLiteral("inner"), Tracker::Kind::Handler, QStringLiteral("add"));
        QCOMPARE(QByteArray(Tracker::currentControllerForSignal()), QByteArray("outer"));
        const QList<Tracker::Activity> all = Tracker::snapshot();
        QCOMPARE(all.size(), 1); // a scope inside another reports the outer one
        QCOMPARE(all.constFirst().controller, QStringLiteral("outer"));
        QCOMPARE(all.constFirst().what, QStringLiteral("ns/a"));
        QVERIFY(all.constFirst().onMainThread);
    }
    QVERIFY(!Tracker::currentControllerForSignal());
    QVERIFY(Tracker::snapshot().isEmpty());
}

QTEST_GUILESS_MAIN(tst_Watchdog)
#include "tst_watchdog.moc"
