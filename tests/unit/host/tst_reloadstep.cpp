// SPDX-License-Identifier: Apache-2.0
// What a reload does next to one plugin, from its state and what the configuration asks
// (app/reload/reloadstep.h): every state against enabled, disabled, leadership, a changed file, a
// stale spec and a retry.
#include "reload/reloadstep.h"

#include <QtTest/QtTest>

using namespace qcm::host;

Q_DECLARE_METATYPE(qcm::host::PluginState)
Q_DECLARE_METATYPE(qcm::host::ReloadStep)
Q_DECLARE_METATYPE(qcm::host::PluginError::Kind)

class tst_ReloadStep : public QObject
{
    Q_OBJECT

private slots:
    void nextStep_data();
    void nextStep();
    void names();
};

void tst_ReloadStep::nextStep_data()
{
    using S = PluginState;
    using R = ReloadStep;
    using K = PluginError::Kind;
    QTest::addColumn<PluginState>("state");
    QTest::addColumn<PluginError::Kind>("error");
    QTest::addColumn<bool>("enabled");
    QTest::addColumn<bool>("mayRun");
    QTest::addColumn<bool>("fileChanged");
    QTest::addColumn<bool>("stale");
    QTest::addColumn<bool>("retry");
    QTest::addColumn<ReloadStep>("step");

    // Enabled, and may run here.
    QTest::newRow("discovered: start")
        << S::Discovered << K::None << true << true << false << false << false << R::Start;
    QTest::newRow("unloaded: start again")
        << S::Unloaded << K::None << true << true << false << false << false << R::Start;
    QTest::newRow("stopped (after a restart's stop): start")
        << S::Stopped << K::None << true << true << false << false << false << R::Start;
    QTest::newRow("loaded (standby, now leading): start")
        << S::Loaded << K::None << true << true << false << false << false << R::Start;
    QTest::newRow("running as configured: nothing")
        << S::Running << K::None << true << true << false << false << false << R::None;
    QTest::newRow("running, stale: stop (then start)")
        << S::Running << K::None << true << true << false << true << false << R::Stop;
    QTest::newRow("running, its file replaced: runs on")
        << S::Running << K::None << true << true << true << false << false << R::None;
    QTest::newRow("configured (between steps): nothing")
        << S::Configured << K::None << true << true << false << false << false << R::None;

    // Enabled, but it needs leader election and this replica does not lead.
    QTest::newRow("follower, discovered: load, on standby")
        << S::Discovered << K::None << true << false << false << false << false << R::Load;
    QTest::newRow("follower, unloaded: load, on standby")
        << S::Unloaded << K::None << true << false << false << false << false << R::Load;
    QTest::newRow("follower, on standby: nothing")
        << S::Loaded << K::None << true << false << false << false << false << R::None;
    QTest::newRow("follower, stopped (rejoin): nothing")
        << S::Stopped << K::None << true << false << false << false << false << R::None;
    QTest::newRow("follower, still running, stale: leader election's business")
        << S::Running << K::None << true << false << false << true << false << R::None;

    // Disabled.
    QTest::newRow("disabled, running: stop")
        << S::Running << K::None << false << true << false << false << false << R::Stop;
    QTest::newRow("disabled, stopped: unload")
        << S::Stopped << K::None << false << true << false << false << false << R::Unload;
    QTest::newRow("disabled, on standby: unload")
        << S::Loaded << K::None << false << false << false << false << false << R::Unload;
    QTest::newRow("disabled, configured: unload")
        << S::Configured << K::None << false << true << false << false << false << R::Unload;
    QTest::newRow("disabled, discovered: nothing")
        << S::Discovered << K::None << false << true << false << false << false << R::None;
    QTest::newRow("disabled, unloaded: nothing")
        << S::Unloaded << K::None << false << true << false << false << false << R::None;
    QTest::newRow("disabled, failed: nothing")
        << S::Failed << K::FactoryFailed << false << true << false << false << true << R::None;

    // A removed or replaced file is never loaded from again.
    QTest::newRow("file changed, unloaded: nothing")
        << S::Unloaded << K::None << true << true << true << false << false << R::None;
    QTest::newRow("file changed, follower: nothing")
        << S::Discovered << K::None << true << false << true << false << false << R::None;

    // Failed.
    QTest::newRow("factory failed, retry asked: retry")
        << S::Failed << K::FactoryFailed << true << true << false << false << true << R::Retry;
    QTest::newRow("start failed, retry asked: retry")
        << S::Failed << K::StartFailed << true << true << false << false << true << R::Retry;
    QTest::newRow("factory failed, nothing asked: nothing")
        << S::Failed << K::FactoryFailed << true << true << false << false << false << R::None;
    QTest::newRow("factory failed, follower: nothing")
        << S::Failed << K::FactoryFailed << true << false << false << false << true << R::None;
    QTest::newRow("factory failed, file changed: nothing")
        << S::Failed << K::FactoryFailed << true << true << true << false << true << R::None;
    QTest::newRow("stop timed out: never touched")
        << S::Failed << K::StopTimedOut << true << true << false << false << true << R::None;
    QTest::newRow("unresolved symbol: the file's problem")
        << S::Failed << K::UnresolvedSymbol << true << true << false << false << true << R::None;
    QTest::newRow("duplicate: the file's problem")
        << S::Failed << K::DuplicateName << true << true << false << false << true << R::None;
}

void tst_ReloadStep::nextStep()
{
    QFETCH(PluginState, state);
    QFETCH(PluginError::Kind, error);
    QFETCH(bool, enabled);
    QFETCH(bool, mayRun);
    QFETCH(bool, fileChanged);
    QFETCH(bool, stale);
    QFETCH(bool, retry);
    QFETCH(ReloadStep, step);
    const PluginView view {state, error, enabled, mayRun, fileChanged, stale, retry};
    QCOMPARE(stepName(qcm::host::nextStep(view)), stepName(step));
}

void tst_ReloadStep::names()
{
    QCOMPARE(stepName(ReloadStep::None), QStringLiteral("none"));
    QCOMPARE(stepName(ReloadStep::Start), QStringLiteral("start"));
    QCOMPARE(stepName(ReloadStep::Load), QStringLiteral("load"));
    QCOMPARE(stepName(ReloadStep::Stop), QStringLiteral("stop"));
    QCOMPARE(stepName(ReloadStep::Unload), QStringLiteral("unload"));
    QCOMPARE(stepName(ReloadStep::Retry), QStringLiteral("retry"));
}

QTEST_GUILESS_MAIN(tst_ReloadStep)
#include "tst_reloadstep.moc"
