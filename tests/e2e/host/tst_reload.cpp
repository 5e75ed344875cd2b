// SPDX-License-Identifier: Apache-2.0
// e2e: changes without restart, through the real qcm binary on the real apiserver (issue 6,
// §2 and §8). A configuration edited and SIGHUP'd restarts, stops and starts single
// controllers while qcm runs on; an invalid one is refused with its precise error and
// changes nothing; an edit alone (no signal) is seen through the file watch; a .so dropped
// into the plugin directory is found and started. Each step is checked through behaviour
// (fixture-configmaps and fixture-labelled annotate ConfigMaps), through the plugin states in
// qcm's log, and through qcm_plugin_state on /metrics.
#include "../e2esupport.h"

#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtNetwork/QSslSocket>
#include <QtNetwork/QTcpServer>
#include <QtNetwork/QTcpSocket>
#include <QtTest/QtTest>

#include <csignal>
#include <cstdio>

using namespace qcm::client;
using namespace qcm::e2e;

class tst_ReloadE2e : public QObject
{
    Q_OBJECT

private slots:
    void sighupAndFileEditsChangeSingleControllers();
    void droppedPluginStartsOnTheLeader();

private:
    // Starts qcm with `config` (written to <dir>/controller-manager.yaml); `log` collects its
    // stderr.
    bool startQcm(QProcess &qcm, QString &log, const QString &configFile);
    void writeFile(const QString &path, const QString &text);
    // Sends SIGTERM and checks that qcm exits 0, printing its log otherwise.
    void stopQcm(QProcess &qcm, QString &log);
    // The value of the sample of qcm_plugin_state{plugin,state} on /metrics, or -1.
    int pluginState(quint16 port, const QString &plugin, const QString &state);
};

namespace {

quint16 freePort()
{
    QTcpServer server;
    server.listen(QHostAddress::LocalHost);
    return server.serverPort();
}

// An HTTP/1.0 GET over HTTPS on 127.0.0.1, as the fixture's admin (a bearer token of group
// system:masters, which qcm's delegated authorization always allows); the body, or empty.
// qcm's certificate is its own self-signed one: not verified here (tst_servingcert does).
QByteArray httpGet(quint16 port, const QByteArray &path)
{
    QSslSocket socket;
    socket.setPeerVerifyMode(QSslSocket::VerifyNone);
    socket.connectToHostEncrypted(QStringLiteral("127.0.0.1"), port);
    if (!socket.waitForEncrypted(5000))
        return {};
    socket.write("GET " + path
        + " HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer qcm-admin-token\r\n\r\n");
    QByteArray response;
    while (socket.waitForReadyRead(5000))
        response += socket.readAll();
    response += socket.readAll();
    const int body = response.indexOf("\r\n\r\n");
    return body < 0 ? QByteArray() : response.mid(body + 4);
}

QString occurrences(const QString &log, const QString &text)
{
    return QString::number(log.count(text));
}

} // namespace

bool tst_ReloadE2e::startQcm(QProcess &qcm, QString &log, const QString &configFile)
{
    connect(&qcm, &QProcess::readyReadStandardError, this,
        [&] { log += QString::fromUtf8(qcm.readAllStandardError()); });
    // A failed check returns early: the QProcess then ends qcm (SIGKILL) as it goes.
    qcm.start(QStringLiteral(QCM_BINARY), {QStringLiteral("--config"), configFile});
    return qcm.waitForStarted();
}

void tst_ReloadE2e::writeFile(const QString &path, const QString &text)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(path));
    file.write(text.toUtf8());
}

void tst_ReloadE2e::stopQcm(QProcess &qcm, QString &log)
{
    ::kill(pid_t(qcm.processId()), SIGTERM);
    QVERIFY(qcm.waitForFinished(30000));
    log += QString::fromUtf8(qcm.readAllStandardError());
    if (qcm.exitStatus() != QProcess::NormalExit || qcm.exitCode() != 0)
        std::fputs(qPrintable(QStringLiteral("qcm's log:\n") + log), stderr); // QtTest truncates
    QCOMPARE(qcm.exitStatus(), QProcess::NormalExit);
    QCOMPARE(qcm.exitCode(), 0);
}

