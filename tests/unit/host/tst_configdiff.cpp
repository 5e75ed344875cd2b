// SPDX-License-Identifier: Apache-2.0
// The difference between the running configuration and a reloaded one: which controllers a
// reload starts, stops and restarts, and which fields it refuses to change without a restart
// (app/config/configdiff.h).
#include "config/configdiff.h"

#include <qcm/sharding/shardfilter.h>

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::host;
using namespace std::chrono;

class tst_ConfigDiff : public QObject
{
    Q_OBJECT

private slots:
    void controllers_data();
    void controllers();
    void restartOnlyFields_data();
    void restartOnlyFields();
    void restartOnlyFieldLeftOut();
    void flagsOverrideTheFileInTheDiff();
    void specMatchesARunningContext();
    void summary();
};

namespace {

const QSet<QString> Known {
    QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("opt")};
const QSet<QString> DisabledByDefault {QStringLiteral("opt")};

// A filter that owns every key: only whether a context has one matters here.
class EveryKey : public qcm::sharding::ShardFilter
{
public:
    bool owns(const QString &) const override { return true; }
    Admission admit(const QString &) override { return Admission::Start; }
    void finished(const QString &) override { }
};

ControllerManagerConfig parsed(const QByteArray &yaml)
{
    auto config = parseConfig(yaml, QStringLiteral("/etc/qcm/cm.yaml"));
    if (!config)
        qFatal("%s", qPrintable(config.error().toString()));
    return *config;
}

} // namespace

void tst_ConfigDiff::controllers_data()
{
    QTest::addColumn<QByteArray>("running");
    QTest::addColumn<QByteArray>("next");
    QTest::addColumn<QStringList>("enabled");
    QTest::addColumn<QStringList>("disabled");
    QTest::addColumn<QStringList>("changed");
    const QStringList none;
    const QByteArray base = "controllers: ['*']\n"
                            "controllerConfig:\n"
                            "  a: {workers: 2, settings: {x: 1}}\n"
                            "  b: {resyncPeriod: 30s}\n";

    QTest::newRow("same file") << base << base << none << none << none;
    QTest::newRow("order and spelling of the list")
        << QByteArray("controllers: ['*', '-opt']\n") << QByteArray("controllers: ['-opt', '*']\n")
        << none << none << none;
    QTest::newRow("-a") << QByteArray("controllers: ['*']\n")
                        << QByteArray("controllers: ['*', '-a']\n") << none << QStringList {"a"}
                        << none;
    QTest::newRow("a disabled-by-default one named")
        << QByteArray("controllers: ['*']\n") << QByteArray("controllers: ['*', opt]\n")
        << QStringList {"opt"} << none << none;
    QTest::newRow("'*' removed: only those named stay")
        << QByteArray("controllers: ['*']\n") << QByteArray("controllers: [b]\n") << none
        << QStringList {"a", "c"} << none;
    QTest::newRow("workers") << base << QByteArray(base).replace("workers: 2", "workers: 3") << none
                             << none << QStringList {"a"};
    QTest::newRow("shards") << QByteArray("scaleOut: {group: g}\n") + base
                            << QByteArray("scaleOut: {group: g}\n")
            + QByteArray(base).replace("workers: 2", "workers: 2, shards: auto")
                            << none << none << QStringList {"a"};
    QTest::newRow("shards none written out is the default")
        << QByteArray("scaleOut: {group: g}\n") + base
        << QByteArray("scaleOut: {group: g}\n")
            + QByteArray(base).replace("workers: 2", "workers: 2, shards: none")
        << none << none << none;
    QTest::newRow("workers 1 written out is the default")
        << QByteArray("controllers: ['*']\n")
        << QByteArray("controllers: ['*']\ncontrollerConfig:\n  c: {workers: 1}\n") << none << none
        << none;
    QTest::newRow("settings") << base << QByteArray(base).replace("x: 1", "x: 2") << none << none
                              << QStringList {"a"};
    QTest::newRow("a setting's type (1 is not \"1\")")
        << base << QByteArray(base).replace("x: 1", "x: '1'") << none << none << QStringList {"a"};
    QTest::newRow("resyncPeriod") << base << QByteArray(base).replace("30s", "1m") << none << none
                                  << QStringList {"b"};
    QTest::newRow("minResyncPeriod: those without their own resyncPeriod")
        << base << QByteArray(base + "minResyncPeriod: 1h\n") << none << none
        << QStringList {"a", "c"};
    QTest::newRow("controllerShutdownTimeout restarts nothing")
        << base << QByteArray(base + "controllerShutdownTimeout: 3s\n") << none << none << none;
    QTest::newRow("a disabled controller's settings restart nothing")
        << QByteArray("controllers: ['*', '-a']\n")
        << QByteArray("controllers: ['*', '-a']\ncontrollerConfig:\n  a: {workers: 5}\n") << none
        << none << none;
    QTest::newRow("enabled and changed at once: started with the new spec")
        << QByteArray("controllers: ['*', '-a']\n")
        << QByteArray("controllers: ['*']\ncontrollerConfig:\n  a: {workers: 5}\n")
        << QStringList {"a"} << none << none;
    QTest::newRow("all at once") << base
                                 << QByteArray("controllers: ['*', '-b', opt]\n"
                                               "controllerConfig:\n"
                                               "  a: {workers: 2, settings: {x: 1}}\n"
                                               "  c: {settings: {y: [1, 2]}}\n")
                                 << QStringList {"opt"} << QStringList {"b"} << QStringList {"c"};
}

