// SPDX-License-Identifier: Apache-2.0
// Changes without restart (app/reload/reloader.h), against the real fixture plugins and fake
// informers: a reload starts, stops and restarts only the controllers whose configuration
// changed and leaves the others' Controller objects untouched; an invalid configuration is
// refused with its precise error and changes nothing; a .so dropped into a watched plugin
// directory is read and started; a removed one keeps running; the configuration file is
// watched through an editor's rename; a stop drains without blocking the event loop, within
// controllerShutdownTimeout; leader election decides what a reload may start; SIGHUP is a
// reload request.
#include "../cache/fakelisterwatcher.h"

#include "config/options.h"
#include "controllers/controllermanager.h"
#include "plugins/pluginhost.h"
#include "reload/reloader.h"
#include "reload/signalwatcher.h"

#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/client/restclient.h>
#include <qcm/metrics/registry.h>

#include <QtCore/QTemporaryDir>
#include <QtNetwork/QTcpServer>
#include <QtTest/QtTest>

#include <atomic>
#include <csignal>
#include <thread>

using namespace qcm;
using namespace qcm::host;
using namespace std::chrono;

Q_DECLARE_METATYPE(qcm::host::PluginState)

class tst_Reloader : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void settingsChangeRestartsOnlyThatController();
    void disableStopsAndUnloadsEnableStartsAgain();
    void invalidConfigurationChangesNothing_data();
    void invalidConfigurationChangesNothing();
    void configurationFileIsWatchedThroughRenames();
    void droppedPluginIsStarted();
    void removedOrReplacedPluginKeepsRunning();
    void failedControllerIsTriedAgainWhenItsSpecChanges();
    void stopDrainsWithoutBlockingTheEventLoop();
    void leaderElectionDecidesWhatAReloadStarts();
    void requestsDuringAReloadRunAfterIt();
    void sighupIsAReloadRequest();

private:
    // A running host: the plugins of `fixtures` in <tmp>/plugins, the configuration `yaml`
    // (with pluginDirs and leader election off added), the controllers started.
    void startHost(const QStringList &fixtures, const QByteArray &yaml,
        client::RestClient *restClient = nullptr, bool leaderElect = false);
    // Writes the configuration file in place.
    void writeConfig(const QByteArray &yaml);
    // Runs one reload and waits for it to finish; returns whether it was applied.
    bool reload();
    PluginSpec *plugin(const QString &name) const;
    void copyFixture(const QString &name, const QString &asFile = {});

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_configFile;
    QString m_pluginDir;
    bool m_leaderElect = false;
    std::unique_ptr<cache::SharedInformerFactory> m_informers;
    std::unique_ptr<metrics::Registry> m_registry;
    std::unique_ptr<PluginHost> m_plugins;
    std::unique_ptr<ControllerManager> m_manager;
    std::unique_ptr<Reloader> m_reloader;
    std::deque<QList<client::Object>> m_lists; // the fake informers' first lists
    QString m_lastSummary;
};

namespace {

QString fixture(const QString &name)
{
    return QStringLiteral(QCM_FIXTURE_PLUGIN_DIR "/lib%1.so").arg(name);
}

} // namespace

void tst_Reloader::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_configFile = m_dir->filePath(QStringLiteral("controller-manager.yaml"));
    m_pluginDir = m_dir->filePath(QStringLiteral("plugins"));
    QVERIFY(QDir().mkpath(m_pluginDir));
    m_lists.clear();
}

void tst_Reloader::cleanup()
{
    if (m_reloader)
        m_reloader->shutdown();
    if (m_manager)
        m_manager->shutdown();
    m_reloader.reset();
    m_manager.reset();
    m_plugins.reset();
    m_informers.reset();
    m_registry.reset();
    m_dir.reset();
}

void tst_Reloader::copyFixture(const QString &name, const QString &asFile)
{
    const QString target = m_pluginDir + QLatin1Char('/')
        + (asFile.isEmpty() ? QStringLiteral("lib%1.so").arg(name) : asFile);
    if (!QFile::copy(fixture(name), target))
        qFatal("cannot copy fixture %s", qPrintable(name));
}

void tst_Reloader::writeConfig(const QByteArray &yaml)
{
    QFile file(m_configFile);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(m_configFile));
    file.write("pluginDirs: [plugins]\n");
    file.write(m_leaderElect ? "leaderElection: {leaderElect: true}\n"
                             : "leaderElection: {leaderElect: false}\n");
    file.write(yaml);
}

