// SPDX-License-Identifier: Apache-2.0
// ExecCredentialProvider: runs a kubeconfig's exec credential plugin
// (client.authentication.k8s.io/v1 ExecCredential) and caches what it returns.
//
// The plugin gets KUBERNETES_EXEC_INFO on its environment and prints an ExecCredential with a
// token or a client certificate and key. The credential is reused until its
// expirationTimestamp; without one it is reused until invalidate() (the client calls it after
// a 401, as client-go does). A plugin that cannot start, fails, times out or prints something
// that is not an ExecCredential gives an Error naming the command and the reason, with the
// plugin's stderr and installHint.
//
// Thread safety: credential() and invalidate() are safe from any thread; concurrent callers
// wait for one run of the plugin.
#pragma once

#include <qcm/client/execconfig.h>
#include <qcm/clock.h>
#include <qcm/result.h>

#include <QtCore/QDateTime>
#include <QtCore/QUrl>

#include <mutex>
#include <optional>

namespace qcm::client {

class QCM_SDK_EXPORT ExecCredentialProvider
{
public:
    struct Credential
    {
        QString token;
        QByteArray clientCertificateData; // PEM
        QByteArray clientKeyData; // PEM
        QDateTime expiration; // invalid: no expiry
    };

    // `server` and `caData` are passed to the plugin when provideClusterInfo is set.
    ExecCredentialProvider(ExecConfig config, QUrl server = {}, QByteArray caData = {},
        Duration timeout = std::chrono::seconds(60));

    Result<Credential> credential();
    void invalidate();

    // What the plugin printed, as an ExecCredential of `apiVersion`: the reason names what is
    // wrong (not JSON, another kind or apiVersion, no token or certificate, a certificate
    // without its key, a bad expirationTimestamp). Output longer than the limit
    // (InputLimits::execCredentialBytes, 1 MiB by default) is refused.
    static Result<Credential> parseOutput(const QByteArray &output, const QString &apiVersion);

private:
    Result<Credential> run();

    const ExecConfig m_config;
    const QUrl m_server;
    const QByteArray m_caData;
    const Duration m_timeout;
    std::mutex m_mutex;
    std::optional<Credential> m_cached; // guarded by m_mutex
};

} // namespace qcm::client
