// SPDX-License-Identifier: Apache-2.0
// qcm's command line: kube-controller-manager's flag names, their values, and flags overriding
// the configuration file.
#include "config/options.h"

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::host;
using namespace std::chrono;

class tst_Options : public QObject
{
    Q_OBJECT

private slots:
    void noFlags();
    void actions();
    void everyFlag();
    void boolFlagForms_data();
    void boolFlagForms();
    void lists();
    void flagsOverrideTheFile();
    void badFlags_data();
    void badFlags();
    void helpDocumentsEveryFlag();
};

namespace {

Result<Options> parse(QStringList args)
{
    args.prepend(QStringLiteral("qcm"));
    return parseOptions(args);
}

} // namespace

void tst_Options::noFlags()
{
    const auto o = parse({});
    QVERIFY(o.ok());
    QCOMPARE(o->action, Options::Action::Run);
    ControllerManagerConfig config;
    const ControllerManagerConfig before = config;
    o->applyTo(config);
    QCOMPARE(config.controllers, before.controllers);
    QCOMPARE(config.kubeApiQps, before.kubeApiQps);
    QCOMPARE(config.controllersOrigin.field, QStringLiteral("controllers"));
}

void tst_Options::actions()
{
    QCOMPARE(parse({QStringLiteral("--help")})->action, Options::Action::ShowHelp);
    QCOMPARE(parse({QStringLiteral("--version")})->action, Options::Action::ShowVersion);
    QCOMPARE(parse({QStringLiteral("--list-plugins")})->action, Options::Action::ListPlugins);
}

void tst_Options::everyFlag()
{
    const auto o = parse({QStringLiteral("--config=/etc/qcm.yaml"), QStringLiteral("--kubeconfig"),
        QStringLiteral("/k"), QStringLiteral("--master=https://m"),
        QStringLiteral("--controllers=*,-foo"), QStringLiteral("--plugin-dir=/p"),
        QStringLiteral("--leader-elect=false"), QStringLiteral("--leader-elect-lease-duration=30s"),
        QStringLiteral("--leader-elect-renew-deadline=20s"),
        QStringLiteral("--leader-elect-retry-period=3s"),
        QStringLiteral("--leader-elect-resource-lock=leases"),
        QStringLiteral("--leader-elect-resource-name=n"),
        QStringLiteral("--leader-elect-resource-namespace=ns"),
        QStringLiteral("--kube-api-qps=7.5"), QStringLiteral("--kube-api-burst=9"),
        QStringLiteral("--bind-address=127.0.0.1"), QStringLiteral("--secure-port=0"),
        QStringLiteral("--controller-shutdown-timeout=1m"),
        QStringLiteral("--min-resync-period=1h")});
    QVERIFY2(o.ok(), qPrintable(o.ok() ? QString() : o.error().toString()));
    QCOMPARE(o->configFile, QStringLiteral("/etc/qcm.yaml"));
    ControllerManagerConfig c;
    o->applyTo(c);
    QCOMPARE(c.kubeconfig, QStringLiteral("/k"));
    QCOMPARE(c.master, QStringLiteral("https://m"));
    QCOMPARE(c.controllers, (QStringList {QStringLiteral("*"), QStringLiteral("-foo")}));
    QCOMPARE(c.controllersOrigin.field, QStringLiteral("--controllers"));
    QCOMPARE(c.pluginDirs, QStringList {QStringLiteral("/p")});
    QVERIFY(!c.leaderElection.leaderElect);
    QCOMPARE(c.leaderElection.leaseDuration, Duration(30s));
    QCOMPARE(c.leaderElection.renewDeadline, Duration(20s));
    QCOMPARE(c.leaderElection.retryPeriod, Duration(3s));
    QCOMPARE(c.leaderElection.resourceName, QStringLiteral("n"));
    QCOMPARE(c.leaderElection.resourceNamespace, QStringLiteral("ns"));
    QCOMPARE(c.kubeApiQps, 7.5);
    QCOMPARE(c.kubeApiBurst, 9);
    QCOMPARE(c.bindAddress, QStringLiteral("127.0.0.1"));
    QCOMPARE(c.securePort, 0);
    QCOMPARE(c.controllerShutdownTimeout, Duration(1min));
    QCOMPARE(c.minResyncPeriod, Duration(1h));
    // --port is --secure-port under its older name.
    ControllerManagerConfig p;
    parse({QStringLiteral("--port=8080")})->applyTo(p);
    QCOMPARE(p.securePort, 8080);
}

void tst_Options::boolFlagForms_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<bool>("leaderElect");
    QTest::addColumn<QStringList>("controllers");
    const QStringList star {QStringLiteral("*")};
    QTest::newRow("alone") << QStringList {QStringLiteral("--leader-elect")} << true << star;
    QTest::newRow("=true") << QStringList {QStringLiteral("--leader-elect=true")} << true << star;
    QTest::newRow("=false") << QStringList {QStringLiteral("--leader-elect=false")} << false
                            << star;
    QTest::newRow("=0") << QStringList {QStringLiteral("--leader-elect=0")} << false << star;
    // pflag never takes the next argument as a bool's value.
    QTest::newRow("alone, then another flag")
        << QStringList {QStringLiteral("--leader-elect"), QStringLiteral("--controllers=a")} << true
        << QStringList {QStringLiteral("a")};
    QTest::newRow("single dash") << QStringList {QStringLiteral("-leader-elect=false")} << false
                                 << star;
}