void tst_Reloader::startHost(const QStringList &fixtures, const QByteArray &yaml,
    client::RestClient *restClient, bool leaderElect)
{
    for (const QString &name : fixtures)
        copyFixture(name);
    m_leaderElect = leaderElect;
    writeConfig(yaml);
    const Result<Options> flags
        = parseOptions({QStringLiteral("qcm"), QStringLiteral("--config"), m_configFile});
    QVERIFY(flags.ok());
    Result<ControllerManagerConfig> config = loadConfig(m_configFile);
    QVERIFY2(config.ok(), config.ok() ? "" : qPrintable(config.error().toString()));
    flags->applyTo(*config);

    // Fake informers: the first list of each is the next of m_lists (or empty), watches stay
    // open.
    m_informers = std::make_unique<cache::SharedInformerFactory>(
        [this](const client::GroupVersionResource &,
            const cache::SharedInformerFactory::InformerOptions &) {
            auto lw = std::make_unique<cache::testing::FakeListerWatcher>();
            if (!m_lists.empty()) {
                lw->lists.push_back(cache::testing::listOf(m_lists.front(), QStringLiteral("10")));
                m_lists.pop_front();
            }
            return lw;
        },
        Duration::zero());
    m_registry = std::make_unique<metrics::Registry>();
    m_plugins = std::make_unique<PluginHost>();
    m_plugins->discover(config->pluginDirs);
    QVERIFY(!m_plugins->select(*config));
    m_manager = std::make_unique<ControllerManager>(*config, *m_plugins,
        ControllerManager::Services {
            restClient, m_informers.get(), m_registry.get(), nullptr, nullptr, nullptr});
    m_manager->start();
    m_reloader = std::make_unique<Reloader>(*flags, *m_plugins, *m_manager);
    connect(m_reloader.get(), &Reloader::finished, this,
        [this](bool, const QString &summary) { m_lastSummary = summary; });
}

bool tst_Reloader::reload()
{
    QSignalSpy finished(m_reloader.get(), &Reloader::finished);
    m_reloader->reload(QStringLiteral("test"));
    if (finished.isEmpty() && !finished.wait(10000))
        qFatal("the reload did not finish");
    return finished.constFirst().constFirst().toBool();
}

PluginSpec *tst_Reloader::plugin(const QString &name) const
{
    for (const auto &p : m_plugins->plugins()) {
        if (p->name() == name)
            return p.get();
    }
    return nullptr;
}

void tst_Reloader::settingsChangeRestartsOnlyThatController()
{
    startHost({QStringLiteral("fixture-configmaps"), QStringLiteral("fixture-optional")},
        "controllers: ['*', fixture-optional]\n"
        "controllerConfig:\n"
        "  fixture-configmaps: {workers: 2, settings: {annotation: a/b}}\n");
    PluginSpec *configmaps = plugin(QStringLiteral("fixture-configmaps"));
    PluginSpec *optional = plugin(QStringLiteral("fixture-optional"));
    QCOMPARE(configmaps->state(), PluginState::Running);
    QCOMPARE(optional->state(), PluginState::Running);
    // Identity through QPointer: a new Controller may get the address of a destroyed one.
    const QPointer<Controller> oldConfigmaps = configmaps->controller();
    const QPointer<Controller> oldOptional = optional->controller();
    QTRY_VERIFY(oldConfigmaps->hasSynced());

    // Nothing changed: nothing happens.
    QSignalSpy states(configmaps, &PluginSpec::stateChanged);
    QVERIFY(reload());
    QCOMPARE(m_lastSummary, QStringLiteral("no change to the controllers"));
    QCOMPARE(states.size(), 0);
    QCOMPARE(configmaps->controller(), oldConfigmaps.data());

    writeConfig("controllers: ['*', fixture-optional]\n"
                "controllerConfig:\n"
                "  fixture-configmaps: {workers: 3, settings: {annotation: c/d}}\n");
    QVERIFY(reload());
    QCOMPARE(m_lastSummary, QStringLiteral("changed: fixture-configmaps"));
    // Running -> Stopped -> Configured -> Running: restarted in place, library kept.
    QList<PluginState> seen;
    for (const QList<QVariant> &s : std::as_const(states))
        seen << s.constFirst().value<PluginState>();
    QCOMPARE(seen,
        (QList<PluginState> {PluginState::Stopped, PluginState::Configured, PluginState::Running}));
    QCOMPARE(configmaps->state(), PluginState::Running);
    QVERIFY(!oldConfigmaps); // destroyed: a new one runs
    QCOMPARE(configmaps->controller()->context().workers(), 3);
    QCOMPARE(configmaps->controller()->context().settings().value(QStringLiteral("annotation")),
        QVariant(QStringLiteral("c/d")));
    QTRY_VERIFY(configmaps->controller()->hasSynced()); // on the informer it shared
    // The other one was not touched.
    QCOMPARE(optional->state(), PluginState::Running);
    QCOMPARE(optional->controller(), oldOptional.data());
    QCOMPARE(
        m_manager->config().controllerConfig.value(QStringLiteral("fixture-configmaps")).workers,
        std::optional<int>(3));

    // minResyncPeriod: restarts the controllers without a resyncPeriod of their own.
    const QPointer<Controller> restarted = configmaps->controller();
    writeConfig("controllers: ['*', fixture-optional]\n"
                "minResyncPeriod: 1h\n"
                "controllerConfig:\n"
                "  fixture-configmaps: {workers: 3, settings: {annotation: c/d}}\n");
    QVERIFY(reload());
    QCOMPARE(m_lastSummary, QStringLiteral("changed: fixture-configmaps, fixture-optional"));
    QVERIFY(!restarted);
    QVERIFY(!oldOptional);
    const Duration resync = optional->controller()->context().resyncPeriod();
    QVERIFY(resync >= 1h && resync < 2h);
}

