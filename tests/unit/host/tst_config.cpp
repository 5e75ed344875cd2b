// SPDX-License-Identifier: Apache-2.0
// controller-manager.yaml: every field read, defaults kept, and every kind of bad input
// refused with the file, the field, the reason and the position.
#include "config/config.h"
#include "config/configdiff.h"

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::host;
using namespace std::chrono;

class tst_Config : public QObject
{
    Q_OBJECT

private slots:
    void defaults();
    void emptyFile();
    void everyField();
    void relativePaths();
    void settingsTypes();
    void scaleOut();
    void badInput_data();
    void badInput();
    void unreadableFile();
};

namespace {

Result<ControllerManagerConfig> parse(const char *yaml)
{
    return parseConfig(QByteArray(yaml), QStringLiteral("/etc/qcm/cm.yaml"));
}

} // namespace

void tst_Config::defaults()
{
    const ControllerManagerConfig c;
    QCOMPARE(c.controllers, QStringList {QStringLiteral("*")});
    QCOMPARE(c.kubeApiQps, 20.0);
    QCOMPARE(c.kubeApiBurst, 30);
    QVERIFY(c.leaderElection.leaderElect);
    QCOMPARE(c.leaderElection.leaseDuration, Duration(15s));
    QCOMPARE(c.leaderElection.renewDeadline, Duration(10s));
    QCOMPARE(c.leaderElection.retryPeriod, Duration(2s));
    QCOMPARE(c.leaderElection.resourceLock, QStringLiteral("leases"));
    QCOMPARE(c.leaderElection.resourceNamespace, QStringLiteral("kube-system"));
    QCOMPARE(c.securePort, 10257);
    QCOMPARE(c.bindAddress, QStringLiteral("0.0.0.0"));
    QCOMPARE(c.controllerShutdownTimeout, Duration(10s));
    QCOMPARE(c.minResyncPeriod, Duration(12h));
}

void tst_Config::emptyFile()
{
    const auto c = parse("");
    QVERIFY(c.ok());
    QCOMPARE(c->file, QStringLiteral("/etc/qcm/cm.yaml"));
    QCOMPARE(c->controllers, QStringList {QStringLiteral("*")});
    QVERIFY(parse("# only a comment\n").ok());
}

void tst_Config::everyField()
{
    const auto c = parse(R"(apiVersion: qcm.io/v1alpha1
kind: ControllerManagerConfiguration
kubeconfig: /home/me/.kube/config
master: https://10.0.0.1:6443
clientConnection:
  qps: 50.5
  burst: 100
pluginDirs: [/usr/lib/qcm/plugins, /opt/plugins]
controllers: ["*", "-foo", bar]
leaderElection:
  leaderElect: false
  leaseDuration: 30s
  renewDeadline: 20s
  retryPeriod: 5s
  resourceLock: leases
  resourceName: my-qcm
  resourceNamespace: qcm-system
serving:
  bindAddress: 127.0.0.1
  securePort: 9443
controllerShutdownTimeout: 1m30s
minResyncPeriod: 6h
controllerConfig:
  foo:
    workers: 4
    resyncPeriod: 30s
    settings:
      replicas: 3
  bar: {}
  baz:
)");
    QVERIFY2(c.ok(), qPrintable(c.ok() ? QString() : c.error().toString()));
    QCOMPARE(c->kubeconfig, QStringLiteral("/home/me/.kube/config"));
    QCOMPARE(c->master, QStringLiteral("https://10.0.0.1:6443"));
    QCOMPARE(c->kubeApiQps, 50.5);
    QCOMPARE(c->kubeApiBurst, 100);
    QCOMPARE(c->pluginDirs,
        (QStringList {QStringLiteral("/usr/lib/qcm/plugins"), QStringLiteral("/opt/plugins")}));
    QCOMPARE(c->controllers,
        (QStringList {QStringLiteral("*"), QStringLiteral("-foo"), QStringLiteral("bar")}));
    QCOMPARE(c->controllersOrigin.position, QStringLiteral(" (line 9, column 14)"));
    QVERIFY(!c->leaderElection.leaderElect);
    QCOMPARE(c->leaderElection.leaseDuration, Duration(30s));
    QCOMPARE(c->leaderElection.renewDeadline, Duration(20s));
    QCOMPARE(c->leaderElection.retryPeriod, Duration(5s));
    QCOMPARE(c->leaderElection.resourceName, QStringLiteral("my-qcm"));
    QCOMPARE(c->leaderElection.resourceNamespace, QStringLiteral("qcm-system"));
    QCOMPARE(c->bindAddress, QStringLiteral("127.0.0.1"));
    QCOMPARE(c->securePort, 9443);
    QCOMPARE(c->controllerShutdownTimeout, Duration(90s));
    QCOMPARE(c->minResyncPeriod, Duration(6h));
    QCOMPARE(c->controllerConfig.size(), 3);
    const ControllerConfig foo = c->controllerConfig.value(QStringLiteral("foo"));
    QCOMPARE(foo.workers, std::optional<int>(4));
    QCOMPARE(foo.resyncPeriod, std::optional<Duration>(30s));
    QCOMPARE(foo.settings.value(QStringLiteral("replicas")), QVariant(qint64(3)));
    QCOMPARE(foo.origin.field, QStringLiteral("controllerConfig.foo"));
    QCOMPARE(foo.origin.position, QStringLiteral(" (line 24, column 3)"));
    QVERIFY(!c->controllerConfig.value(QStringLiteral("bar")).workers);
    QVERIFY(c->controllerConfig.contains(QStringLiteral("baz")));
}