void tst_ConfigDiff::controllers()
{
    QFETCH(QByteArray, running);
    QFETCH(QByteArray, next);
    QFETCH(QStringList, enabled);
    QFETCH(QStringList, disabled);
    QFETCH(QStringList, changed);
    const ConfigDiff diff = diffConfigs(parsed(running), parsed(next), Known, DisabledByDefault);
    QCOMPARE(diff.enabled, enabled);
    QCOMPARE(diff.disabled, disabled);
    QCOMPARE(diff.changed, changed);
    QVERIFY(diff.restartOnly.isEmpty());
}

void tst_ConfigDiff::restartOnlyFields_data()
{
    QTest::addColumn<QByteArray>("next");
    QTest::addColumn<QString>("message");
    const QString prefix = QStringLiteral("/etc/qcm/cm.yaml: ");
    const QString restart = QStringLiteral(": cannot change without a restart (running with ");
    QTest::newRow("kubeconfig") << QByteArray("kubeconfig: other.conf\n")
                                << prefix + "kubeconfig" + restart
            + "\"/etc/qcm/admin.conf\", the new configuration has \"/etc/qcm/other.conf\") "
              "(line 1, column 13)";
    QTest::newRow("master, without its password")
        << QByteArray("kubeconfig: admin.conf\nmaster: https://u:secret@10.0.0.2:6443\n")
        << prefix + "master" + restart
            + "\"https://10.0.0.1:6443\", the new configuration has \"https://10.0.0.2:6443\") "
              "(line 2, column 9)";
    QTest::newRow("qps") << QByteArray("kubeconfig: admin.conf\nclientConnection: {qps: 50}\n")
                         << prefix + "clientConnection.qps" + restart
            + "20, the new configuration has 50) (line 2, column 25)";
    QTest::newRow("pluginDirs") << QByteArray("kubeconfig: admin.conf\npluginDirs: [/opt/qcm]\n")
                                << prefix + "pluginDirs" + restart
            + "[], the new configuration has [\"/opt/qcm\"]) (line 2, column 13)";
    QTest::newRow("leader election")
        << QByteArray("kubeconfig: admin.conf\nleaderElection: {leaseDuration: 30s}\n")
        << prefix + "leaderElection.leaseDuration" + restart
            + "15s, the new configuration has 30s) (line 2, column 33)";
    QTest::newRow("leader election mode")
        << QByteArray("kubeconfig: admin.conf\nleaderElection: {mode: rejoin}\n")
        << prefix + "leaderElection.mode" + restart
            + "run-or-die, the new configuration has rejoin) (line 2, column 24)";
    QTest::newRow("scale-out group") << QByteArray("kubeconfig: admin.conf\nscaleOut: {group: g}\n")
                                     << prefix + "scaleOut.group" + restart
            + "\"\", the new configuration has \"g\") (line 2, column 19)";
    QTest::newRow("serving port") << QByteArray(
        "kubeconfig: admin.conf\nserving: {securePort: 0}\n")
                                  << prefix + "serving.securePort" + restart
            + "10257, the new configuration has 0) (line 2, column 23)";
}