void tst_Reloader::disableStopsAndUnloadsEnableStartsAgain()
{
    startHost({QStringLiteral("fixture-configmaps"), QStringLiteral("fixture-optional")},
        "controllers: ['*']\n");
    PluginSpec *configmaps = plugin(QStringLiteral("fixture-configmaps"));
    PluginSpec *optional = plugin(QStringLiteral("fixture-optional"));
    QCOMPARE(configmaps->state(), PluginState::Running);
    QCOMPARE(optional->state(), PluginState::Discovered); // off by default

    writeConfig("controllers: ['*', '-fixture-configmaps', fixture-optional]\n");
    QSignalSpy states(configmaps, &PluginSpec::stateChanged);
    QVERIFY(reload());
    QCOMPARE(
        m_lastSummary, QStringLiteral("enabled: fixture-optional; disabled: fixture-configmaps"));
    QCOMPARE(configmaps->state(), PluginState::Unloaded);
    QVERIFY(!configmaps->isLibraryLoaded());
    QVERIFY(!configmaps->controller());
    QCOMPARE(states.size(), 2); // stopped, unloaded
    QCOMPARE(optional->state(), PluginState::Running);
    QVERIFY(!configmaps->isEnabled());
    QVERIFY(optional->isEnabled());

    writeConfig("controllers: ['*', fixture-optional]\n");
    QVERIFY(reload());
    QCOMPARE(m_lastSummary, QStringLiteral("enabled: fixture-configmaps"));
    QCOMPARE(configmaps->state(), PluginState::Running); // unloaded -> loaded -> ... -> running
    QVERIFY(configmaps->controller() != nullptr);
    QTRY_VERIFY(configmaps->controller()->hasSynced());
    QCOMPARE(optional->state(), PluginState::Running);
}

