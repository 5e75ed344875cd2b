// SPDX-License-Identifier: Apache-2.0
// The plugin state machine: the transition table, and a real plugin (fixture-optional) walked
// through its whole life, with every out-of-order step refused.
#include "plugins/pluginspec.h"

#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

#include <set>

using namespace qcm;
using namespace qcm::host;

Q_DECLARE_METATYPE(qcm::host::PluginState)

class tst_PluginState : public QObject
{
    Q_OBJECT

private slots:
    void table_data();
    void table();
    void names();
    void wholeLife();
    void outOfOrderStepsAreRefused();
    void failFromOutside();
    void quarantine();
};

namespace {

using S = PluginState;
const QList<S> AllStates {S::Discovered, S::Loaded, S::Configured, S::Running, S::Stopped,
    S::Unloaded, S::Failed, S::Quarantined};

QString fixture(const char *name)
{
    return QStringLiteral(QCM_FIXTURE_PLUGIN_DIR "/lib%1.so").arg(QLatin1String(name));
}

} // namespace

void tst_PluginState::table_data()
{
    QTest::addColumn<PluginState>("from");
    QTest::addColumn<PluginState>("to");
    QTest::addColumn<bool>("allowed");
    const std::set<std::pair<S, S>> allowed {{S::Discovered, S::Loaded}, {S::Discovered, S::Failed},
        {S::Discovered, S::Quarantined}, {S::Loaded, S::Configured}, {S::Loaded, S::Failed},
        {S::Loaded, S::Unloaded}, {S::Configured, S::Running}, {S::Configured, S::Failed},
        {S::Configured, S::Unloaded}, {S::Running, S::Stopped}, {S::Running, S::Failed},
        {S::Stopped, S::Configured}, {S::Stopped, S::Unloaded}, {S::Unloaded, S::Loaded},
        {S::Failed, S::Unloaded}};
    for (S from : AllStates)
        for (S to : AllStates)
            QTest::addRow("%s -> %s", qPrintable(stateName(from)), qPrintable(stateName(to)))
                << from << to << (allowed.count({from, to}) == 1);
}

void tst_PluginState::table()
{
    QFETCH(PluginState, from);
    QFETCH(PluginState, to);
    QFETCH(bool, allowed);
    QCOMPARE(isTransitionAllowed(from, to), allowed);
}

void tst_PluginState::names()
{
    QStringList names;
    for (S s : AllStates)
        names << stateName(s);
    QCOMPARE(names,
        (QStringList {QStringLiteral("discovered"), QStringLiteral("loaded"),
            QStringLiteral("configured"), QStringLiteral("running"), QStringLiteral("stopped"),
            QStringLiteral("unloaded"), QStringLiteral("failed"), QStringLiteral("quarantined")}));
}

void tst_PluginState::wholeLife()
{
    PluginSpec spec(fixture("fixture-optional"));
    QSignalSpy changes(&spec, &PluginSpec::stateChanged);
    QVERIFY(spec.read());
    QCOMPARE(spec.state(), S::Discovered);
    QCOMPARE(spec.name(), QStringLiteral("fixture-optional"));
    QCOMPARE(spec.metaData().version, QStringLiteral("0.0.1"));
    QVERIFY(!spec.metaData().enabledByDefault);
    QVERIFY(!spec.metaData().needsLeaderElection);
    QCOMPARE(spec.metaData().sdkVersion, QStringLiteral(QCM_VERSION_STRING));
    QCOMPARE(spec.metaData().sdkAbiVersion, QCM_ABI_VERSION);
    QVERIFY(!spec.isLibraryLoaded()); // reading the metadata loads nothing

    QVERIFY(spec.load());
    QVERIFY(spec.isLibraryLoaded());
    QVERIFY(spec.configure(ControllerContext(spec.name())));
    QVERIFY(spec.controller());
    QCOMPARE(spec.controller()->name(), QStringLiteral("fixture-optional"));
    QVERIFY(spec.start());
    QTRY_VERIFY(spec.controller()->hasSynced()); // nothing to sync: workers start at once
    spec.controller()->enqueue(QStringLiteral("ns/a"));
    QVERIFY(spec.stop(std::chrono::seconds(5)));
    QVERIFY(spec.configure(ControllerContext(spec.name()))); // created again, as on a reload
    QVERIFY(spec.unload());
    QVERIFY(!spec.controller());
    QVERIFY(spec.load()); // enabled again
    QVERIFY(!spec.hasError());

    QList<S> seen;
    for (const QList<QVariant> &args : std::as_const(changes))
        seen << args.at(0).value<PluginState>();
    QCOMPARE(seen,
        (QList<S> {S::Loaded, S::Configured, S::Running, S::Stopped, S::Configured, S::Unloaded,
            S::Loaded}));
}

void tst_PluginState::outOfOrderStepsAreRefused()
{
    PluginSpec spec(fixture("fixture-optional"));
    QVERIFY(spec.read());
    QVERIFY(!spec.start());
    QCOMPARE(spec.state(), S::Discovered);
    QCOMPARE(spec.error().kind, PluginError::Kind::IllegalTransition);
    QCOMPARE(spec.error().message,
        QStringLiteral("internal error: cannot start a plugin that is discovered"));
    QVERIFY(!spec.configure(ControllerContext()));
    QVERIFY(!spec.stop(std::chrono::seconds(1)));
    QVERIFY(!spec.unload());
    QVERIFY(!spec.read()); // read once only
    QCOMPARE(spec.state(), S::Discovered);
    QVERIFY(!spec.isLibraryLoaded());

    QVERIFY(spec.load());
    QVERIFY(!spec.load());
    QCOMPARE(spec.error().message,
        QStringLiteral("internal error: cannot load a plugin that is loaded"));
    QVERIFY(!spec.stop(std::chrono::seconds(1)));
    QCOMPARE(spec.state(), S::Loaded);
}

void tst_PluginState::failFromOutside()
{
    PluginSpec spec(fixture("fixture-optional"));
    QVERIFY(spec.read());
    spec.fail(PluginError::Kind::DuplicateName, QStringLiteral("duplicate"));
    QCOMPARE(spec.state(), S::Failed);
    QCOMPARE(spec.error().kind, PluginError::Kind::DuplicateName);
    QVERIFY(!spec.load()); // Failed -> Loaded is not a move
    QCOMPARE(spec.state(), S::Failed);
    QCOMPARE(spec.error().kind, PluginError::Kind::DuplicateName); // the reason stays
}

// A quarantined plugin is never loaded, and keeps its reason; only a plugin not loaded yet
// can be quarantined.
void tst_PluginState::quarantine()
{
    PluginSpec spec(fixture("fixture-optional"));
    QVERIFY(spec.read());
    QVERIFY(spec.quarantine(QStringLiteral("crashed 3 times")));
    QCOMPARE(spec.state(), S::Quarantined);
    QCOMPARE(spec.error().kind, PluginError::Kind::Quarantined);
    QCOMPARE(spec.error().message, QStringLiteral("crashed 3 times"));
    QVERIFY(!spec.load());
    QCOMPARE(spec.state(), S::Quarantined);
    QVERIFY(!spec.isLibraryLoaded());

    PluginSpec loaded(fixture("fixture-optional"));
    QVERIFY(loaded.read());
    QVERIFY(loaded.load());
    QVERIFY(!loaded.quarantine(QStringLiteral("too late")));
    QCOMPARE(loaded.state(), S::Loaded);
    QVERIFY(loaded.unload());
}

QTEST_GUILESS_MAIN(tst_PluginState)
#include "tst_pluginstate.moc"
