// SPDX-License-Identifier: Apache-2.0
// The real qcm binary: bad configuration and flags stop it with a precise message before
// anything starts, --list-plugins shows every plugin with its state and error, and a host
// run loads the good plugins, refuses the broken ones and shuts down cleanly on SIGTERM.
// (Against no API server: the informers keep retrying, which is all this test needs; the e2e
// test runs qcm against the real one.)
#include <qcm/version.h>

#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtNetwork/QTcpServer>
#include <QtNetwork/QTcpSocket>
#include <QtTest/QtTest>

#include <csignal>

class tst_QcmBinary : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void helpAndVersion();
    void configErrorsStopTheHost_data();
    void configErrorsStopTheHost();
    void badFlag();
    void noClusterConfiguration();
    void listPlugins();
    void untrustedPluginDirectory();
    void runsAndStopsOnSigterm();
    void busyWorkerIsAbandonedAtTheShutdownTimeout();
    void secondSignalExitsAtOnce();

private:
    struct Run
    {
        int exitCode = -1;
        QString out;
        QString err;
    };
    Run qcm(const QStringList &arguments);
    QString writeConfig(const QByteArray &yaml);
    QString pluginDir(const QStringList &fixtures);

    QTemporaryDir m_dir;
    int m_dirs = 0;
};

namespace {

QString fixture(const QString &name)
{
    return QStringLiteral(QCM_FIXTURE_PLUGIN_DIR "/lib%1.so").arg(name);
}

// A local port where nothing listens.
quint16 unusedPort()
{
    QTcpServer server;
    server.listen(QHostAddress::LocalHost);
    return server.serverPort(); // closed again when `server` goes
}

// Just enough of an API server for fixture-configmaps: a list of one ConfigMap (or a
// WatchList stream of it), a watch that stays open, and PATCH requests that are never
// answered, so that the controller's only reconcile blocks in its PATCH until the process
// ends.
class StallingApiServer : public QTcpServer
{
public:
    StallingApiServer()
    {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection())
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] { serve(socket); });
        });
        listen(QHostAddress::LocalHost);
    }
    int patches = 0;

private:
    void serve(QTcpSocket *socket)
    {
        const QByteArray request = socket->readAll();
        const QByteArray line = request.left(request.indexOf("\r\n"));
        if (line.startsWith("PATCH ")) {
            ++patches; // never answered
        } else if (line.contains("watch=true")) {
            socket->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                          "Transfer-Encoding: chunked\r\n\r\n"); // and nothing more, but:
            // the informers' default WatchList stream gets the ConfigMap and the bookmark
            // that ends the initial events.
            if (line.contains("sendInitialEvents=true")) {
                for (const QByteArray &event :
                    {QByteArray(R"({"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":)"
                                R"("v1","metadata":{"name":"a","namespace":"ns",)"
                                R"("resourceVersion":"5"}}})"
                                "\n"),
                        QByteArray(R"({"type":"BOOKMARK","object":{"kind":"ConfigMap",)"
                                   R"("apiVersion":"v1","metadata":{"resourceVersion":"10",)"
                                   R"("annotations":{"k8s.io/initial-events-end":"true"}}}})"
                                   "\n")})
                    socket->write(QByteArray::number(event.size(), 16) + "\r\n" + event + "\r\n");
            }
        } else if (line.startsWith("GET /api/v1/configmaps")) {
            const QByteArray body = R"({"kind":"ConfigMapList","apiVersion":"v1",)"
                                    R"("metadata":{"resourceVersion":"10"},"items":[{"metadata":)"
                                    R"({"name":"a","namespace":"ns","resourceVersion":"5"}}]})";
            socket->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                + QByteArray::number(body.size()) + "\r\n\r\n" + body);
        } else {
            socket->write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
        }
    }
};

} // namespace

void tst_QcmBinary::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY(QFileInfo::exists(QStringLiteral(QCM_BINARY)));
}