void tst_Reloader::invalidConfigurationChangesNothing_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("message"); // after "<file>: "
    // Line numbers count the two lines writeConfig() puts first.
    QTest::newRow("malformed YAML")
        << QByteArray("controllers: ['*', -fixture-configmaps\n")
        << QStringLiteral("malformed YAML at line 4, column 1: end of sequence flow not found");
    QTest::newRow("unknown field")
        << QByteArray("controllers: ['*']\ncontrolerConfig: {}\n")
        << QStringLiteral("controlerConfig: unknown field; the fields here are apiVersion");
    QTest::newRow("bad duration")
        << QByteArray("controllerShutdownTimeout: 10\n")
        << QStringLiteral("controllerShutdownTimeout: missing unit in duration \"10\"");
    QTest::newRow("bad number")
        << QByteArray("controllerConfig:\n  fixture-configmaps: {workers: 0}\n")
        << QStringLiteral("controllerConfig.fixture-configmaps.workers: must be between 1 and "
                          "1000, not 0 (line 4, column 33)");
    QTest::newRow("unknown controller")
        << QByteArray("controllers: ['*', fixture-configmap]\n")
        << QStringLiteral("controllers: \"fixture-configmap\" is not in the list of known "
                          "controllers; the known controllers are fixture-configmaps, "
                          "fixture-optional (disabled by default: fixture-optional) (line 3, "
                          "column 14)");
    QTest::newRow("unknown controllerConfig entry")
        << QByteArray("controllerConfig:\n  fixture-optionl: {workers: 2}\n")
        << QStringLiteral("controllerConfig.fixture-optionl: \"fixture-optionl\" is not in "
                          "the list of known controllers");
    QTest::newRow("a field that needs a restart")
        << QByteArray("controllers: ['*', '-fixture-configmaps']\nkubeconfig: /other\n")
        << QStringLiteral("kubeconfig: cannot change without a restart (running with \"\", the "
                          "new configuration has \"/other\") (line 4, column 13)");
}

void tst_Reloader::invalidConfigurationChangesNothing()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, message);
    startHost({QStringLiteral("fixture-configmaps"), QStringLiteral("fixture-optional")},
        "controllers: ['*', fixture-optional]\n"
        "controllerConfig:\n"
        "  fixture-configmaps: {workers: 2}\n");
    PluginSpec *configmaps = plugin(QStringLiteral("fixture-configmaps"));
    PluginSpec *optional = plugin(QStringLiteral("fixture-optional"));
    const QPointer<Controller> a = configmaps->controller();
    const QPointer<Controller> b = optional->controller();
    QSignalSpy statesA(configmaps, &PluginSpec::stateChanged);
    QSignalSpy statesB(optional, &PluginSpec::stateChanged);

    writeConfig(yaml);
    QVERIFY(!reload());
    QVERIFY2(m_lastSummary.startsWith(m_configFile + QStringLiteral(": ") + message),
        qPrintable(m_lastSummary));
    // Exactly as it was: states, Controller objects, enabled flags, the configuration.
    QCOMPARE(statesA.size(), 0);
    QCOMPARE(statesB.size(), 0);
    QCOMPARE(configmaps->controller(), a.data());
    QCOMPARE(optional->controller(), b.data());
    QVERIFY(configmaps->isEnabled());
    QVERIFY(optional->isEnabled());
    QCOMPARE(m_manager->config().controllers,
        (QStringList {QStringLiteral("*"), QStringLiteral("fixture-optional")}));
    QCOMPARE(m_manager->config().kubeconfig, QString());

    // The file fixed: applied.
    writeConfig("controllers: ['*']\ncontrollerConfig:\n  fixture-configmaps: {workers: 2}\n");
    QVERIFY(reload());
    QCOMPARE(m_lastSummary, QStringLiteral("disabled: fixture-optional"));
    QCOMPARE(configmaps->controller(), a.data());
}

void tst_Reloader::configurationFileIsWatchedThroughRenames()
{
    startHost({QStringLiteral("fixture-configmaps"), QStringLiteral("fixture-optional")},
        "controllers: ['*']\n");
    // Settling far longer than the pauses of the writes below, so that a busy machine does
    // not see a half-written file as settled.
    m_reloader->watch(300ms);
    QSignalSpy finished(m_reloader.get(), &Reloader::finished);
    PluginSpec *optional = plugin(QStringLiteral("fixture-optional"));

    // As an editor saves: a new file renamed over the old one (inotify forgets the old one).
    auto saveAs = [&](const QByteArray &yaml) {
        const QString real = m_configFile;
        m_configFile = m_dir->filePath(QStringLiteral(".controller-manager.yaml.swp"));
        writeConfig(yaml);
        m_configFile = real;
        QVERIFY(::rename(QFile::encodeName(
                             m_dir->filePath(QStringLiteral(".controller-manager.yaml.swp"))),
                    QFile::encodeName(m_configFile))
            == 0);
    };
    saveAs("controllers: ['*', fixture-optional]\n");
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10000);
    QVERIFY(finished.constLast().constFirst().toBool());
    QCOMPARE(optional->state(), PluginState::Running);

    // Again: the watch was added back.
    saveAs("controllers: ['*']\n");
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 10000);
    QCOMPARE(optional->state(), PluginState::Unloaded);

    // Written in place, in pieces: one reload, once the file has settled.
    {
        QFile file(m_configFile);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write("pluginDirs: [plugins]\nleaderElection: {leaderElect: false}\n");
        file.flush();
        QTest::qWait(10);
        file.write("controllers: ['*', fixture-optional]\n");
    }
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 3, 10000);
    QVERIFY(finished.constLast().constFirst().toBool());
    QCOMPARE(optional->state(), PluginState::Running);
    QTest::qWait(1000); // more than the two looks of a change
    QCOMPARE(finished.size(), 3);

    // Touched, or written back unchanged: no reload.
    {
        QFile file(m_configFile);
        QVERIFY(file.open(QIODevice::ReadWrite));
        const QByteArray same = file.readAll();
        file.seek(0);
        file.write(same);
    }
    QTest::qWait(1000); // more than the two looks of a change
    QCOMPARE(finished.size(), 3);
}

