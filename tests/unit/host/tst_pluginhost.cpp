// SPDX-License-Identifier: Apache-2.0
// The plugin host against real plugin files: every broken fixture is refused with its own
// typed error and message while the good plugins run, duplicate names and missing directories
// are reported, and the configuration's choice of controllers follows kube-controller-manager.
// The controllers run against fake informers (no API server).
#include "../cache/fakelisterwatcher.h"

#include "controllers/controllermanager.h"
#include "plugins/pluginhost.h"

#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/metrics/registry.h>
#include <qcm/metrics/textserializer.h>

#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::host;
using namespace std::chrono;

Q_DECLARE_METATYPE(qcm::host::PluginError::Kind)

class tst_PluginHost : public QObject
{
    Q_OBJECT

private slots:
    void brokenPluginsAreRefused_data();
    void brokenPluginsAreRefused();
    void garbageFileNamedSo();
    void missingDirectorySkipsOnlyItself();
    void duplicateNamesNameBothFiles();
    void selection();
    void unknownControllerIsAConfigError();
    void unknownControllerConfigEntryIsAConfigError();
    void goodPluginsRunWhileBrokenOnesFail();
    void listing();

private:
    // A directory holding copies of the named fixtures.
    std::unique_ptr<QTemporaryDir> directoryWith(const QStringList &fixtures);
};

namespace {

QString fixture(const QString &name)
{
    return QStringLiteral(QCM_FIXTURE_PLUGIN_DIR "/lib%1.so").arg(name);
}

ControllerManagerConfig configFor(
    const QString &dir, QStringList controllers = {QStringLiteral("*")})
{
    ControllerManagerConfig config;
    config.pluginDirs = {dir};
    config.controllers = std::move(controllers);
    config.controllerShutdownTimeout = 5s;
    return config;
}

} // namespace

std::unique_ptr<QTemporaryDir> tst_PluginHost::directoryWith(const QStringList &fixtures)
{
    auto dir = std::make_unique<QTemporaryDir>();
    for (const QString &name : fixtures) {
        if (!QFile::copy(fixture(name), dir->filePath(QStringLiteral("lib%1.so").arg(name))))
            qFatal("cannot copy fixture %s", qPrintable(name));
    }
    return dir;
}

void tst_PluginHost::brokenPluginsAreRefused_data()
{
    using K = PluginError::Kind;
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<PluginError::Kind>("kind");
    QTest::addColumn<QString>("name"); // what the listing can call it
    QTest::addColumn<QString>("message");
    QTest::newRow("not a Qt plugin") << QStringLiteral("fixture-not-a-plugin") << K::NotAPlugin
                                     << QString() << QStringLiteral("not a Qt plugin: ");
    QTest::newRow("wrong IID")
        << QStringLiteral("fixture-wrong-iid") << K::WrongIid << QString()
        << QStringLiteral(
               "not a qcm controller plugin: expected IID \"io.qcm.ControllerPlugin/1\", "
               "but found \"org.example.SomethingElse/1\"");
    QTest::newRow("missing metadata")
        << QStringLiteral("fixture-no-metadata") << K::MissingMetaData << QString()
        << QStringLiteral("no plugin metadata: Q_PLUGIN_METADATA names no FILE");
    QTest::newRow("incompatible SDK major")
        << QStringLiteral("fixture-future-sdk") << K::IncompatibleSdk
        << QStringLiteral("fixture-future-sdk")
        << QStringLiteral("incompatible SDK: built against qcm SDK 2.0.0 (plugin ABI 2); this host "
                          "has SDK " QCM_VERSION_STRING " (plugin ABI 1)");
}

void tst_PluginHost::brokenPluginsAreRefused()
{
    QFETCH(QString, fixture);
    QFETCH(PluginError::Kind, kind);
    QFETCH(QString, name);
    QFETCH(QString, message);
    const auto dir = directoryWith({fixture});
    PluginHost host;
    host.discover({dir->path()});
    QCOMPARE(host.plugins().size(), size_t(1));
    const PluginSpec &spec = *host.plugins().front();
    QCOMPARE(spec.state(), PluginState::Failed);
    QCOMPARE(spec.error().kind, kind);
    QVERIFY2(spec.error().message.startsWith(message), qPrintable(spec.error().message));
    QCOMPARE(spec.name(), name);
    // Validation ran none of its code.
    QVERIFY(!spec.isLibraryLoaded());
}