tst_QcmBinary::Run tst_QcmBinary::qcm(const QStringList &arguments)
{
    QProcess p;
    p.start(QStringLiteral(QCM_BINARY), arguments);
    if (!p.waitForFinished(60000))
        qFatal("qcm did not finish: %s", qPrintable(arguments.join(QLatin1Char(' '))));
    return Run {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
        QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

QString tst_QcmBinary::writeConfig(const QByteArray &yaml)
{
    const QString path = m_dir.filePath(QStringLiteral("cm-%1.yaml").arg(++m_dirs));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    f.write(yaml);
    return path;
}

QString tst_QcmBinary::pluginDir(const QStringList &fixtures)
{
    const QString dir = m_dir.filePath(QStringLiteral("plugins-%1").arg(++m_dirs));
    QDir().mkpath(dir);
    for (const QString &name : fixtures) {
        if (!QFile::copy(fixture(name), dir + QStringLiteral("/lib%1.so").arg(name)))
            qFatal("cannot copy %s", qPrintable(name));
    }
    return dir;
}

void tst_QcmBinary::helpAndVersion()
{
    const Run help = qcm({QStringLiteral("--help")});
    QCOMPARE(help.exitCode, 0);
    for (const char *flag :
        {"--kubeconfig", "--master", "--config", "--controllers", "--plugin-dir",
            "--leader-elect-lease-duration", "--kube-api-qps", "--kube-api-burst", "--bind-address",
            "--secure-port", "--controller-shutdown-timeout", "--list-plugins", "--version"})
        QVERIFY2(help.out.contains(QLatin1String(flag)), flag);
    const Run version = qcm({QStringLiteral("--version")});
    QCOMPARE(version.exitCode, 0);
    QCOMPARE(version.out, QStringLiteral("qcm " QCM_VERSION_STRING " (plugin ABI 1)\n"));
}

void tst_QcmBinary::configErrorsStopTheHost_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<QString>("message"); // after "qcm: <file>: "
    QTest::newRow("malformed YAML") << QByteArray("controllers: [a, b\n") << QStringList {}
                                    << QStringLiteral("malformed YAML at line 2, column 1: end of "
                                                      "sequence flow not found");
    QTest::newRow("unknown field")
        << QByteArray("controllers: ['*']\nworkers: 3\n") << QStringList {}
        << QStringLiteral("workers: unknown field; the fields here are ");
    QTest::newRow("bad duration")
        << QByteArray("controllerShutdownTimeout: 10\n") << QStringList {}
        << QStringLiteral("controllerShutdownTimeout: missing unit in duration \"10\" (durations "
                          "look like 300ms, 10s, 1m30s or 2h) (line 1, column 28)");
    QTest::newRow("bad number") << QByteArray("clientConnection:\n  burst: lots\n")
                                << QStringList {}
                                << QStringLiteral("clientConnection.burst: must be an integer, not "
                                                  "\"lots\" (line 2, column 10)");
    QTest::newRow("unknown controller")
        << QByteArray("controllers: ['*', fixture-configmap]\n")
        << QStringList {QStringLiteral("fixture-configmaps")}
        << QStringLiteral("controllers: \"fixture-configmap\" is not in the list of known "
                          "controllers; the known controllers are fixture-configmaps (line 1, "
                          "column 14)");
}

void tst_QcmBinary::configErrorsStopTheHost()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QStringList, flags);
    QFETCH(QString, message);
    const QString config = writeConfig(yaml);
    QStringList args {
        QStringLiteral("--config"), config, QStringLiteral("--master=http://127.0.0.1:1")};
    if (!flags.isEmpty())
        args << QStringLiteral("--plugin-dir=") + pluginDir(flags);
    const Run run = qcm(args);
    QCOMPARE(run.exitCode, 1);
    const QString expected = QStringLiteral("qcm: %1: %2").arg(config, message);
    QVERIFY2(run.err.contains(expected),
        qPrintable(QStringLiteral("\n   got: %1\nwanted: %2").arg(run.err, expected)));
    // Nothing started: no plugin was loaded, no client was made.
    QVERIFY2(!run.err.contains(QLatin1String("-> loaded")), qPrintable(run.err));
    QVERIFY2(!run.err.contains(QLatin1String("API server")), qPrintable(run.err));
}