void tst_Reloader::droppedPluginIsStarted()
{
    startHost({QStringLiteral("fixture-configmaps")}, "controllers: ['*']\n");
    // Settling far longer than the pauses of the writes below, so that a busy machine does
    // not see a half-written file as settled.
    m_reloader->watch(300ms);
    QSignalSpy finished(m_reloader.get(), &Reloader::finished);
    const QPointer<Controller> configmaps
        = plugin(QStringLiteral("fixture-configmaps"))->controller();

    // On by default: found, checked and started.
    copyFixture(QStringLiteral("fixture-labelled"));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10000);
    PluginSpec *labelled = plugin(QStringLiteral("fixture-labelled"));
    QVERIFY(labelled);
    QCOMPARE(labelled->state(), PluginState::Running);
    QVERIFY(labelled->isEnabled());
    QTRY_VERIFY(labelled->controller()->hasSynced());
    QCOMPARE(plugin(QStringLiteral("fixture-configmaps"))->controller(), configmaps.data());

    // Off by default: found, not started; a reload that names it starts it.
    copyFixture(QStringLiteral("fixture-optional"));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 10000);
    PluginSpec *optional = plugin(QStringLiteral("fixture-optional"));
    QVERIFY(optional);
    QCOMPARE(optional->state(), PluginState::Discovered);
    QVERIFY(!optional->isLibraryLoaded());
    writeConfig("controllers: ['*', fixture-optional]\n");
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 3, 10000); // the file is watched too
    QCOMPARE(optional->state(), PluginState::Running);

    // A broken one: refused from its metadata, nothing of it runs, the rest go on.
    copyFixture(QStringLiteral("fixture-future-sdk"));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 4, 10000);
    PluginSpec *future = plugin(QStringLiteral("fixture-future-sdk"));
    QVERIFY(future);
    QCOMPARE(future->state(), PluginState::Failed);
    QCOMPARE(future->error().kind, PluginError::Kind::IncompatibleSdk);
    QVERIFY(!future->isLibraryLoaded());

    // A second file with a name already running: refused, naming the file that has it; the
    // running one is untouched.
    copyFixture(QStringLiteral("fixture-labelled"), QStringLiteral("libcopy.so"));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 5, 10000);
    PluginSpec *copy = nullptr;
    for (const auto &p : m_plugins->plugins()) {
        if (p->filePath().endsWith(QLatin1String("/libcopy.so")))
            copy = p.get();
    }
    QVERIFY(copy);
    QCOMPARE(copy->error().kind, PluginError::Kind::DuplicateName);
    QCOMPARE(copy->error().message,
        QStringLiteral("duplicate controller name \"fixture-labelled\": also provided by %1")
            .arg(labelled->filePath()));
    QCOMPARE(labelled->state(), PluginState::Running);

    // Being copied (a file that grows in steps): read once it has settled, not half-written.
    // The copy runs on a thread of its own, as cp would in a process of its own, so that a
    // reload step holding the event loop does not hold the copy. Its four parts are exact:
    // they once overlapped by a byte, which shifted the rest of the file, and the copy was a
    // corrupt ELF that happened to load until the ASan build at -O1, where dlopen() crashed in
    // the dynamic loader.
    const QString big = m_pluginDir + QStringLiteral("/libslow.so");
    QFile source(fixture(QStringLiteral("fixture-throws")));
    QVERIFY(source.open(QIODevice::ReadOnly));
    const QByteArray bytes = source.readAll();
    std::atomic<bool> written {false};
    std::thread copier([&big, &bytes, &written] {
        QFile target(big);
        if (!target.open(QIODevice::WriteOnly))
            return;
        for (qsizetype i = 0; i < 4; ++i) {
            const qsizetype begin = i * bytes.size() / 4, end = (i + 1) * bytes.size() / 4;
            target.write(bytes.constData() + begin, end - begin);
            target.flush();
            std::this_thread::sleep_for(30ms);
        }
        target.close();
        written = target.size() == bytes.size();
    });
    const auto joinCopier = qScopeGuard([&copier] { copier.join(); });
    QTRY_VERIFY_WITH_TIMEOUT(written.load(), 10000);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 6, 10000);
    PluginSpec *slow = plugin(QStringLiteral("fixture-throws"));
    QVERIFY(slow);
    QCOMPARE(slow->state(), PluginState::Failed);
    QCOMPARE(slow->error().kind, PluginError::Kind::FactoryFailed); // read whole, then created
}

