// SPDX-License-Identifier: Apache-2.0
// e2e: the real qcm binary runs a plugin (fixture-configmaps) against the real apiserver. The
// plugin reaches running, its controller reconciles the ConfigMaps it is configured to see
// (the objects listed at start and one created later), with the settings of
// controller-manager.yaml, and SIGTERM shuts everything down cleanly.
#include "../e2esupport.h"

#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <csignal>
#include <cstdio>

using namespace qcm::client;
using namespace qcm::e2e;

class tst_HostE2e : public QObject
{
    Q_OBJECT

private slots:
    void pluginRunsAgainstTheApiServer();
};

void tst_HostE2e::pluginRunsAgainstTheApiServer()
{
    RestClient client(clusterConfig(QStringLiteral("admin")));
    const QString ns = createNamespace(client, QStringLiteral("host"));
    const QMap<QString, QString> selected {{QStringLiteral("qcm-e2e"), ns}};
    QVERIFY(client.create(ConfigMaps, ns, configMap(ns, QStringLiteral("before"), {}, selected)));
    QVERIFY(client.create(ConfigMaps, ns, configMap(ns, QStringLiteral("ignored"))));

    QTemporaryDir dir;
    QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("plugins"))));
    QVERIFY(QFile::copy(QStringLiteral(QCM_FIXTURE_PLUGIN_DIR "/libfixture-configmaps.so"),
        dir.filePath(QStringLiteral("plugins/libfixture-configmaps.so"))));
    QFile config(dir.filePath(QStringLiteral("controller-manager.yaml")));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(QStringLiteral("apiVersion: qcm.io/v1alpha1\n"
                                "kind: ControllerManagerConfiguration\n"
                                "kubeconfig: %1/admin.kubeconfig\n"
                                "pluginDirs: [plugins]\n"
                                "leaderElection: {leaderElect: false}\n"
                                "serving: {securePort: 0}\n"
                                "controllerConfig:\n"
                                "  fixture-configmaps:\n"
                                "    workers: 2\n"
                                "    settings:\n"
                                "      labelSelector: qcm-e2e=%2\n"
                                "      annotation: qcm.io/e2e\n"
                                "      value: %2\n")
                     .arg(clusterDir(), ns)
                     .toUtf8());
    config.close();

    QProcess qcm;
    QString log;
    connect(&qcm, &QProcess::readyReadStandardError, this,
        [&] { log += QString::fromUtf8(qcm.readAllStandardError()); });
    qcm.start(QStringLiteral(QCM_BINARY), {QStringLiteral("--config"), config.fileName()});
    QVERIFY(qcm.waitForStarted());
    QTRY_VERIFY2_WITH_TIMEOUT(
        log.contains(QLatin1String("libfixture-configmaps.so): configured -> running")),
        qPrintable(log), 30000);
    QTRY_VERIFY2_WITH_TIMEOUT(
        log.contains(QLatin1String("qcm.controller.fixture-configmaps: caches synced; started 2 "
                                   "worker(s)")),
        qPrintable(log), 30000);

    auto annotation = [&](const QString &name) {
        const ObjectResult cm = client.get(ConfigMaps, ns, name);
        return cm ? cm->annotations().value(QStringLiteral("qcm.io/e2e")) : QString();
    };
    // Listed at start.
    QTRY_COMPARE_WITH_TIMEOUT(annotation(QStringLiteral("before")), ns, 30000);
    // Seen through the watch.
    QVERIFY(client.create(ConfigMaps, ns, configMap(ns, QStringLiteral("after"), {}, selected)));
    QTRY_COMPARE_WITH_TIMEOUT(annotation(QStringLiteral("after")), ns, 30000);
    // Outside the label selector of its settings: left alone.
    QCOMPARE(annotation(QStringLiteral("ignored")), QString());
    QCOMPARE(qcm.state(), QProcess::Running);

    ::kill(pid_t(qcm.processId()), SIGTERM);
    QVERIFY(qcm.waitForFinished(20000));
    log += QString::fromUtf8(qcm.readAllStandardError());
    if (qcm.exitStatus() != QProcess::NormalExit || qcm.exitCode() != 0)
        std::fputs(qPrintable(QStringLiteral("qcm's log:\n") + log), stderr); // QtTest truncates
    QCOMPARE(qcm.exitStatus(), QProcess::NormalExit);
    QCOMPARE(qcm.exitCode(), 0);
    QVERIFY2(log.contains(QLatin1String("libfixture-configmaps.so): running -> stopped")),
        qPrintable(log));
    QVERIFY(log.contains(QLatin1String("libfixture-configmaps.so): stopped -> unloaded")));
    QVERIFY2(!log.contains(QLatin1String("error syncing")), qPrintable(log));

    QVERIFY(client.remove(Namespaces, {}, ns));
}

QTEST_GUILESS_MAIN(tst_HostE2e)
#include "tst_host.moc"