void tst_QcmBinary::badFlag()
{
    const Run run = qcm({QStringLiteral("--kube-api-qps=fast")});
    QCOMPARE(run.exitCode, 1);
    QCOMPARE(run.err,
        QStringLiteral(
            "qcm: --kube-api-qps: must be a number, not \"fast\"\nRun qcm --help for the "
            "flags.\n"));
    const Run unknown = qcm({QStringLiteral("--kube-api-qpss=3")});
    QCOMPARE(unknown.exitCode, 1);
    QVERIFY(unknown.err.startsWith(QLatin1String("qcm: Unknown option 'kube-api-qpss'.")));
}

void tst_QcmBinary::noClusterConfiguration()
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("KUBERNETES_SERVICE_HOST"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(QCM_BINARY), {QStringLiteral("--leader-elect=false")});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 1);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(
        err.contains(QLatin1String("qcm: --kubeconfig: neither --kubeconfig nor --master was "
                                   "given, and the in-cluster configuration is not available")),
        qPrintable(err));
}

// Plugin trust through the real binary: a plugin directory others can write is refused,
// each plugin in it failing as untrusted with the directory, its owner and mode named; the
// other directories' plugins load; --plugin-trust=warn loads them with a warning.
void tst_QcmBinary::untrustedPluginDirectory()
{
    const QString trusted = pluginDir({QStringLiteral("fixture-configmaps")});
    const QString open = pluginDir({QStringLiteral("fixture-optional")});
    QVERIFY(QFile::setPermissions(open,
        QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner
            | QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup
            | QFileDevice::ReadOther | QFileDevice::ExeOther)); // 0775
    const QString dirs = trusted + QLatin1Char(',') + open;
    const Run strict
        = qcm({QStringLiteral("--list-plugins"), QStringLiteral("--plugin-dir"), dirs});
    QCOMPARE(strict.exitCode, 0);
    const QStringList lines = strict.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QVERIFY2(lines.at(1).contains(QLatin1String("fixture-configmaps"))
            && lines.at(1).contains(QLatin1String(" loaded ")),
        qPrintable(strict.out));
    QVERIFY2(lines.at(2).contains(QStringLiteral("failed")), qPrintable(strict.out));
    QVERIFY2(lines.at(2).contains(QStringLiteral("untrusted: directory %1 (owner ").arg(open)),
        qPrintable(strict.out));
    QVERIFY2(lines.at(2).contains(QLatin1String("mode 0775) is writable by its group")),
        qPrintable(strict.out));

    const Run warn = qcm({QStringLiteral("--list-plugins"), QStringLiteral("--plugin-dir"), dirs,
        QStringLiteral("--plugin-trust=warn")});
    QCOMPARE(warn.exitCode, 0);
    QVERIFY2(!warn.out.contains(QLatin1String("failed")), qPrintable(warn.out));
    QVERIFY2(warn.err.contains(QStringLiteral("loading an untrusted plugin (--plugin-trust=warn): "
                                              "directory %1")
                                   .arg(open)),
        qPrintable(warn.err));
}