void tst_Reloader::removedOrReplacedPluginKeepsRunning()
{
    startHost({QStringLiteral("fixture-configmaps"), QStringLiteral("fixture-optional")},
        "controllers: ['*']\n");
    PluginSpec *configmaps = plugin(QStringLiteral("fixture-configmaps"));
    const QPointer<Controller> running = configmaps->controller();
    const QString optionalFile = plugin(QStringLiteral("fixture-optional"))->filePath();

    // Removed: the running controller runs on, its record marked; the record of one whose
    // library was never loaded goes.
    QVERIFY(QFile::remove(configmaps->filePath()));
    QVERIFY(QFile::remove(optionalFile));
    m_reloader->rescan(QStringLiteral("test"));
    QCOMPARE(configmaps->state(), PluginState::Running);
    QCOMPARE(configmaps->controller(), running.data());
    QVERIFY(configmaps->isFileChanged());
    QVERIFY(!plugin(QStringLiteral("fixture-optional")));
    QCOMPARE(m_lastSummary, QStringLiteral("gone: %1").arg(optionalFile));

    // Put back (a new file at the same path, as a package upgrade does): the controller still
    // runs what it loaded, and the new file is not read; the never-loaded one is read again.
    copyFixture(QStringLiteral("fixture-configmaps"));
    copyFixture(QStringLiteral("fixture-optional"));
    QVERIFY(reload());
    QCOMPARE(plugin(QStringLiteral("fixture-configmaps")), configmaps);
    QCOMPARE(configmaps->state(), PluginState::Running);
    QCOMPARE(configmaps->controller(), running.data());
    QVERIFY(configmaps->isFileChanged());
    QVERIFY(configmaps->fileIdentity() != FileIdentity::of(configmaps->filePath()));
    QVERIFY(plugin(QStringLiteral("fixture-optional")));
    QCOMPARE(plugin(QStringLiteral("fixture-optional"))->state(), PluginState::Discovered);

    // Disabled: it stops and unloads. Enabled again: not started from a changed file (dlopen
    // would hand out the old code for that path); that takes a restart of qcm.
    writeConfig("controllers: ['*', '-fixture-configmaps']\n");
    QVERIFY(reload());
    QCOMPARE(configmaps->state(), PluginState::Unloaded);
    writeConfig("controllers: ['*']\n");
    QVERIFY(reload());
    QCOMPARE(plugin(QStringLiteral("fixture-configmaps")), configmaps);
    QCOMPARE(configmaps->state(), PluginState::Unloaded);
    QVERIFY(configmaps->isEnabled());
}