void tst_Options::boolFlagForms()
{
    QFETCH(QStringList, args);
    QFETCH(bool, leaderElect);
    QFETCH(QStringList, controllers);
    const auto o = parse(args);
    QVERIFY2(o.ok(), qPrintable(o.ok() ? QString() : o.error().toString()));
    ControllerManagerConfig c;
    c.leaderElection.leaderElect = !leaderElect;
    o->applyTo(c);
    QCOMPARE(c.leaderElection.leaderElect, leaderElect);
    QCOMPARE(c.controllers, controllers);
}

void tst_Options::lists()
{
    const auto o = parse(
        {QStringLiteral("--controllers=a,b"), QStringLiteral("--controllers"), QStringLiteral("-c"),
            QStringLiteral("--plugin-dir=/x,/y"), QStringLiteral("--plugin-dir=/z")});
    QVERIFY(o.ok());
    QCOMPARE(*o->controllers,
        (QStringList {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("-c")}));
    QCOMPARE(*o->pluginDirs,
        (QStringList {QStringLiteral("/x"), QStringLiteral("/y"), QStringLiteral("/z")}));
}

void tst_Options::flagsOverrideTheFile()
{
    auto config = parseConfig(QByteArrayLiteral("controllers: [a]\npluginDirs: [/file]\n"
                                                "clientConnection: {qps: 1, burst: 2}\n"
                                                "leaderElection: {leaseDuration: 60s}\n"),
        QStringLiteral("/etc/cm.yaml"));
    QVERIFY(config.ok());
    parse({QStringLiteral("--kube-api-qps=100"), QStringLiteral("--plugin-dir=/flag")})
        ->applyTo(*config);
    QCOMPARE(config->kubeApiQps, 100.0); // the flag
    QCOMPARE(config->kubeApiBurst, 2); // the file
    QCOMPARE(config->pluginDirs, QStringList {QStringLiteral("/flag")}); // replaced, not merged
    QCOMPARE(config->controllers, QStringList {QStringLiteral("a")});
    QCOMPARE(config->controllersOrigin.file, QStringLiteral("/etc/cm.yaml"));
    QCOMPARE(config->leaderElection.leaseDuration, Duration(60s));
}

void tst_Options::badFlags_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown flag") << QStringList {QStringLiteral("--kube-api-qpss=3")}
                                  << QStringLiteral("Unknown option 'kube-api-qpss'.");
    QTest::newRow("qps") << QStringList {QStringLiteral("--kube-api-qps=fast")}
                         << QStringLiteral("--kube-api-qps: must be a number, not \"fast\"");
    QTest::newRow("burst") << QStringList {QStringLiteral("--kube-api-burst=1.5")}
                           << QStringLiteral("--kube-api-burst: must be an integer, not \"1.5\"");
    QTest::newRow("port") << QStringList {QStringLiteral("--secure-port=-1")}
                          << QStringLiteral("--secure-port: must be between 0 and 65535, not -1");
    QTest::newRow("bool") << QStringList {QStringLiteral("--leader-elect=maybe")}
                          << QStringLiteral("--leader-elect: must be true or false, not \"maybe\"");
    QTest::newRow("duration") << QStringList {QStringLiteral("--controller-shutdown-timeout=10")}
                              << QStringLiteral("--controller-shutdown-timeout: missing unit in "
                                                "duration \"10\"");
    QTest::newRow("negative duration")
        << QStringList {QStringLiteral("--leader-elect-retry-period=-2s")}
        << QStringLiteral("--leader-elect-retry-period: must not be negative, not \"-2s\"");
    QTest::newRow("missing value") << QStringList {QStringLiteral("--master")}
                                   << QStringLiteral("Missing value after '--master'.");
    QTest::newRow("positional") << QStringList {QStringLiteral("run")}
                                << QStringLiteral("unexpected arguments: run");
}

void tst_Options::badFlags()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const auto o = parse(args);
    QVERIFY(!o.ok());
    QVERIFY2(o.error().toString().startsWith(message), qPrintable(o.error().toString()));
}

void tst_Options::helpDocumentsEveryFlag()
{
    const QString help = helpText().simplified(); // descriptions wrap
    for (const char *flag : {"--kubeconfig", "--master", "--config", "--controllers",
             "--plugin-dir", "--list-plugins", "--leader-elect <bool>",
             "--leader-elect-lease-duration", "--leader-elect-renew-deadline",
             "--leader-elect-retry-period", "--leader-elect-resource-lock",
             "--leader-elect-resource-name", "--leader-elect-resource-namespace", "--kube-api-qps",
             "--kube-api-burst", "--bind-address", "--secure-port", "--port",
             "--controller-shutdown-timeout", "--min-resync-period", "--help", "--version"})
        QVERIFY2(help.contains(QLatin1String(flag)), flag);
    QVERIFY(help.contains(QLatin1String("(default 15s)")));
    QVERIFY(help.contains(QLatin1String("(default 12h0m0s)")));
}

QTEST_APPLESS_MAIN(tst_Options)
#include "tst_options.moc"