void tst_PluginHost::garbageFileNamedSo()
{
    QTemporaryDir dir;
    QFile garbage(dir.filePath(QStringLiteral("libgarbage.so")));
    QVERIFY(garbage.open(QIODevice::WriteOnly));
    garbage.write("this is not an ELF file\n");
    garbage.close();
    PluginHost host;
    host.discover({dir.path()});
    QCOMPARE(host.plugins().size(), size_t(1));
    QCOMPARE(host.plugins().front()->state(), PluginState::Failed);
    QCOMPARE(host.plugins().front()->error().kind, PluginError::Kind::NotAPlugin);
    QVERIFY2(host.plugins().front()->error().message.startsWith(QLatin1String("not a Qt plugin: ")),
        qPrintable(host.plugins().front()->error().message));
}

void tst_PluginHost::missingDirectorySkipsOnlyItself()
{
    const auto dir = directoryWith({QStringLiteral("fixture-optional")});
    PluginHost host;
    host.discover({QStringLiteral("/nonexistent/qcm-plugins"), dir->path()});
    QCOMPARE(host.directoryErrors().size(), 1);
    QCOMPARE(host.directoryErrors().constFirst().toString(),
        QStringLiteral("/nonexistent/qcm-plugins: plugin directory does not exist"));
    QCOMPARE(host.plugins().size(), size_t(1));
    QCOMPARE(host.plugins().front()->state(), PluginState::Discovered);
}

void tst_PluginHost::duplicateNamesNameBothFiles()
{
    const auto a = directoryWith({QStringLiteral("fixture-optional")});
    const auto b
        = directoryWith({QStringLiteral("fixture-optional"), QStringLiteral("fixture-configmaps")});
    PluginHost host;
    host.discover({a->path(), b->path()});
    QCOMPARE(host.plugins().size(), size_t(3));
    const QString fileA = a->filePath(QStringLiteral("libfixture-optional.so"));
    const QString fileB = b->filePath(QStringLiteral("libfixture-optional.so"));
    for (const auto &p : host.plugins()) {
        if (p->name() != QLatin1String("fixture-optional")) {
            QCOMPARE(p->state(), PluginState::Discovered); // the other plugin is unaffected
            continue;
        }
        QCOMPARE(p->state(), PluginState::Failed);
        QCOMPARE(p->error().kind, PluginError::Kind::DuplicateName);
        const QString other = p->filePath() == fileA ? fileB : fileA;
        QCOMPARE(p->error().message,
            QStringLiteral("duplicate controller name \"fixture-optional\": also provided by %1")
                .arg(other));
    }
    QVERIFY(!host.find(QStringLiteral("fixture-optional"))); // neither copy is usable
    QVERIFY(host.find(QStringLiteral("fixture-configmaps")));
}

void tst_PluginHost::selection()
{
    const auto dir
        = directoryWith({QStringLiteral("fixture-optional"), QStringLiteral("fixture-configmaps")});
    auto enabled = [&](const QStringList &controllers) {
        PluginHost host;
        host.discover({dir->path()});
        const auto error = host.select(configFor(dir->path(), controllers));
        if (error)
            qFatal("%s", qPrintable(error->toString()));
        QStringList names;
        for (const auto &p : host.plugins()) {
            if (p->isEnabled())
                names << p->name();
        }
        return names;
    };
    const QString configmaps = QStringLiteral("fixture-configmaps");
    const QString optional = QStringLiteral("fixture-optional");
    {
        PluginHost host;
        host.discover({dir->path()});
        QVERIFY(host.find(optional));
        QCOMPARE(host.find(optional)->metaData().version, QStringLiteral("0.0.1"));
        QVERIFY(!host.find(QStringLiteral("nope")));
    }
    QCOMPARE(enabled({QStringLiteral("*")}), QStringList {configmaps});
    QCOMPARE(enabled({QStringLiteral("*"), optional}), (QStringList {configmaps, optional}));
    QCOMPARE(enabled({optional}), QStringList {optional});
    QCOMPARE(enabled({QStringLiteral("*"), QStringLiteral("-fixture-configmaps")}), QStringList {});
    QCOMPARE(enabled({}), QStringList {});
}

