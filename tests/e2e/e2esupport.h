// SPDX-License-Identifier: Apache-2.0
// What the e2e tests share: the cluster the CTest fixture e2e_cluster started, its kubectl,
// and objects to create in it.
#pragma once

#include <qcm/client/kubeconfig.h>
#include <qcm/client/restclient.h>

#include <QtCore/QDateTime>
#include <QtCore/QFile>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>

#include <cstdio>

namespace qcm::e2e {

using namespace qcm::client;

// The fixture's directory ($QCM_E2E_DIR); the test aborts with a clear message without it.
inline QString clusterDir()
{
    const QString dir = qEnvironmentVariable("QCM_E2E_DIR");
    if (dir.isEmpty())
        qFatal("QCM_E2E_DIR is not set: run e2e tests through ctest (fixture e2e_cluster)");
    return dir;
}

// The RestConfig of one of the fixture's users: admin, token-admin or restricted.
inline RestConfig clusterConfig(const QString &user, double qps = 200, int burst = 400)
{
    auto kubeconfig = KubeConfig::loadFile(
        clusterDir() + QLatin1Char('/') + user + QStringLiteral(".kubeconfig"));
    if (!kubeconfig)
        qFatal("%s", qPrintable(kubeconfig.error().toString()));
    auto config = kubeconfig->restConfig();
    if (!config)
        qFatal("%s", qPrintable(config.error().toString()));
    config->qps = qps;
    config->burst = burst;
    return *config;
}

inline const GroupVersionResource Namespaces {
    QString(), QStringLiteral("v1"), QStringLiteral("namespaces")};
inline const GroupVersionResource ConfigMaps {
    QString(), QStringLiteral("v1"), QStringLiteral("configmaps")};

// Creates a fresh namespace "e2e-<test>-<n>" and returns its name.
inline QString createNamespace(RestClient &client, const QString &test)
{
    const QString ns
        = QStringLiteral("e2e-%1-%2").arg(test).arg(QDateTime::currentMSecsSinceEpoch() % 100000);
    Object object;
    object.setApiVersion(QStringLiteral("v1"));
    object.setKind(QStringLiteral("Namespace"));
    object.setName(ns);
    if (auto created = client.create(Namespaces, {}, object); !created)
        qFatal("cannot create namespace %s: %s", qPrintable(ns),
            qPrintable(created.error().toString()));
    return ns;
}

inline Object configMap(const QString &ns, const QString &name, const QJsonObject &data = {},
    const QMap<QString, QString> &labels = {})
{
    Object o;
    o.setApiVersion(QStringLiteral("v1"));
    o.setKind(QStringLiteral("ConfigMap"));
    o.setNamespaceName(ns);
    o.setName(name);
    o.setLabels(labels);
    o.json().insert(QStringLiteral("data"), data);
    return o;
}

// Runs the cluster's kubectl with its admin kubeconfig; true if it exits 0. `output` gets
// stdout and stderr.
inline bool kubectl(const QStringList &args, QString *output = nullptr)
{
    QFile state(clusterDir() + QStringLiteral("/cluster.json"));
    if (!state.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(state.fileName()));
    const QString binary = QJsonDocument::fromJson(state.readAll())
                               .object()
                               .value(QLatin1String("kubectl"))
                               .toString();
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(binary,
        QStringList {
            QStringLiteral("--kubeconfig"), clusterDir() + QStringLiteral("/admin.kubeconfig")}
            + args);
    const bool finished = p.waitForFinished(60000);
    const QString text = QString::fromUtf8(p.readAll());
    if (output)
        *output = text;
    if (!finished || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        std::fputs(
            qPrintable(QStringLiteral("kubectl %1:\n%2\n").arg(args.join(QLatin1Char(' ')), text)),
            stderr);
        return false;
    }
    return true;
}

} // namespace qcm::e2e