void tst_Reloader::failedControllerIsTriedAgainWhenItsSpecChanges()
{
    startHost({QStringLiteral("fixture-throws"), QStringLiteral("fixture-optional")},
        "controllers: ['*', fixture-optional]\n");
    PluginSpec *throws = plugin(QStringLiteral("fixture-throws"));
    QCOMPARE(throws->state(), PluginState::Failed);
    QCOMPARE(throws->error().kind, PluginError::Kind::FactoryFailed);

    // Nothing about it changed: not tried again.
    QSignalSpy states(throws, &PluginSpec::stateChanged);
    QVERIFY(reload());
    QCOMPARE(states.size(), 0);

    // Its settings changed: unloaded, loaded, created again (and it throws again).
    writeConfig("controllers: ['*', fixture-optional]\n"
                "controllerConfig:\n  fixture-throws: {settings: {fixed: true}}\n");
    QVERIFY(reload());
    QList<PluginState> seen;
    for (const QList<QVariant> &s : std::as_const(states))
        seen << s.constFirst().value<PluginState>();
    QCOMPARE(seen,
        (QList<PluginState> {PluginState::Unloaded, PluginState::Loaded, PluginState::Failed}));
    QCOMPARE(throws->error().kind, PluginError::Kind::FactoryFailed);
    QCOMPARE(plugin(QStringLiteral("fixture-optional"))->state(), PluginState::Running);
}

void tst_Reloader::stopDrainsWithoutBlockingTheEventLoop()
{
    // An API server that takes connections and never answers: the controller's one
    // reconcile blocks in its PATCH until the client's timeout.
    QTcpServer silent;
    QVERIFY(silent.listen(QHostAddress::LocalHost));
    client::RestConfig restConfig;
    restConfig.server = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(silent.serverPort()));
    restConfig.timeout = 3s;
    client::RestClient restClient(restConfig);
    m_lists.push_back({cache::testing::cm(QStringLiteral("a"), QStringLiteral("5"))});
    startHost({QStringLiteral("fixture-configmaps"), QStringLiteral("fixture-optional")},
        "controllers: ['*', fixture-optional]\n"
        "controllerShutdownTimeout: 400ms\n"
        "controllerConfig:\n  fixture-configmaps: {}\n",
        &restClient);
    PluginSpec *configmaps = plugin(QStringLiteral("fixture-configmaps"));
    QTRY_COMPARE(configmaps->controller()->activeWorkers(), 1); // stuck in its PATCH

    writeConfig("controllers: ['*', fixture-optional]\n"
                "controllerShutdownTimeout: 400ms\n"
                "controllerConfig:\n  fixture-configmaps: {workers: 2}\n");
    int ticks = 0;
    QTimer ticker;
    connect(&ticker, &QTimer::timeout, this, [&] { ++ticks; });
    ticker.start(10);
    QSignalSpy finished(m_reloader.get(), &Reloader::finished);
    const auto began = steady_clock::now();
    m_reloader->reload(QStringLiteral("test"));
    QVERIFY(m_reloader->isBusy()); // the stop runs on
    QVERIFY(finished.wait(5000));
    const auto took = steady_clock::now() - began;
    ticker.stop();
    // The event loop ran all along: ~40 ticks in 400 ms (at least a few on a busy machine).
    QVERIFY2(ticks >= 5, qPrintable(QString::number(ticks)));
    QVERIFY(took >= 390ms);
    QVERIFY(took < 3s);
    // Past the timeout: failed, its workers abandoned, its library kept; the other one runs.
    QCOMPARE(configmaps->state(), PluginState::Failed);
    QCOMPARE(configmaps->error().kind, PluginError::Kind::StopTimedOut);
    QVERIFY(configmaps->isLibraryLoaded());
    QCOMPARE(plugin(QStringLiteral("fixture-optional"))->state(), PluginState::Running);
    // Left alone by later reloads.
    QVERIFY(reload());
    QCOMPARE(configmaps->state(), PluginState::Failed);
    // Not reclaimed while its worker is still in reconcile().
    QVERIFY(!configmaps->reclaim());
    QCOMPARE(configmaps->error().kind, PluginError::Kind::StopTimedOut);

    // The abandoned worker comes back (its PATCH times out): the stop is over after all, and
    // reclaim() unloads it, ready to load again (a controller-scope term that starts again,
    // ControllerManager::startHeld).
    QTRY_COMPARE_WITH_TIMEOUT(configmaps->controller()->activeWorkers(), 0, 10000);
    QVERIFY(configmaps->reclaim());
    QCOMPARE(configmaps->state(), PluginState::Unloaded);
    QVERIFY(!configmaps->error().isError());
    QVERIFY(!configmaps->controller());
    QVERIFY(configmaps->load());
    m_reloader->shutdown();
    m_manager->shutdown();
    m_reloader.reset();
    m_manager.reset();
}