void tst_QcmBinary::listPlugins()
{
    const QString dir = pluginDir({QStringLiteral("fixture-configmaps"),
        QStringLiteral("fixture-optional"), QStringLiteral("fixture-unresolved"),
        QStringLiteral("fixture-future-sdk"), QStringLiteral("fixture-not-a-plugin")});
    const Run run = qcm({QStringLiteral("--list-plugins"), QStringLiteral("--plugin-dir"),
        dir + QStringLiteral(",/nonexistent/plugins")});
    QCOMPARE(run.exitCode, 0);
    const QStringList lines = run.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 7);
    auto row = [&](const QString &file) {
        for (const QString &l : lines)
            if (l.contains(dir + QStringLiteral("/lib%1.so").arg(file)))
                return l.simplified();
        return QString();
    };
    const QString path = dir + QStringLiteral("/lib%1.so");
    // Enabled and healthy: loaded (its symbols resolved), but no controller was created.
    QCOMPARE(row(QStringLiteral("fixture-configmaps")),
        QStringLiteral("fixture-configmaps 1.2.3 loaded yes %1")
            .arg(path.arg(QStringLiteral("fixture-configmaps"))));
    // Off by default: never loaded.
    QCOMPARE(row(QStringLiteral("fixture-optional")),
        QStringLiteral("fixture-optional 0.0.1 discovered no %1")
            .arg(path.arg(QStringLiteral("fixture-optional"))));
    QVERIFY2(row(QStringLiteral("fixture-unresolved"))
                 .startsWith(QStringLiteral(
                     "fixture-unresolved 1.0.0 failed yes %1 cannot load the library:")
                                 .arg(path.arg(QStringLiteral("fixture-unresolved")))),
        qPrintable(row(QStringLiteral("fixture-unresolved"))));
    QVERIFY(row(QStringLiteral("fixture-unresolved"))
                .contains(QLatin1String("undefined symbol: qcm_fixture_symbol_nobody_defines")));
    QCOMPARE(row(QStringLiteral("fixture-future-sdk")),
        QStringLiteral(
            "fixture-future-sdk - failed yes %1 incompatible SDK: built against qcm SDK 2.0.0 "
            "(plugin ABI 2); this host has SDK " QCM_VERSION_STRING " (plugin ABI 1)")
            .arg(path.arg(QStringLiteral("fixture-future-sdk"))));
    QVERIFY(row(QStringLiteral("fixture-not-a-plugin"))
                .startsWith(QStringLiteral("- - failed no %1 not a Qt plugin:")
                                .arg(path.arg(QStringLiteral("fixture-not-a-plugin")))));
    QCOMPARE(lines.constLast(),
        QStringLiteral("error: /nonexistent/plugins: plugin directory does not exist"));
}

