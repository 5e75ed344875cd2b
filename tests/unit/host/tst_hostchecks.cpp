// SPDX-License-Identifier: Apache-2.0
// The host's health checks over real plugins and a real ControllerManager, with informers whose
// list the test holds back: /readyz goes through its transitions (not ready before start, not
// ready while caches sync, ready once synced, ready on standby while not leading, not ready
// after shutdown), leadership starts and stops exactly the controllers that need it, and
// /healthz reports a failed plugin while /livez does not. Also what the manager hands each
// controller in its context: a recorder of the host's EventBroadcaster under the controller's
// EventSource component, and the leader's controllers the term they were created in.
#include "../cache/fakelisterwatcher.h"
#include "../leaderelection/fakeelections.h"

#include "controllers/controllermanager.h"
#include "plugins/pluginhost.h"
#include "serving/hostchecks.h"

#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/metrics/registry.h>
#include <qcm/record/eventbroadcaster.h>

#include <QtCore/QTemporaryDir>
#include <qcm/sharding/shardfilter.h>

#include <QtTest/QtTest>

#include <condition_variable>

using namespace qcm;
using namespace qcm::host;
using namespace std::chrono;

namespace {

// A list that does not answer until the test opens the gate.
struct Gate
{
    std::mutex mutex;
    std::condition_variable changed;
    bool open = false;

    void release()
    {
        std::lock_guard lock(mutex);
        open = true;
        changed.notify_all();
    }
    void wait()
    {
        std::unique_lock lock(mutex);
        changed.wait_for(lock, 30s, [this] { return open; });
    }
};

class GatedListerWatcher : public cache::testing::FakeListerWatcher
{
public:
    explicit GatedListerWatcher(std::shared_ptr<Gate> gate) : m_gate(std::move(gate)) { }
    Result<client::ObjectList, client::Status> list(const client::ListOptions &options) override
    {
        m_gate->wait();
        return FakeListerWatcher::list(options);
    }

private:
    std::shared_ptr<Gate> m_gate;
};

// One plugin host, manager and fake informer factory; the ConfigMaps list waits for `gate`.
struct Host
{
    explicit Host(const QStringList &fixtures, ControllerManagerConfig config,
        std::shared_ptr<sharding::ShardFilter> shardFilter = nullptr)
        : informers(
            [gate = gate](const client::GroupVersionResource &,
                const cache::SharedInformerFactory::InformerOptions &) {
                return std::make_unique<GatedListerWatcher>(gate);
            },
            Duration::zero())
    {
        for (const QString &name : fixtures) {
            const QString file = QStringLiteral("lib%1.so").arg(name);
            if (!QFile::copy(QStringLiteral(QCM_FIXTURE_PLUGIN_DIR "/") + file, dir.filePath(file)))
                qFatal("cannot copy %s", qPrintable(file));
        }
        config.pluginDirs = {dir.path()};
        config.controllerShutdownTimeout = 5s;
        plugins.discover(config.pluginDirs);
        if (std::optional<Error> error = plugins.select(config))
            qFatal("%s", qPrintable(error->toString()));
        manager = std::make_unique<ControllerManager>(config, plugins,
            ControllerManager::Services {
                nullptr, &informers, &registry, nullptr, &events, std::move(shardFilter)});
        checks = std::make_unique<HostChecks>(plugins, *manager, nullptr);
    }
    ~Host()
    {
        gate->release();
        manager.reset();
    }

    HealthResponse readyz(const QString &check = {}) const
    {
        return HealthChecks(QStringLiteral("readyz"), [this] {
            return checks->readyz();
        }).respond(check, {});
    }
    HealthResponse healthz(const QString &check = {}) const
    {
        return HealthChecks(QStringLiteral("healthz"), [this] {
            return checks->healthz();
        }).respond(check, {});
    }
    HealthResponse livez() const
    {
        return HealthChecks(QStringLiteral("livez"), [this] {
            return checks->livez();
        }).respond({}, {});
    }
    const PluginSpec *plugin(const QString &name) const { return plugins.find(name); }