void tst_Config::relativePaths()
{
    const auto c = parse("kubeconfig: ../kube/config\npluginDirs: [plugins, /abs]\n");
    QVERIFY(c.ok());
    QCOMPARE(c->kubeconfig, QStringLiteral("/etc/kube/config"));
    QCOMPARE(
        c->pluginDirs, (QStringList {QStringLiteral("/etc/qcm/plugins"), QStringLiteral("/abs")}));
}

void tst_Config::settingsTypes()
{
    const auto c = parse(R"(controllerConfig:
  foo:
    settings:
      int: 42
      negative: -7
      hex: 0x1f
      octal: 0o17
      float: 2.5
      exp: 1e3
      inf: .inf
      yes: true
      no: False
      nothing: ~
      empty:
      text: hello world
      quoted: "42"
      single: 'true'
      tagged: !!str 12
      version: 1.2.3
      big: 123456789012345678901234567890
      list: [1, two, 3.0]
      map: {a: 1, b: [x]}
)");
    QVERIFY2(c.ok(), qPrintable(c.ok() ? QString() : c.error().toString()));
    const QVariantMap s = c->controllerConfig.value(QStringLiteral("foo")).settings;
    QCOMPARE(s.value(QStringLiteral("int")), QVariant(qint64(42)));
    QCOMPARE(s.value(QStringLiteral("negative")), QVariant(qint64(-7)));
    QCOMPARE(s.value(QStringLiteral("hex")), QVariant(qint64(31)));
    QCOMPARE(s.value(QStringLiteral("octal")), QVariant(qint64(15)));
    QCOMPARE(s.value(QStringLiteral("float")), QVariant(2.5));
    QCOMPARE(s.value(QStringLiteral("exp")), QVariant(1000.0));
    QVERIFY(std::isinf(s.value(QStringLiteral("inf")).toDouble()));
    QCOMPARE(s.value(QStringLiteral("yes")), QVariant(true));
    QCOMPARE(s.value(QStringLiteral("no")), QVariant(false));
    QVERIFY(s.contains(QStringLiteral("nothing")));
    QVERIFY(!s.value(QStringLiteral("nothing")).isValid());
    QVERIFY(!s.value(QStringLiteral("empty")).isValid());
    QCOMPARE(s.value(QStringLiteral("text")), QVariant(QStringLiteral("hello world")));
    QCOMPARE(s.value(QStringLiteral("quoted")), QVariant(QStringLiteral("42")));
    QCOMPARE(s.value(QStringLiteral("single")), QVariant(QStringLiteral("true")));
    QCOMPARE(s.value(QStringLiteral("tagged")), QVariant(QStringLiteral("12")));
    QCOMPARE(s.value(QStringLiteral("version")), QVariant(QStringLiteral("1.2.3")));
    QCOMPARE(
        s.value(QStringLiteral("big")), QVariant(QStringLiteral("123456789012345678901234567890")));
    QCOMPARE(s.value(QStringLiteral("list")),
        QVariant(QVariantList {qint64(1), QStringLiteral("two"), 3.0}));
    const QVariantMap map = s.value(QStringLiteral("map")).toMap();
    QCOMPARE(map.value(QStringLiteral("a")), QVariant(qint64(1)));
    QCOMPARE(map.value(QStringLiteral("b")), QVariant(QVariantList {QStringLiteral("x")}));
}

