// SPDX-License-Identifier: Apache-2.0
// What the sample plugins' e2e tests share: the real qcm binary running one sample plugin
// against the e2e cluster with the repository's controller-manager.yaml (QcmRun).
//
// The plugin directory is the build's (QCM_SAMPLE_PLUGIN_DIR), the kubeconfig the cluster's
// admin one, and leader election stays on, with a Lease of the test's own in kube-system, so
// that the plugins (which need it) run as in production and two tests never share a Lease.
// Serving is off (--secure-port 0): parallel tests never compete for a port.
#pragma once

#include "../e2esupport.h"

#include <QtCore/QFile>
#include <QtCore/QJsonDocument>
#include <QtCore/QProcess>
#include <QtCore/QRegularExpression>
#include <QtTest/QtTest>

#include <csignal>
#include <cstdio>

namespace qcm::e2e {

// The real qcm running the sample plugin `controller`, and its log.
class QcmRun : public QObject
{
public:
    explicit QcmRun(const QString &controller) : m_controller(controller)
    {
        connect(&m_process, &QProcess::readyReadStandardError, this,
            [this] { m_log += QString::fromUtf8(m_process.readAllStandardError()); });
    }
    ~QcmRun() override
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

    // The Lease this run campaigns for, in kube-system.
    QString lease() const
    {
        return QStringLiteral("qcm-e2e-%1-%2")
            .arg(m_controller)
            .arg(QCoreApplication::applicationPid());
    }

    // Starts qcm and waits until the controller's workers run (caches synced).
    bool start()
    {
        const QString lease = this->lease();
        m_process.start(QStringLiteral(QCM_BINARY),
            {QStringLiteral("--config"), QStringLiteral(QCM_SOURCE_DIR "/controller-manager.yaml"),
                QStringLiteral("--kubeconfig"), clusterDir() + QStringLiteral("/admin.kubeconfig"),
                QStringLiteral("--plugin-dir"), QStringLiteral(QCM_SAMPLE_PLUGIN_DIR),
                QStringLiteral("--controllers"), m_controller,
                QStringLiteral("--leader-elect-resource-name"), lease,
                QStringLiteral("--secure-port"), QStringLiteral("0")});
        if (!m_process.waitForStarted())
            return false;
        return waitForLog(
            QStringLiteral("qcm.controller.%1: caches synced; started").arg(m_controller), 60000);
    }

    // Waits until the log contains `text`; on a timeout prints the log (QtTest truncates).
    bool waitForLog(const QString &text, int timeoutMs = 30000)
    {
        if (QTest::qWaitFor([&] { return m_log.contains(text); }, timeoutMs))
            return true;
        dumpLog(QStringLiteral("no \"%1\" in qcm's log").arg(text));
        return false;
    }
    // How many times the log contains `text`.
    int count(const QString &text) const { return int(m_log.count(text)); }
    int count(const QRegularExpression &pattern) const { return int(m_log.count(pattern)); }
    const QString &log() const { return m_log; }
    bool isRunning() const { return m_process.state() == QProcess::Running; }

    // SIGTERM, and the graceful shutdown: the plugin goes running -> stopped -> unloaded and
    // qcm exits 0.
    void stop()
    {
        QVERIFY(isRunning());
        ::kill(pid_t(m_process.processId()), SIGTERM);
        QVERIFY(m_process.waitForFinished(30000));
        m_log += QString::fromUtf8(m_process.readAllStandardError());
        const QString plugin = QStringLiteral("lib%1.so): ").arg(m_controller);
        QVERIFY2(m_log.contains(plugin + QStringLiteral("running -> stopped")), qPrintable(m_log));
        QVERIFY2(m_log.contains(plugin + QStringLiteral("stopped -> unloaded")), qPrintable(m_log));
        const bool clean
            = m_process.exitStatus() == QProcess::NormalExit && m_process.exitCode() == 0;
        if (!clean)
            dumpLog(QStringLiteral("qcm exited with status %1 (%2)")
                        .arg(m_process.exitCode())
                        .arg(m_process.exitStatus() == QProcess::NormalExit ? "exit" : "crash"));
        QVERIFY(clean);
    }

    void dumpLog(const QString &why) const
    {
        std::fputs(qPrintable(QStringLiteral("%1; qcm's log:\n%2\n").arg(why, m_log)), stderr);
    }

private:
    const QString m_controller;
    QProcess m_process;
    QString m_log;
};

inline const GroupVersionResource Events {
    QString(), QStringLiteral("v1"), QStringLiteral("events")};

// The core/v1 Events of namespace `ns` about the object `name` with `reason`.
inline QList<Object> eventsAbout(
    RestClient &client, const QString &ns, const QString &name, const QString &reason)
{
    ListOptions options;
    options.fieldSelector = QStringLiteral("involvedObject.name=%1,reason=%2").arg(name, reason);
    const ListResult events = client.list(Events, ns, options);
    return events ? events->items : QList<Object>();
}

// metadata.annotations[key] of `object`.
inline QString annotation(const ObjectResult &object, const QString &key)
{
    return object ? object->annotations().value(key) : QString();
}

// The JSON value at `path` ("spec.replicas") of `object`; undefined if it has none.
inline QJsonValue valueAt(const ObjectResult &object, const QString &path)
{
    if (!object)
        return QJsonValue(QJsonValue::Undefined);
    QJsonValue value = object->json();
    for (const QString &field : path.split(QLatin1Char('.')))
        value = value.toObject().value(field);
    return value;
}

} // namespace qcm::e2e