    QTemporaryDir dir;
    std::shared_ptr<Gate> gate = std::make_shared<Gate>();
    cache::SharedInformerFactory informers;
    metrics::Registry registry;
    record::EventBroadcaster events; // outlives the recorders' users, the controllers
    PluginHost plugins;
    std::unique_ptr<ControllerManager> manager;
    std::unique_ptr<HostChecks> checks;
};

ControllerManagerConfig withLeaderElection(bool on, LeaderElectionMode mode)
{
    ControllerManagerConfig config;
    config.controllers = {QStringLiteral("*"), QStringLiteral("fixture-optional")};
    config.leaderElection.leaderElect = on;
    config.leaderElection.mode = mode;
    return config;
}

// A filter that owns every key: what matters here is which contexts carry it.
class EveryKey : public sharding::ShardFilter
{
public:
    bool owns(const QString &) const override { return true; }
    Admission admit(const QString &) override { return Admission::Start; }
    void finished(const QString &) override { }
};

const QString ConfigMaps = QStringLiteral("fixture-configmaps"); // needs leader election
const QString Optional = QStringLiteral("fixture-optional"); // runs on every replica

} // namespace

class tst_HostChecks : public QObject
{
    Q_OBJECT

private slots:
    void readinessFollowsLeadership();
    void runOrDieStopsTakingWorkAtOnce();
    void withoutLeaderElectionEverythingRunsAtStart();
    void healthzReportsFailedPlugins();
    void contextsRecordWithTheHostsBroadcaster();
    void leadersControllersCarryTheirTerm();
    void shardedControllersRunOnEveryReplicaWithTheFilter();
    void controllerScopeRunsEachControllerInItsOwnTerm();
};

void tst_HostChecks::readinessFollowsLeadership()
{
    Host host({ConfigMaps, Optional}, withLeaderElection(true, LeaderElectionMode::Rejoin));
    QVERIFY(host.manager->requiresLeader(*host.plugin(ConfigMaps)));
    QVERIFY(!host.manager->requiresLeader(*host.plugin(Optional)));

    // Before start: nothing runs.
    QCOMPARE(host.readyz().status, 500);
    QCOMPARE(host.readyz(Optional).body,
        QByteArray("internal server error: not running (discovered)\n"));
    QCOMPARE(host.readyz(ConfigMaps).body,
        QByteArray("internal server error: not on standby yet (discovered)\n"));

    // A follower: the controller that needs leadership waits, loaded; the other runs.
    QCOMPARE(host.manager->start(), 1);
    QCOMPARE(host.plugin(ConfigMaps)->state(), PluginState::Loaded);
    QCOMPARE(host.plugin(Optional)->state(), PluginState::Running);
    QTRY_COMPARE(host.readyz().status, 200);
    QCOMPARE(host.readyz(ConfigMaps).status, 200);

    // Leading: it starts, and is not ready until its caches sync.
    QCOMPARE(host.manager->startLeading(), 1);
    QVERIFY(host.manager->isLeading());
    QCOMPARE(host.plugin(ConfigMaps)->state(), PluginState::Running);
    QCOMPARE(host.readyz().status, 500);
    QCOMPARE(host.readyz(ConfigMaps).body,
        QByteArray("internal server error: running, but its caches have not synced yet\n"));
    QCOMPARE(host.readyz(QStringLiteral("informer-sync")).body,
        QByteArray("internal server error: the caches of fixture-configmaps have not synced\n"));
    QTest::qWait(200);
    QCOMPARE(host.readyz().status, 500); // still held back
    host.gate->release();
    QTRY_COMPARE(host.readyz().status, 200);
    QVERIFY(host.plugin(ConfigMaps)->controller()->hasSynced());

    // Leadership lost, rejoin: it stops and waits on standby again; still ready.
    host.manager->stopLeading();
    QVERIFY(!host.manager->isLeading());
    QCOMPARE(host.plugin(ConfigMaps)->state(), PluginState::Stopped);
    QCOMPARE(host.plugin(Optional)->state(), PluginState::Running);
    QCOMPARE(host.readyz().status, 200);

    // The next term creates it again.
    QCOMPARE(host.manager->startLeading(), 1);
    QCOMPARE(host.plugin(ConfigMaps)->state(), PluginState::Running);
    QTRY_COMPARE(host.readyz().status, 200);

    // Shutting down: not ready.
    QVERIFY(host.manager->shutdown());
    QCOMPARE(host.readyz().status, 500);
    QCOMPARE(host.manager->startLeading(), 0); // nothing starts after shutdown
}