void tst_Config::scaleOut()
{
    const auto c = parse("scaleOut:\n  group: controllers\ncontrollerConfig:\n  foo:\n"
                         "    shards: auto\n  bar:\n    shards: none\n  baz: {}\n");
    QVERIFY2(c, qPrintable(c ? QString() : c.error().toString()));
    QCOMPARE(c->scaleOutGroup, QStringLiteral("controllers"));
    QCOMPARE(c->controllerConfig.value(QStringLiteral("foo")).shards, ShardMode::Auto);
    QCOMPARE(c->controllerConfig.value(QStringLiteral("bar")).shards, ShardMode::None);
    QCOMPARE(c->controllerConfig.value(QStringLiteral("baz")).shards, ShardMode::None);
    QVERIFY(isSharded(*c, QStringLiteral("foo")));
    QVERIFY(!isSharded(*c, QStringLiteral("bar")));
    QVERIFY(!isSharded(*c, QStringLiteral("unnamed")));
    QCOMPARE(ControllerManagerConfig().scaleOutGroup, QString()); // off by default
    QCOMPARE(c->leaderElection.scope, LeaderElectionScope::Manager); // the default
    const auto scoped = parse("leaderElection:\n  scope: controller\nscaleOut:\n  group: g\n");
    QVERIFY2(scoped, qPrintable(scoped ? QString() : scoped.error().toString()));
    QCOMPARE(scoped->leaderElection.scope, LeaderElectionScope::Controller);
}