void tst_PluginHost::unknownControllerIsAConfigError()
{
    const auto dir
        = directoryWith({QStringLiteral("fixture-optional"), QStringLiteral("fixture-configmaps"),
            QStringLiteral("fixture-future-sdk"), QStringLiteral("fixture-no-metadata")});
    PluginHost host;
    host.discover({dir->path()});
    ControllerManagerConfig config = configFor(dir->path(),
        {QStringLiteral("*"), QStringLiteral("sample-controler"), QStringLiteral("-nope")});
    config.controllersOrigin = Origin {QStringLiteral("/etc/cm.yaml"),
        QStringLiteral("controllers"), QStringLiteral(" (line 3, column 14)")};
    const auto error = host.select(config);
    QVERIFY(error);
    // A failed plugin whose name could be read is known: naming it is not a config error.
    QCOMPARE(error->toString(),
        QStringLiteral("/etc/cm.yaml: controllers: \"sample-controler\" is not in the list of "
                       "known controllers; \"nope\" is not in the list of known controllers; the "
                       "known controllers are fixture-configmaps, fixture-future-sdk, "
                       "fixture-optional (disabled by default: fixture-optional) (line 3, "
                       "column 14)"));
    for (const auto &p : host.plugins())
        QVERIFY(!p->isEnabled()); // nothing is marked on a bad configuration

    PluginHost empty;
    empty.discover({});
    ControllerManagerConfig flags;
    flags.controllers = {QStringLiteral("foo")};
    flags.controllersOrigin = Origin {{}, QStringLiteral("--controllers"), {}};
    QCOMPARE(empty.select(flags)->toString(),
        QStringLiteral("--controllers: \"foo\" is not in the list of known controllers; no "
                       "controller plugin was found (plugin directories: none)"));
}

void tst_PluginHost::unknownControllerConfigEntryIsAConfigError()
{
    const auto dir = directoryWith({QStringLiteral("fixture-optional")});
    auto config
        = parseConfig(QByteArrayLiteral("controllerConfig:\n  fixture-optionl:\n    workers: 2\n"),
            QStringLiteral("/etc/cm.yaml"));
    QVERIFY(config.ok());
    config->pluginDirs = {dir->path()};
    PluginHost host;
    host.discover(config->pluginDirs);
    const auto error = host.select(*config);
    QVERIFY(error);
    QCOMPARE(error->toString(),
        QStringLiteral(
            "/etc/cm.yaml: controllerConfig.fixture-optionl: \"fixture-optionl\" is not "
            "in the list of known controllers; the known controllers are "
            "fixture-optional (disabled by default: fixture-optional) (line 2, column 3)"));
}

void tst_PluginHost::goodPluginsRunWhileBrokenOnesFail()
{
    const auto dir
        = directoryWith({QStringLiteral("fixture-configmaps"), QStringLiteral("fixture-optional"),
            QStringLiteral("fixture-throws"), QStringLiteral("fixture-unresolved"),
            QStringLiteral("fixture-wrong-iid"), QStringLiteral("fixture-no-metadata"),
            QStringLiteral("fixture-future-sdk"), QStringLiteral("fixture-not-a-plugin")});
    PluginHost host;
    host.discover({dir->path(), QStringLiteral("/nonexistent/plugins")});
    // Without leader election, so that every enabled controller starts at once.
    auto config = parseConfig(QByteArrayLiteral("controllers: ['*', fixture-optional]\n"
                                                "leaderElection: {leaderElect: false}\n"
                                                "controllerConfig:\n"
                                                "  fixture-configmaps:\n"
                                                "    workers: 3\n"
                                                "    resyncPeriod: 0s\n"
                                                "    settings: {annotation: x/y}\n"),
        QStringLiteral("cm.yaml"));
    QVERIFY(config.ok());
    config->pluginDirs = {dir->path()};
    QVERIFY(!host.select(*config));

    // Fake informers: every list is empty, every watch stays open.
    cache::SharedInformerFactory informers(
        [](const client::GroupVersionResource &,
            const cache::SharedInformerFactory::InformerOptions &) {
            return std::make_unique<cache::testing::FakeListerWatcher>();
        },
        Duration::zero());
    metrics::Registry registry;
    ControllerManager manager(
        *config, host, {nullptr, &informers, &registry, nullptr, nullptr, {}});
    QCOMPARE(manager.start(), 2);

    QMap<QString, const PluginSpec *> byName;
    for (const auto &p : host.plugins())
        byName.insert(
            p->name().isEmpty() ? QFileInfo(p->filePath()).fileName() : p->name(), p.get());
    const PluginSpec *configmaps = byName.value(QStringLiteral("fixture-configmaps"));
    const PluginSpec *optional = byName.value(QStringLiteral("fixture-optional"));
    QCOMPARE(configmaps->state(), PluginState::Running);
    QCOMPARE(optional->state(), PluginState::Running);
    QTRY_VERIFY(configmaps->controller()->hasSynced());
    QCOMPARE(configmaps->controller()->context().workers(), 3);
    QCOMPARE(configmaps->controller()->context().resyncPeriod(), Duration::zero());
    QCOMPARE(configmaps->controller()->context().settings().value(QStringLiteral("annotation")),
        QVariant(QStringLiteral("x/y")));
    // Without its own resyncPeriod a controller gets kube-controller-manager's [12h, 24h).
    const Duration resync = optional->controller()->context().resyncPeriod();
    QVERIFY(resync >= 12h && resync < 24h);

    const PluginSpec *throws = byName.value(QStringLiteral("fixture-throws"));
    QCOMPARE(throws->state(), PluginState::Failed);
    QCOMPARE(throws->error().kind, PluginError::Kind::FactoryFailed);
    QCOMPARE(throws->error().message,
        QStringLiteral("its factory threw: fixture-throws refuses to create a controller"));
    const PluginSpec *unresolved = byName.value(QStringLiteral("fixture-unresolved"));
    QCOMPARE(unresolved->state(), PluginState::Failed);
    QCOMPARE(unresolved->error().kind, PluginError::Kind::UnresolvedSymbol);
    QVERIFY2(unresolved->error().message.contains(
                 QLatin1String("undefined symbol: qcm_fixture_symbol_nobody_defines")),
        qPrintable(unresolved->error().message));
    QCOMPARE(byName.value(QStringLiteral("libfixture-wrong-iid.so"))->error().kind,
        PluginError::Kind::WrongIid);
    QCOMPARE(byName.value(QStringLiteral("fixture-future-sdk"))->error().kind,
        PluginError::Kind::IncompatibleSdk);
    QCOMPARE(byName.value(QStringLiteral("libfixture-no-metadata.so"))->error().kind,
        PluginError::Kind::MissingMetaData);
    QCOMPARE(byName.value(QStringLiteral("libfixture-not-a-plugin.so"))->error().kind,
        PluginError::Kind::NotAPlugin);
    QCOMPARE(host.directoryErrors().size(), 1);

    // Their metrics are in the shared registry, under their names.
    const QString exposition
        = QString::fromUtf8(metrics::TextSerializer::serialize(registry.collect()));
    QVERIFY(exposition.contains(
        QLatin1String("qcm_max_concurrent_reconciles{controller=\"fixture-configmaps\"} 3")));
    QVERIFY(
        exposition.contains(QLatin1String("workqueue_adds_total{name=\"fixture-optional\"} 0")));

    QVERIFY(manager.shutdown());
    QCOMPARE(configmaps->state(), PluginState::Unloaded);
    QCOMPARE(optional->state(), PluginState::Unloaded);
    QCOMPARE(throws->state(), PluginState::Unloaded); // its library was loaded: released
    QCOMPARE(throws->error().kind, PluginError::Kind::FactoryFailed); // the reason stays
    QCOMPARE(unresolved->state(), PluginState::Failed); // never loaded: nothing to release
}