void tst_HostChecks::runOrDieStopsTakingWorkAtOnce()
{
    Host host({ConfigMaps, Optional}, withLeaderElection(true, LeaderElectionMode::RunOrDie));
    host.gate->release();
    host.manager->start();
    QCOMPARE(host.manager->startLeading(), 1);
    QTRY_VERIFY(host.plugin(ConfigMaps)->controller()->hasSynced());
    QVERIFY(host.plugin(ConfigMaps)->controller()->isStarted());
    host.manager->stopLeading();
    // Shut to new work at once, without draining: the process exits right after.
    QVERIFY(!host.plugin(ConfigMaps)->controller()->isStarted());
    QVERIFY(host.plugin(ConfigMaps)->controller()->queue().shuttingDown());
    QVERIFY(host.plugin(Optional)->controller()->isStarted()); // not a leader's controller
}

void tst_HostChecks::withoutLeaderElectionEverythingRunsAtStart()
{
    Host host({ConfigMaps, Optional}, withLeaderElection(false, LeaderElectionMode::RunOrDie));
    QVERIFY(!host.manager->requiresLeader(*host.plugin(ConfigMaps)));
    QCOMPARE(host.manager->start(), 2);
    QCOMPARE(host.plugin(ConfigMaps)->state(), PluginState::Running);
    QCOMPARE(host.readyz().status, 500); // its ConfigMaps list is held back
    host.gate->release();
    QTRY_COMPARE(host.readyz().status, 200);
    const HealthResponse verbose = HealthChecks(QStringLiteral("readyz"), [&] {
        return host.checks->readyz();
    }).respond({}, QUrlQuery(QStringLiteral("verbose")));
    QCOMPARE(verbose.body,
        QByteArray("[+]ping ok\n[+]informer-sync ok\n[+]fixture-configmaps ok\n[+]fixture-optional "
                   "ok\nreadyz check passed\n"));
    // Without leader election there is no leaderElection check.
    QCOMPARE(host.livez().body, QByteArray("ok"));
    QCOMPARE(host.healthz(QStringLiteral("leaderElection")).status, 404);
}

void tst_HostChecks::healthzReportsFailedPlugins()
{
    Host host({ConfigMaps, Optional, QStringLiteral("fixture-throws")},
        withLeaderElection(false, LeaderElectionMode::RunOrDie));
    host.gate->release();
    QCOMPARE(host.manager->start(), 2);
    QCOMPARE(host.healthz().status, 500);
    QCOMPARE(host.healthz(QStringLiteral("fixture-throws")).body,
        QByteArray("internal server error: failed: its factory threw: fixture-throws refuses to "
                   "create a controller\n"));
    QCOMPARE(host.healthz(ConfigMaps).status, 200);
    QCOMPARE(host.livez().status, 200); // a broken plugin is no reason to restart qcm
    QTRY_COMPARE(host.readyz(ConfigMaps).status, 200);
    QCOMPARE(host.readyz().status, 500); // but it is not ready to do all its work
}

