// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/incluster.h>
#include <qcm/detail/readatmost.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtNetwork/QHostAddress>
#include <QtNetwork/QSslCertificate>

namespace qcm::client {

Result<RestConfig> inClusterConfig(const InClusterOptions &options)
{
    const QString host = qEnvironmentVariable("KUBERNETES_SERVICE_HOST");
    const QString port = qEnvironmentVariable("KUBERNETES_SERVICE_PORT");
    if (host.isEmpty() || port.isEmpty())
        return Error {{}, QStringLiteral("KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT"),
            QStringLiteral("not set: not running in a pod (use a kubeconfig instead)")};
    const QDir dir(options.serviceAccountDir);
    RestConfig config;
    config.source = QStringLiteral("in-cluster (%1)").arg(options.serviceAccountDir);
    // An IPv6 service address needs brackets in the URL.
    const bool ipv6 = QHostAddress(host).protocol() == QAbstractSocket::IPv6Protocol;
    config.server = QUrl(QStringLiteral("https://%1:%2")
                             .arg(ipv6 ? QLatin1Char('[') + host + QLatin1Char(']') : host, port));
    if (!config.server.isValid() || config.server.port() <= 0)
        return Error {{}, QStringLiteral("KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT"),
            QStringLiteral("\"%1:%2\" is not a host and port").arg(host, port)};

    const QString tokenFile = dir.filePath(QStringLiteral("token"));
    QFile token(tokenFile);
    if (!token.open(QIODevice::ReadOnly))
        return Error {tokenFile, {},
            QStringLiteral("cannot read the service-account token: %1").arg(token.errorString())};
    config.bearerTokenFile = tokenFile; // re-read as it rotates

    const QString caFile = dir.filePath(QStringLiteral("ca.crt"));
    QFile ca(caFile);
    if (!ca.open(QIODevice::ReadOnly))
        return Error {
            caFile, {}, QStringLiteral("cannot read the cluster CA: %1").arg(ca.errorString())};
    Result<QByteArray> caData = detail::readAtMost(ca, detail::inputLimits().kubeconfigBytes,
        QStringLiteral("the cluster CA"), QStringLiteral("limits.kubeconfigBytes"));
    if (!caData)
        return caData.error();
    config.caData = *caData;
    if (QSslCertificate::fromData(config.caData, QSsl::Pem).isEmpty())
        return Error {caFile, {}, QStringLiteral("holds no PEM certificate")};

    QFile ns(dir.filePath(QStringLiteral("namespace")));
    if (ns.open(QIODevice::ReadOnly)) {
        const QString name = QString::fromUtf8(ns.read(256)).trimmed(); // a DNS label
        if (!name.isEmpty())
            config.defaultNamespace = name;
    }
    return config;
}

} // namespace qcm::client
