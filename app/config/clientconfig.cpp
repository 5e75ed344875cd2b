// SPDX-License-Identifier: Apache-2.0
#include "config/clientconfig.h"

#include <qcm/client/incluster.h>
#include <qcm/client/kubeconfig.h>

namespace qcm::host {

namespace {

// client-go's rest.DefaultQPS and rest.DefaultBurst, used when the flags say 0.
constexpr double DefaultQps = 5;
constexpr int DefaultBurst = 10;

} // namespace

Result<client::RestConfig> buildClientConfig(const ControllerManagerConfig &config)
{
    client::RestConfig rest;
    if (config.kubeconfig.isEmpty() && config.master.isEmpty()) {
        client::InClusterOptions options;
        // qcm's own variable, not client-go's: where the token, CA and namespace are read
        // from, for a token projected elsewhere and for the e2e test of the in-cluster path.
        const QString dir = qEnvironmentVariable("QCM_SERVICE_ACCOUNT_DIR");
        if (!dir.isEmpty())
            options.serviceAccountDir = dir;
        Result<client::RestConfig> inCluster = client::inClusterConfig(options);
        if (!inCluster)
            return Error {{}, QStringLiteral("--kubeconfig"),
                QStringLiteral("neither --kubeconfig nor --master was given, and the in-cluster "
                               "configuration is not available: %1")
                    .arg(inCluster.error().toString())};
        rest = *inCluster;
    } else if (!config.kubeconfig.isEmpty()) {
        Result<client::KubeConfig> kubeconfig = client::KubeConfig::loadFile(config.kubeconfig);
        if (!kubeconfig)
            return kubeconfig.error();
        Result<client::RestConfig> fromFile = kubeconfig->restConfig();
        if (!fromFile)
            return fromFile.error();
        rest = *fromFile;
    } else {
        rest.source = QStringLiteral("--master");
    }
    if (!config.master.isEmpty()) {
        QString master = config.master;
        if (!master.contains(QLatin1String("://"))) {
            // client-go's DefaultServerURL: https when there is TLS to speak, else http.
            const bool tls = !rest.caData.isEmpty() || !rest.clientCertData.isEmpty()
                || rest.insecureSkipTlsVerify;
            master.prepend(tls ? QStringLiteral("https://") : QStringLiteral("http://"));
        }
        const QUrl url(master, QUrl::StrictMode);
        if (!url.isValid() || url.host().isEmpty())
            return Error {{}, QStringLiteral("--master"),
                QStringLiteral("\"%1\" is not a server URL").arg(config.master)};
        rest.server = url;
        if (!config.kubeconfig.isEmpty())
            rest.source += QStringLiteral(", server from --master");
    }
    rest.qps = config.kubeApiQps == 0 ? DefaultQps : config.kubeApiQps; // < 0: no limit
    rest.burst = config.kubeApiBurst == 0 ? DefaultBurst : config.kubeApiBurst;
    rest.maxResponseBytes = config.maxResponseBytes;
    rest.maxWatchEventBytes = config.maxWatchEventBytes;
    rest.watchTransport = config.watchTransport;
    return rest;
}

Result<client::RestConfig::WatchTransport> parseWatchTransport(const QString &text)
{
    if (text == QLatin1String("dedicated"))
        return client::RestConfig::WatchTransport::Dedicated;
    if (text == QLatin1String("shared"))
        return client::RestConfig::WatchTransport::Shared;
    return Error {{}, {}, QStringLiteral("must be dedicated or shared, not \"%1\"").arg(text)};
}

QString watchTransportName(client::RestConfig::WatchTransport transport)
{
    return transport == client::RestConfig::WatchTransport::Shared ? QStringLiteral("shared")
                                                                   : QStringLiteral("dedicated");
}

} // namespace qcm::host