// Every controller's context has a recorder of the host's one broadcaster, whose Events carry
// the controller's EventSource component (kube-controller-manager's "<name>-controller").
void tst_HostChecks::contextsRecordWithTheHostsBroadcaster()
{
    QCOMPARE(eventSourceComponent(QStringLiteral("sample-controller")),
        QStringLiteral("sample-controller"));
    QCOMPARE(eventSourceComponent(QStringLiteral("ttl-after-finished")),
        QStringLiteral("ttl-after-finished-controller"));

    std::mutex mutex;
    QList<record::Event> seen; // guarded by mutex; outlives the host's broadcaster
    Host host({ConfigMaps, Optional}, withLeaderElection(false, LeaderElectionMode::RunOrDie));
    host.events.startEventWatcher([&](const record::Event &e) {
        std::lock_guard lock(mutex);
        seen << e;
    });
    host.gate->release();
    QCOMPARE(host.manager->start(), 2);
    client::Object cm;
    cm.setApiVersion(QStringLiteral("v1"));
    cm.setKind(QStringLiteral("ConfigMap"));
    cm.setNamespaceName(QStringLiteral("ns"));
    cm.setName(QStringLiteral("cm"));
    for (const QString &name : {ConfigMaps, Optional}) {
        const std::shared_ptr<record::EventRecorder> recorder
            = host.plugin(name)->controller()->context().eventRecorder();
        QVERIFY2(recorder, qPrintable(name));
        recorder->event(cm, record::EventTypeNormal, QStringLiteral("Synced"), name);
    }
    QVERIFY(host.events.flush(10s));
    std::lock_guard lock(mutex);
    QCOMPARE(seen.size(), 2);
    for (const record::Event &e : std::as_const(seen)) {
        QCOMPARE(e.source.component, e.message + QStringLiteral("-controller"));
        QCOMPARE(e.reportingController, e.source.component);
        QCOMPARE(e.involvedObject.name, QStringLiteral("cm"));
    }
}

// The controllers that need leader election are created with the term startLeading() was
// given, and those of the next term with the next one; the others are tied to no term.
void tst_HostChecks::leadersControllersCarryTheirTerm()
{
    leaderelection::testing::FakeElections elections;
    QVERIFY(elections.waitForTerms(1));
    Host host({ConfigMaps, Optional}, withLeaderElection(true, LeaderElectionMode::Rejoin));
    host.gate->release();
    host.manager->start();
    QVERIFY(!host.plugin(Optional)->controller()->context().leaderToken());
    QCOMPARE(host.manager->startLeading(elections.terms.first()), 1);
    std::optional<leaderelection::LeaderToken> term
        = host.plugin(ConfigMaps)->controller()->context().leaderToken();
    QVERIFY(term && term->isValid());
    QCOMPARE(term->deadline(), elections.terms.first().deadline());

    elections.clock.step(3s); // the term is over: its controller's token says so at once
    QVERIFY(!host.plugin(ConfigMaps)->controller()->context().leaderToken()->isValid());
    host.manager->stopLeading();
    QCOMPARE(host.plugin(ConfigMaps)->state(), PluginState::Stopped);

    QVERIFY(elections.waitForTerms(2));
    QCOMPARE(host.manager->startLeading(elections.terms.last()), 1);
    term = host.plugin(ConfigMaps)->controller()->context().leaderToken();
    QVERIFY(term && term->isValid());
    QVERIFY(!host.plugin(Optional)->controller()->context().leaderToken());
}

// shards: auto with a scale-out group: the controller runs from start() on every replica,
// although its plugin needs leader election, and its context carries the group's filter; the
// others are as without scale-out. Without the group's filter, shards: auto changes nothing.
void tst_HostChecks::shardedControllersRunOnEveryReplicaWithTheFilter()
{
    ControllerManagerConfig config = withLeaderElection(true, LeaderElectionMode::Rejoin);
    config.scaleOutGroup = QStringLiteral("g");
    config.controllerConfig[ConfigMaps].shards = ShardMode::Auto;
    {
        Host unsharded({ConfigMaps, Optional}, config);
        QVERIFY(!unsharded.manager->isSharded(*unsharded.plugin(ConfigMaps)));
        QVERIFY(unsharded.manager->requiresLeader(*unsharded.plugin(ConfigMaps)));
    }
    const auto filter = std::make_shared<EveryKey>();
    Host host({ConfigMaps, Optional}, config, filter);
    QVERIFY(host.manager->isSharded(*host.plugin(ConfigMaps)));
    QVERIFY(!host.manager->requiresLeader(*host.plugin(ConfigMaps)));
    QVERIFY(!host.manager->isSharded(*host.plugin(Optional)));
    host.gate->release();
    QCOMPARE(host.manager->start(), 2); // no leadership needed
    QCOMPARE(host.plugin(ConfigMaps)->state(), PluginState::Running);
    QCOMPARE(host.plugin(ConfigMaps)->controller()->context().shardFilter(),
        std::shared_ptr<sharding::ShardFilter>(filter));
    QVERIFY(!host.plugin(Optional)->controller()->context().shardFilter());
    QCOMPARE(host.manager->startLeading(), 0); // nothing waited for leadership
}