void tst_Config::badInput_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("message");
    auto row = [](const char *name, const char *yaml, const char *message) {
        QTest::newRow(name) << QByteArray(yaml) << QString::fromUtf8(message);
    };
    // Malformed YAML: the parser's position.
    row("unclosed flow list", "controllers: [a, b\n",
        "/etc/qcm/cm.yaml: malformed YAML at line 2, column 1: end of sequence flow not found");
    row("bad indentation", "leaderElection:\n  leaderElect: true\n leaseDuration: 3s\n",
        "/etc/qcm/cm.yaml: malformed YAML at line 3, column 2: end of map not found");
    row("tab", "controllers:\n\t- a\n", "/etc/qcm/cm.yaml: malformed YAML at line 2");
    // yaml-cpp reads a lone flow indicator as a null document, again and again.
    row("no progress", ",\n",
        "/etc/qcm/cm.yaml: malformed YAML at line 1, column 1: no document can start here");
    row("not a map", "- a\n- b\n", "/etc/qcm/cm.yaml: must be a map (line 1, column 1)");
    // Unknown and repeated fields, at every level.
    row("unknown top-level", "controllers: ['*']\nleaderElction: {}\n",
        "/etc/qcm/cm.yaml: leaderElction: unknown field; the fields here are apiVersion, kind, "
        "kubeconfig, master, clientConnection, pluginDirs, pluginTrust, controllers, "
        "leaderElection, scaleOut, serving, limits, stateDir, watchdog, "
        "controllerShutdownTimeout, minResyncPeriod, controllerConfig (line 2, column 1)");
    row("unknown nested", "leaderElection:\n  leaseDurationn: 15s\n",
        "/etc/qcm/cm.yaml: leaderElection.leaseDurationn: unknown field; the fields here are "
        "leaderElect, leaseDuration, renewDeadline, retryPeriod, resourceLock, resourceName, "
        "resourceNamespace, releaseOnCancel, mode, coordinated, emulationVersion, scope (line 2, "
        "column 3)");
    row("unknown per controller", "controllerConfig:\n  foo:\n    worker: 2\n",
        "/etc/qcm/cm.yaml: controllerConfig.foo.worker: unknown field; the fields here are "
        "workers, shards, resyncPeriod, settings (line 3, column 5)");
    row("unknown in clientConnection", "clientConnection:\n  qpss: 3\n",
        "/etc/qcm/cm.yaml: clientConnection.qpss: unknown field; the fields here are qps, burst, "
        "maxResponseBytes, maxWatchEventBytes, watchTransport (line 2, column 3)");
    row("repeated", "master: a\nmaster: b\n",
        "/etc/qcm/cm.yaml: master: is repeated (line 2, column 1)");
    row("repeated setting", "controllerConfig:\n  foo:\n    settings: {a: 1, a: 2}\n",
        "/etc/qcm/cm.yaml: controllerConfig.foo.settings.a: is repeated (line 3, column 22)");
    // Bad durations.
    row("duration without unit", "controllerShutdownTimeout: 10\n",
        "/etc/qcm/cm.yaml: controllerShutdownTimeout: missing unit in duration \"10\" (durations "
        "look like 300ms, 10s, 1m30s or 2h) (line 1, column 28)");
    row("duration unknown unit", "leaderElection:\n  leaseDuration: 1d\n",
        "/etc/qcm/cm.yaml: leaderElection.leaseDuration: unknown unit \"d\" in duration \"1d\" "
        "(durations look like 300ms, 10s, 1m30s or 2h) (line 2, column 18)");
    row("negative duration", "minResyncPeriod: -1h\n",
        "/etc/qcm/cm.yaml: minResyncPeriod: must not be negative, not \"-1h\" (line 1, column 18)");
    row("duration not scalar", "controllerConfig:\n  foo:\n    resyncPeriod: [1s]\n",
        "/etc/qcm/cm.yaml: controllerConfig.foo.resyncPeriod: must be a duration (line 3, column "
        "19)");
    // Bad numbers.
    row("workers not a number", "controllerConfig:\n  foo:\n    workers: two\n",
        "/etc/qcm/cm.yaml: controllerConfig.foo.workers: must be an integer, not \"two\" (line 3, "
        "column 14)");
    row("workers zero", "controllerConfig:\n  foo:\n    workers: 0\n",
        "/etc/qcm/cm.yaml: controllerConfig.foo.workers: must be between 1 and 1000, not 0 (line "
        "3, column 14)");
    row("workers fraction", "controllerConfig:\n  foo:\n    workers: 1.5\n",
        "/etc/qcm/cm.yaml: controllerConfig.foo.workers: must be an integer, not \"1.5\" (line 3, "
        "column 14)");
    row("shards unknown", "scaleOut:\n  group: g\ncontrollerConfig:\n  foo:\n    shards: all\n",
        "/etc/qcm/cm.yaml: controllerConfig.foo.shards: must be none or auto, not \"all\" (line 5, "
        "column 13)");
    row("shards without a group", "controllerConfig:\n  foo:\n    shards: auto\n",
        "/etc/qcm/cm.yaml: controllerConfig.foo.shards: auto needs scaleOut.group (a scale-out "
        "group to shard across) (line 3, column 13)");
    row("group not a label", "scaleOut:\n  group: Controllers\n",
        "/etc/qcm/cm.yaml: scaleOut.group: must be a DNS label of at most 46 characters "
        "(lowercase letters, digits and '-'), not \"Controllers\" (line 2, column 10)");
    row("group too long", "scaleOut:\n  group: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
        "/etc/qcm/cm.yaml: scaleOut.group: must be a DNS label of at most 46 characters");
    row("group without leader election",
        "leaderElection:\n  leaderElect: false\nscaleOut:\n  group: g\n",
        "/etc/qcm/cm.yaml: scaleOut.group: needs leaderElection.leaderElect (the group's leader "
        "writes its epochs) (line 4, column 10)");
    row("scope unknown", "leaderElection:\n  scope: shard\nscaleOut:\n  group: g\n",
        "/etc/qcm/cm.yaml: leaderElection.scope: must be manager or controller, not \"shard\" "
        "(line 2, column 10)");
    row("controller scope without a group", "leaderElection:\n  scope: controller\n",
        "/etc/qcm/cm.yaml: leaderElection.scope: controller needs scaleOut.group (its members "
        "share the controllers) (line 2, column 10)");
    row("unknown in scaleOut", "scaleOut:\n  groups: g\n",
        "/etc/qcm/cm.yaml: scaleOut.groups: unknown field; the fields here are group (line 2, "
        "column 3)");
    row("port out of range", "serving:\n  securePort: 70000\n",
        "/etc/qcm/cm.yaml: serving.securePort: must be between 0 and 65535, not 70000 (line 2, "
        "column 15)");
    row("qps not a number", "clientConnection:\n  qps: fast\n",
        "/etc/qcm/cm.yaml: clientConnection.qps: must be a number, not \"fast\" (line 2, column "
        "8)");
    row("burst negative", "clientConnection:\n  burst: -1\n",
        "/etc/qcm/cm.yaml: clientConnection.burst: must be between 0 and 2147483647, not -1 (line "
        "2, column 10)");
    // Other types.
    row("bad bool", "leaderElection:\n  leaderElect: maybe\n",
        "/etc/qcm/cm.yaml: leaderElection.leaderElect: must be true or false, not \"maybe\" (line "
        "2, column 16)");
    row("list expected", "controllers: \"*\"\n",
        "/etc/qcm/cm.yaml: controllers: must be a list (line 1, column 14)");
    row("list of maps", "pluginDirs:\n  - {a: b}\n",
        "/etc/qcm/cm.yaml: pluginDirs[0]: must be a string (line 2, column 5)");
    row("string expected", "master: {a: b}\n",
        "/etc/qcm/cm.yaml: master: must be a string (line 1, column 9)");
    row("settings not a map", "controllerConfig:\n  foo:\n    settings: [1]\n",
        "/etc/qcm/cm.yaml: controllerConfig.foo.settings: must be a map (line 3, column 15)");
    row("bad controller name", "controllerConfig:\n  Foo_Bar: {}\n",
        "/etc/qcm/cm.yaml: controllerConfig.Foo_Bar: is not a controller name (lowercase letters, "
        "digits and '-') (line 2, column 3)");
    row("wrong apiVersion", "apiVersion: v1\n",
        "/etc/qcm/cm.yaml: apiVersion: must be qcm.io/v1alpha1, not \"v1\" (line 1, column 13)");
    row("wrong kind", "kind: Pod\n",
        "/etc/qcm/cm.yaml: kind: must be ControllerManagerConfiguration, not \"Pod\" (line 1, "
        "column 7)");
}

void tst_Config::badInput()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, message);
    const auto c = parseConfig(yaml, QStringLiteral("/etc/qcm/cm.yaml"));
    QVERIFY(!c.ok());
    QVERIFY2(c.error().toString().startsWith(message),
        qPrintable(QStringLiteral("\n   got: %1\nwanted: %2").arg(c.error().toString(), message)));
}

void tst_Config::unreadableFile()
{
    const auto c = loadConfig(QStringLiteral("/nonexistent/cm.yaml"));
    QVERIFY(!c.ok());
    QCOMPARE(c.error().toString(),
        QStringLiteral("/nonexistent/cm.yaml: cannot read the configuration: No such file or "
                       "directory"));
}

QTEST_APPLESS_MAIN(tst_Config)
#include "tst_config.moc"