void tst_ConfigDiff::restartOnlyFields()
{
    QFETCH(QByteArray, next);
    QFETCH(QString, message);
    const ControllerManagerConfig running
        = parsed("kubeconfig: admin.conf\nmaster: https://u:old@10.0.0.1:6443\n");
    ControllerManagerConfig nextConfig = parsed(next);
    if (nextConfig.master.isEmpty())
        nextConfig.master = running.master;
    const ConfigDiff diff = diffConfigs(running, nextConfig, Known, DisabledByDefault);
    QCOMPARE(diff.restartOnly.size(), 1);
    QCOMPARE(diff.restartOnly.constFirst().toString(), message);
    QVERIFY(!diff.isEmpty());
}

// A restart-only field the new file no longer sets is back at its default, which the refusal
// says instead of a position.
void tst_ConfigDiff::restartOnlyFieldLeftOut()
{
    const ControllerManagerConfig running
        = parsed("kubeconfig: admin.conf\nclientConnection: {qps: 50}\n");
    const ControllerManagerConfig next = parsed("kubeconfig: admin.conf\n");
    QCOMPARE(running.positions.value(QStringLiteral("clientConnection.qps")),
        QStringLiteral(" (line 2, column 25)"));
    QVERIFY(!next.positions.contains(QStringLiteral("clientConnection.qps")));
    const ConfigDiff diff = diffConfigs(running, next, Known, DisabledByDefault);
    QCOMPARE(diff.restartOnly.size(), 1);
    QCOMPARE(diff.restartOnly.constFirst().toString(),
        QStringLiteral("/etc/qcm/cm.yaml: clientConnection.qps: cannot change without a restart "
                       "(running with 50, the new configuration has 20) (not set in the file: "
                       "its default)"));
}

void tst_ConfigDiff::flagsOverrideTheFileInTheDiff()
{
    // A field a flag sets is the flag's in both: editing it in the file changes nothing.
    ControllerManagerConfig running = parsed("kubeconfig: a.conf\n");
    ControllerManagerConfig next = parsed("kubeconfig: b.conf\nleaderElection: {leaseDuration: "
                                          "1m}\ncontrollers: ['*', '-a']\n");
    for (ControllerManagerConfig *config : {&running, &next}) {
        config->kubeconfig = QStringLiteral("/flag.conf");
        config->leaderElection.leaseDuration = 20s;
        config->controllers = {QStringLiteral("*")};
    }
    QVERIFY(diffConfigs(running, next, Known, DisabledByDefault).isEmpty());
}

void tst_ConfigDiff::specMatchesARunningContext()
{
    ControllerContext context(QStringLiteral("a"));
    context.setWorkers(2);
    context.setSettings({{QStringLiteral("x"), qint64(1)}});
    context.setResyncPeriod(13h);
    ControllerSpec spec {2, std::nullopt, 12h, {{QStringLiteral("x"), qint64(1)}}};
    QVERIFY(spec.matches(context)); // 13h was drawn from [12h, 24h)
    spec.minResyncPeriod = 6h;
    QVERIFY(!spec.matches(context)); // not from [6h, 12h)
    spec.minResyncPeriod = 12h;
    spec.resyncPeriod = 13h;
    QVERIFY(spec.matches(context));
    spec.resyncPeriod = 30s;
    QVERIFY(!spec.matches(context));
    spec.resyncPeriod = std::nullopt;
    spec.workers = 3;
    QVERIFY(!spec.matches(context));
    spec.workers = 2;
    spec.settings.insert(QStringLiteral("y"), true);
    QVERIFY(!spec.matches(context));
    spec.settings = {{QStringLiteral("x"), QStringLiteral("1")}}; // a string, not 1
    QVERIFY(!spec.matches(context));
    spec.settings = {{QStringLiteral("x"), qint64(1)}};
    QVERIFY(spec.matches(context));
    spec.sharded = true; // shards: auto, but the context has no filter
    QVERIFY(!spec.matches(context));
    context.setShardFilter(std::make_shared<EveryKey>());
    QVERIFY(spec.matches(context));
    spec.sharded = false;
    QVERIFY(!spec.matches(context));
}

void tst_ConfigDiff::summary()
{
    ConfigDiff diff;
    QCOMPARE(diff.summary(), QStringLiteral("no change to the controllers"));
    diff.enabled = QStringList {"a", "b"};
    diff.disabled = QStringList {"c"};
    diff.changed = QStringList {"d"};
    QCOMPARE(diff.summary(), QStringLiteral("enabled: a, b; disabled: c; changed: d"));
}

QTEST_GUILESS_MAIN(tst_ConfigDiff)
#include "tst_configdiff.moc"