void tst_Reloader::leaderElectionDecidesWhatAReloadStarts()
{
    // fixture-configmaps and fixture-labelled need leader election; fixture-optional not.
    startHost({QStringLiteral("fixture-configmaps"), QStringLiteral("fixture-labelled"),
                  QStringLiteral("fixture-optional")},
        "controllers: ['*', '-fixture-labelled']\n", nullptr, true);
    PluginSpec *configmaps = plugin(QStringLiteral("fixture-configmaps"));
    PluginSpec *labelled = plugin(QStringLiteral("fixture-labelled"));
    PluginSpec *optional = plugin(QStringLiteral("fixture-optional"));
    QVERIFY(!m_manager->isLeading());
    QCOMPARE(configmaps->state(), PluginState::Loaded); // on standby
    QVERIFY(!m_reloader->mayRun(*configmaps));
    QVERIFY(m_reloader->mayRun(*optional));

    // A follower: a newly enabled leader's controller waits on standby; one that needs no
    // leader election starts.
    writeConfig("controllers: ['*', fixture-optional]\n");
    QVERIFY(reload());
    QCOMPARE(labelled->state(), PluginState::Loaded);
    QCOMPARE(configmaps->state(), PluginState::Loaded);
    QCOMPARE(optional->state(), PluginState::Running);

    // Leading: both start, with the configuration of the last reload.
    writeConfig("controllers: ['*', fixture-optional]\n"
                "controllerConfig:\n  fixture-labelled: {workers: 4}\n");
    QVERIFY(reload());
    QCOMPARE(labelled->state(), PluginState::Loaded);
    m_manager->startLeading();
    QCOMPARE(labelled->state(), PluginState::Running);
    QCOMPARE(labelled->controller()->context().workers(), 4);
    QCOMPARE(configmaps->state(), PluginState::Running);

    // While leading, a reload stops, starts and restarts them itself.
    writeConfig("controllers: ['*', fixture-optional, '-fixture-configmaps']\n"
                "controllerConfig:\n  fixture-labelled: {workers: 2}\n");
    QVERIFY(reload());
    QCOMPARE(configmaps->state(), PluginState::Unloaded);
    QCOMPARE(labelled->state(), PluginState::Running);
    QCOMPARE(labelled->controller()->context().workers(), 2);
    writeConfig("controllers: ['*', fixture-optional]\n"
                "controllerConfig:\n  fixture-labelled: {workers: 2}\n");
    QVERIFY(reload());
    QCOMPARE(configmaps->state(), PluginState::Running);
}

void tst_Reloader::requestsDuringAReloadRunAfterIt()
{
    startHost({QStringLiteral("fixture-configmaps"), QStringLiteral("fixture-optional")},
        "controllers: ['*']\n");
    QSignalSpy finished(m_reloader.get(), &Reloader::finished);
    writeConfig("controllers: ['*', '-fixture-configmaps']\n"); // a stop: the reload lasts
    m_reloader->reload(QStringLiteral("first"));
    QVERIFY(m_reloader->isBusy());
    writeConfig("controllers: ['*', fixture-optional]\n");
    m_reloader->reload(QStringLiteral("second"));
    m_reloader->rescan(QStringLiteral("third")); // folded into the second
    QTRY_COMPARE(finished.size(), 2);
    QTest::qWait(100);
    QCOMPARE(finished.size(), 2);
    QCOMPARE(finished.at(0).at(1).toString(), QStringLiteral("disabled: fixture-configmaps"));
    QCOMPARE(finished.at(1).at(1).toString(),
        QStringLiteral("enabled: fixture-configmaps, fixture-optional"));
    QCOMPARE(plugin(QStringLiteral("fixture-configmaps"))->state(), PluginState::Running);
    QCOMPARE(plugin(QStringLiteral("fixture-optional"))->state(), PluginState::Running);
}

void tst_Reloader::sighupIsAReloadRequest()
{
    SignalWatcher watcher;
    QSignalSpy reloads(&watcher, &SignalWatcher::reloadRequested);
    QSignalSpy shutdowns(&watcher, &SignalWatcher::shutdownRequested);
    ::raise(SIGHUP);
    ::raise(SIGHUP);
    QTRY_COMPARE(reloads.size(), 2); // each one, and the process lives on
    QCOMPARE(shutdowns.size(), 0);
}

QTEST_GUILESS_MAIN(tst_Reloader)
#include "tst_reloader.moc"