// leaderElection.scope: controller: the manager-scope term starts nothing; each controller
// that needs leader election starts in its own term (startHeld()) and stops, draining, when
// it ends (stopHeld(), even in run-or-die mode); readiness and a reload's mayRun() follow its
// own term; the placed controllers are the enabled ones that need leader election.
void tst_HostChecks::controllerScopeRunsEachControllerInItsOwnTerm()
{
    leaderelection::testing::FakeElections elections;
    QVERIFY(elections.waitForTerms(1));
    ControllerManagerConfig config = withLeaderElection(true, LeaderElectionMode::RunOrDie);
    config.scaleOutGroup = QStringLiteral("g");
    config.leaderElection.scope = LeaderElectionScope::Controller;
    Host host({ConfigMaps, Optional}, config, std::make_shared<EveryKey>());
    host.gate->release();
    QCOMPARE(host.manager->placedControllers(), QStringList {ConfigMaps});
    QCOMPARE(host.manager->start(), 1);
    QCOMPARE(host.plugin(ConfigMaps)->state(), PluginState::Loaded); // on standby
    QVERIFY(!host.manager->mayRun(*host.plugin(ConfigMaps)));
    QVERIFY(host.manager->mayRun(*host.plugin(Optional)));
    QTRY_COMPARE(host.readyz().status, 200);

    QCOMPARE(host.manager->startLeading(elections.terms.first()), 0); // not in this scope
    QCOMPARE(host.plugin(ConfigMaps)->state(), PluginState::Loaded);

    QVERIFY(!host.manager->startHeld(Optional, elections.terms.first())); // needs no term
    QVERIFY(host.manager->startHeld(ConfigMaps, elections.terms.first()));
    QCOMPARE(host.plugin(ConfigMaps)->state(), PluginState::Running);
    QVERIFY(host.manager->mayRun(*host.plugin(ConfigMaps)));
    const std::optional<leaderelection::LeaderToken> term
        = host.plugin(ConfigMaps)->controller()->context().leaderToken();
    QVERIFY(term && term->isValid());
    QCOMPARE(term->deadline(), elections.terms.first().deadline());
    QVERIFY(!host.plugin(Optional)->controller()->context().leaderToken());
    QTRY_COMPARE(host.readyz(ConfigMaps).status, 200);

    // Its term ends: it stops and drains (Stopped, not merely shut as run-or-die would), and
    // waits on standby, ready, for its next term.
    host.manager->stopHeld(ConfigMaps);
    QCOMPARE(host.plugin(ConfigMaps)->state(), PluginState::Stopped);
    QVERIFY(!host.manager->mayRun(*host.plugin(ConfigMaps)));
    QCOMPARE(host.readyz(ConfigMaps).status, 200);
    elections.clock.step(3s); // the first term ends; the elector starts the next
    QVERIFY(elections.waitForTerms(2));
    QVERIFY(host.manager->startHeld(ConfigMaps, elections.terms.last()));
    QCOMPARE(host.plugin(ConfigMaps)->controller()->context().leaderToken()->deadline(),
        elections.terms.last().deadline());

    QVERIFY(host.manager->shutdown());
    QVERIFY(!host.manager->startHeld(ConfigMaps, elections.terms.last())); // not after shutdown
}

QTEST_GUILESS_MAIN(tst_HostChecks)
#include "tst_hostchecks.moc"