void tst_QcmBinary::runsAndStopsOnSigterm()
{
    const QString dir = pluginDir({QStringLiteral("fixture-configmaps"),
        QStringLiteral("fixture-throws"), QStringLiteral("fixture-wrong-iid")});
    const QString config
        = writeConfig(QByteArray("controllerConfig:\n  fixture-configmaps:\n    workers: 2\n"));
    QProcess p;
    QString err;
    connect(&p, &QProcess::readyReadStandardError, this,
        [&] { err += QString::fromUtf8(p.readAllStandardError()); });
    p.start(QStringLiteral(QCM_BINARY),
        {QStringLiteral("--config"), config, QStringLiteral("--plugin-dir"), dir,
            QStringLiteral("--master=http://127.0.0.1:%1").arg(unusedPort()),
            QStringLiteral("--leader-elect=false"), QStringLiteral("--secure-port=0"),
            QStringLiteral("--controller-shutdown-timeout=5s")});
    QVERIFY(p.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(err.contains(QLatin1String("controller(s) started")), 30000);
    QVERIFY2(err.contains(QLatin1String(
                 "fixture-configmaps (%1/libfixture-configmaps.so): configured -> running")
                              .arg(dir)),
        qPrintable(err));
    QVERIFY(err.contains(QLatin1String("creating controller fixture-configmaps: 2 worker(s)")));
    QVERIFY(err.contains(
        QLatin1String("its factory threw: fixture-throws refuses to create a controller")));
    QVERIFY(err.contains(QLatin1String("expected IID \"io.qcm.ControllerPlugin/1\", but found")));
    QVERIFY(err.contains(QLatin1String("1 controller(s) started")));
    QCOMPARE(p.state(), QProcess::Running); // the broken plugins did not take it down

    ::kill(pid_t(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(15000));
    err += QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);
    QVERIFY2(err.contains(QLatin1String("received Terminated; shutting down")), qPrintable(err));
    QVERIFY(err.contains(QLatin1String("libfixture-configmaps.so): running -> stopped")));
    QVERIFY(err.contains(QLatin1String("libfixture-configmaps.so): stopped -> unloaded")));
}

void tst_QcmBinary::busyWorkerIsAbandonedAtTheShutdownTimeout()
{
    StallingApiServer server;
    const QString dir = pluginDir({QStringLiteral("fixture-configmaps")});
    QProcess p;
    QString err;
    connect(&p, &QProcess::readyReadStandardError, this,
        [&] { err += QString::fromUtf8(p.readAllStandardError()); });
    p.start(QStringLiteral(QCM_BINARY),
        {QStringLiteral("--plugin-dir"), dir,
            QStringLiteral("--master=http://127.0.0.1:%1").arg(server.serverPort()),
            QStringLiteral("--leader-elect=false"), QStringLiteral("--secure-port=0"),
            QStringLiteral("--controller-shutdown-timeout=1s")});
    QVERIFY(p.waitForStarted());
    QTRY_COMPARE_WITH_TIMEOUT(server.patches, 1, 30000); // the worker is now stuck in reconcile()
    QElapsedTimer timer;
    timer.start();
    ::kill(pid_t(p.processId()), SIGTERM);
    QTRY_VERIFY_WITH_TIMEOUT(p.state() == QProcess::NotRunning, 15000);
    err += QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(timer.elapsed() >= 1000, qPrintable(err)); // it waited for the timeout...
    QCOMPARE(p.exitStatus(), QProcess::NormalExit); // ...and then exited, without crashing
    QCOMPARE(p.exitCode(), 0);
    QVERIFY2(err.contains(QLatin1String("1 worker(s) were still in reconcile() when the shutdown "
                                        "timeout passed")),
        qPrintable(err));
    QVERIFY(err.contains(QLatin1String("some controllers did not stop within 1s")));
    QVERIFY(!err.contains(QLatin1String("libfixture-configmaps.so): stopped -> unloaded")));
}

void tst_QcmBinary::secondSignalExitsAtOnce()
{
    StallingApiServer server;
    const QString dir = pluginDir({QStringLiteral("fixture-configmaps")});
    QProcess p;
    QString err;
    connect(&p, &QProcess::readyReadStandardError, this,
        [&] { err += QString::fromUtf8(p.readAllStandardError()); });
    p.start(QStringLiteral(QCM_BINARY),
        {QStringLiteral("--plugin-dir"), dir,
            QStringLiteral("--master=http://127.0.0.1:%1").arg(server.serverPort()),
            QStringLiteral("--leader-elect=false"), QStringLiteral("--secure-port=0"),
            QStringLiteral("--controller-shutdown-timeout=10m")});
    QVERIFY(p.waitForStarted());
    QTRY_COMPARE_WITH_TIMEOUT(server.patches, 1, 30000);
    ::kill(pid_t(p.processId()), SIGINT);
    QTRY_VERIFY_WITH_TIMEOUT(err.contains(QLatin1String("shutting down")), 10000);
    QTest::qWait(200);
    QCOMPARE(p.state(), QProcess::Running); // waiting for the stuck worker, up to 10 minutes
    QElapsedTimer timer;
    timer.start();
    ::kill(pid_t(p.processId()), SIGINT);
    QTRY_VERIFY_WITH_TIMEOUT(p.state() == QProcess::NotRunning, 10000);
    QVERIFY(timer.elapsed() < 5000);
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 1);
}

QTEST_GUILESS_MAIN(tst_QcmBinary)
#include "tst_qcmbinary.moc"