void tst_PluginHost::listing()
{
    const auto dir = directoryWith({QStringLiteral("fixture-optional"),
        QStringLiteral("fixture-configmaps"), QStringLiteral("fixture-wrong-iid")});
    PluginHost host;
    host.discover({dir->path(), QStringLiteral("/nonexistent/plugins")});
    QVERIFY(!host.select(configFor(dir->path())));
    const QStringList lines = host.listing().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 5);
    QVERIFY(lines[0].startsWith(QLatin1String("NAME")));
    for (const char *column : {"VERSION", "STATE", "ENABLED", "FILE", "ERROR"})
        QVERIFY(lines[0].contains(QLatin1String(column)));
    auto row = [&](const char *name) {
        for (const QString &l : lines)
            if (l.startsWith(QLatin1String(name) + QLatin1Char(' ')))
                return l.simplified();
        return QString();
    };
    QCOMPARE(row("fixture-configmaps"),
        QStringLiteral("fixture-configmaps 1.2.3 discovered yes %1")
            .arg(dir->filePath(QStringLiteral("libfixture-configmaps.so"))));
    QCOMPARE(row("fixture-optional"),
        QStringLiteral("fixture-optional 0.0.1 discovered no %1")
            .arg(dir->filePath(QStringLiteral("libfixture-optional.so"))));
    const QString wrongIid = dir->filePath(QStringLiteral("libfixture-wrong-iid.so"));
    QString failedRow;
    for (const QString &l : lines)
        if (l.contains(wrongIid))
            failedRow = l.simplified();
    QCOMPARE(failedRow,
        QStringLiteral("- - failed no %1 not a qcm controller plugin: expected IID "
                       "\"io.qcm.ControllerPlugin/1\", but found \"org.example.SomethingElse/1\"")
            .arg(wrongIid));
    QCOMPARE(lines.constLast(),
        QStringLiteral("error: /nonexistent/plugins: plugin directory does not exist"));
}

QTEST_GUILESS_MAIN(tst_PluginHost)
#include "tst_pluginhost.moc"