int tst_ReloadE2e::pluginState(quint16 port, const QString &plugin, const QString &state)
{
    const QString sample
        = QStringLiteral("qcm_plugin_state{plugin=\"%1\",state=\"%2\"} ").arg(plugin, state);
    const QString metrics = QString::fromUtf8(httpGet(port, "/metrics"));
    const int at = metrics.indexOf(sample);
    if (at < 0)
        return -1;
    return metrics.mid(at + sample.size(), 1).toInt();
}

void tst_ReloadE2e::sighupAndFileEditsChangeSingleControllers()
{
    RestClient client(clusterConfig(QStringLiteral("admin")));
    const QString ns = createNamespace(client, QStringLiteral("reload"));
    const QMap<QString, QString> selected {{QStringLiteral("qcm-e2e"), ns}};
    auto annotation = [&](const QString &name) {
        const ObjectResult cm = client.get(ConfigMaps, ns, name);
        return cm ? cm->annotations().value(QStringLiteral("qcm.io/e2e")) : QString();
    };

    QTemporaryDir dir;
    QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("plugins"))));
    for (const char *plugin : {"fixture-configmaps", "fixture-optional"})
        QVERIFY(QFile::copy(QStringLiteral(QCM_FIXTURE_PLUGIN_DIR "/lib%1.so").arg(plugin),
            dir.filePath(QStringLiteral("plugins/lib%1.so").arg(plugin))));
    const quint16 port = freePort();
    const QString configFile = dir.filePath(QStringLiteral("controller-manager.yaml"));
    // `controllers` and fixture-configmaps' value vary; the rest stays.
    auto config = [&](const QString &controllers, const QString &value) {
        return QStringLiteral("kubeconfig: %1/admin.kubeconfig\n"
                              "pluginDirs: [plugins]\n"
                              "leaderElection: {leaderElect: false}\n"
                              "serving: {bindAddress: 127.0.0.1, securePort: %2}\n"
                              "controllers: %3\n"
                              "controllerConfig:\n"
                              "  fixture-configmaps:\n"
                              "    settings:\n"
                              "      labelSelector: qcm-e2e=%4\n"
                              "      annotation: qcm.io/e2e\n"
                              "      value: %5\n")
            .arg(clusterDir())
            .arg(port)
            .arg(controllers, ns, value);
    };
    writeFile(configFile, config(QStringLiteral("['*', fixture-optional]"), QStringLiteral("v1")));

    QProcess qcm;
    QString log;
    QVERIFY(startQcm(qcm, log, configFile));
    const QString configmapsFile = dir.filePath(QStringLiteral("plugins/libfixture-configmaps.so"));
    const QString optionalFile = dir.filePath(QStringLiteral("plugins/libfixture-optional.so"));
    QTRY_VERIFY2_WITH_TIMEOUT(
        log.contains(QLatin1String("watching ") + configFile), qPrintable(log), 30000);
    QVERIFY(client.create(ConfigMaps, ns, configMap(ns, QStringLiteral("a"), {}, selected)));
    QTRY_COMPARE_WITH_TIMEOUT(annotation(QStringLiteral("a")), QStringLiteral("v1"), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(
        pluginState(port, QStringLiteral("fixture-configmaps"), QStringLiteral("running")), 1,
        10000);
    const QString optionalRunning = optionalFile + QStringLiteral("): configured -> running");
    QCOMPARE(log.count(optionalRunning), 1);

    // 1. A setting changed, then SIGHUP: fixture-configmaps alone is restarted (stopped,
    // created again with the new settings, started), and re-annotates what it sees; qcm and
    // fixture-optional run on.
    writeFile(configFile, config(QStringLiteral("['*', fixture-optional]"), QStringLiteral("v2")));
    ::kill(pid_t(qcm.processId()), SIGHUP);
    QTRY_VERIFY2_WITH_TIMEOUT(log.contains(QLatin1String("applied: changed: fixture-configmaps")),
        qPrintable(log), 30000);
    QVERIFY2(
        log.contains(configmapsFile + QStringLiteral("): running -> stopped")), qPrintable(log));
    QVERIFY(log.contains(configmapsFile + QStringLiteral("): stopped -> configured")));
    QCOMPARE(log.count(configmapsFile + QStringLiteral("): configured -> running")), 2);
    QTRY_COMPARE_WITH_TIMEOUT(annotation(QStringLiteral("a")), QStringLiteral("v2"), 30000);
    QVERIFY(client.create(ConfigMaps, ns, configMap(ns, QStringLiteral("b"), {}, selected)));
    QTRY_COMPARE_WITH_TIMEOUT(annotation(QStringLiteral("b")), QStringLiteral("v2"), 30000);
    QCOMPARE(log.count(optionalRunning), 1); // untouched
    QVERIFY(!log.contains(optionalFile + QStringLiteral("): running -> stopped")));

    // 2. An invalid configuration (a misspelt controller), then SIGHUP: refused with the
    // start-up error, file, line and column; everything runs on as it was.
    writeFile(configFile, config(QStringLiteral("['*', fixture-optionl]"), QStringLiteral("v3")));
    const QString before = occurrences(log, QStringLiteral("-> "));
    ::kill(pid_t(qcm.processId()), SIGHUP);
    const QString refusal = QStringLiteral("reload refused: %1: controllers: \"fixture-optionl\" "
                                           "is not in the list of known controllers; the known "
                                           "controllers are fixture-configmaps, "
                                           "fixture-optional (disabled by default: "
                                           "fixture-optional) (line 5, column 14)")
                                .arg(configFile);
    QTRY_VERIFY2_WITH_TIMEOUT(log.contains(refusal), qPrintable(log), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(
        log.contains(QLatin1String("the running controllers are unchanged")), 10000);
    QCOMPARE(occurrences(log, QStringLiteral("-> ")), before); // no plugin moved
    QVERIFY(client.create(ConfigMaps, ns, configMap(ns, QStringLiteral("c"), {}, selected)));
    QTRY_COMPARE_WITH_TIMEOUT(annotation(QStringLiteral("c")), QStringLiteral("v2"), 30000);
    QCOMPARE(qcm.state(), QProcess::Running);

    // 3. An edit alone, no signal (the file is watched): fixture-configmaps disabled. It
    // stops and unloads; a new ConfigMap is left alone; /metrics says unloaded.
    writeFile(configFile,
        config(
            QStringLiteral("['*', fixture-optional, -fixture-configmaps]"), QStringLiteral("v2")));
    QTRY_VERIFY2_WITH_TIMEOUT(log.contains(QLatin1String("applied: disabled: fixture-configmaps")),
        qPrintable(log), 30000);
    QVERIFY(log.contains(configmapsFile + QStringLiteral("): stopped -> unloaded")));
    QCOMPARE(
        pluginState(port, QStringLiteral("fixture-configmaps"), QStringLiteral("unloaded")), 1);
    QCOMPARE(pluginState(port, QStringLiteral("fixture-configmaps"), QStringLiteral("running")), 0);
    QCOMPARE(pluginState(port, QStringLiteral("fixture-optional"), QStringLiteral("running")), 1);
    QVERIFY(client.create(ConfigMaps, ns, configMap(ns, QStringLiteral("d"), {}, selected)));
    QTest::qWait(3000); // long enough for a running controller to have annotated it
    QCOMPARE(annotation(QStringLiteral("d")), QString());

    // 4. Enabled again, with SIGHUP: loaded, created and started again; it catches up.
    writeFile(configFile, config(QStringLiteral("['*', fixture-optional]"), QStringLiteral("v2")));
    ::kill(pid_t(qcm.processId()), SIGHUP);
    QTRY_VERIFY2_WITH_TIMEOUT(log.contains(QLatin1String("applied: enabled: fixture-configmaps")),
        qPrintable(log), 30000);
    QVERIFY(log.contains(configmapsFile + QStringLiteral("): unloaded -> loaded")));
    QTRY_COMPARE_WITH_TIMEOUT(annotation(QStringLiteral("d")), QStringLiteral("v2"), 30000);
    QCOMPARE(pluginState(port, QStringLiteral("fixture-configmaps"), QStringLiteral("running")), 1);
    QCOMPARE(log.count(optionalRunning), 1); // fixture-optional never moved

    stopQcm(qcm, log);
    QVERIFY2(!log.contains(QLatin1String("error syncing")), qPrintable(log));
    QVERIFY(client.remove(Namespaces, {}, ns));
}

void tst_ReloadE2e::droppedPluginStartsOnTheLeader()
{
    RestClient client(clusterConfig(QStringLiteral("admin")));
    const QString ns = createNamespace(client, QStringLiteral("drop"));

    QTemporaryDir dir;
    QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("plugins"))));
    QVERIFY(QFile::copy(QStringLiteral(QCM_FIXTURE_PLUGIN_DIR "/libfixture-optional.so"),
        dir.filePath(QStringLiteral("plugins/libfixture-optional.so"))));
    const quint16 port = freePort();
    const QString configFile = dir.filePath(QStringLiteral("controller-manager.yaml"));
    // Leader election on, with a lease of this test's own: fixture-labelled needs it.
    writeFile(configFile,
        QStringLiteral("kubeconfig: %1/admin.kubeconfig\n"
                       "pluginDirs: [plugins]\n"
                       "leaderElection: {resourceNamespace: %2, resourceName: qcm-drop}\n"
                       "serving: {bindAddress: 127.0.0.1, securePort: %3}\n"
                       "controllers: ['*', fixture-optional]\n")
            .arg(clusterDir(), ns)
            .arg(port));

    QProcess qcm;
    QString log;
    QVERIFY(startQcm(qcm, log, configFile));
    QTRY_VERIFY2_WITH_TIMEOUT(
        log.contains(QLatin1String("watching ") + configFile), qPrintable(log), 30000);
    QTRY_VERIFY2_WITH_TIMEOUT(log.contains(QLatin1String("leading: ")), qPrintable(log), 30000);

    // Copied in place (not renamed in): qcm waits until the file has stopped changing.
    const QString dropped = dir.filePath(QStringLiteral("plugins/libfixture-labelled.so"));
    QVERIFY(QFile::copy(QStringLiteral(QCM_FIXTURE_PLUGIN_DIR "/libfixture-labelled.so"), dropped));
    QTRY_VERIFY2_WITH_TIMEOUT(
        log.contains(dropped + QStringLiteral("): configured -> running")), qPrintable(log), 30000);
    QVERIFY2(
        log.contains(QStringLiteral("found fixture-labelled (%1), version 1.0.0").arg(dropped)),
        qPrintable(log));
    QVERIFY(log.contains(QLatin1String("applied: found fixture-labelled")));
    QCOMPARE(pluginState(port, QStringLiteral("fixture-labelled"), QStringLiteral("running")), 1);

    // It does its job.
    QVERIFY(client.create(ConfigMaps, ns,
        configMap(ns, QStringLiteral("x"), {},
            {{QStringLiteral("qcm.io/fixture-labelled"), QStringLiteral("yes")}})));
    QTRY_COMPARE_WITH_TIMEOUT(
        [&] {
            const ObjectResult cm = client.get(ConfigMaps, ns, QStringLiteral("x"));
            return cm ? cm->annotations().value(QStringLiteral("qcm.io/fixture-labelled"))
                      : QString();
        }(),
        QStringLiteral("seen"), 30000);

    // Removed again: the controller runs on with what it loaded, and the log says so.
    QVERIFY(QFile::remove(dropped));
    QTRY_VERIFY2_WITH_TIMEOUT(
        log.contains(dropped + QStringLiteral(") was removed after qcm loaded it")),
        qPrintable(log), 30000);
    QCOMPARE(pluginState(port, QStringLiteral("fixture-labelled"), QStringLiteral("running")), 1);

    stopQcm(qcm, log);
    QVERIFY(client.remove(Namespaces, {}, ns));
}

QTEST_GUILESS_MAIN(tst_ReloadE2e)
#include "tst_reload.moc"
