// SPDX-License-Identifier: Apache-2.0
// RestConfig: everything a RestClient needs to reach one API server (client-go's rest.Config).
//
// Made by KubeConfig::restConfig() or inClusterConfig(), or filled in by hand. Certificate
// and key material is held as PEM bytes; files named by a kubeconfig are read when the
// RestConfig is made, so that a bad file is reported then, with its name.
//
// Plain data; copy it freely.
#pragma once

#include <qcm/client/execconfig.h>
#include <qcm/clock.h>

#include <QtCore/QByteArray>
#include <QtCore/QString>
#include <QtCore/QUrl>

#include <optional>

namespace qcm::client {

struct RestConfig
{
    QUrl server; // https://host:port, perhaps with a path prefix
    QString tlsServerName; // SNI and the name the certificate is checked against
    bool insecureSkipTlsVerify = false;
    QByteArray caData; // PEM; empty means the system's CAs
    QByteArray clientCertData; // PEM
    QByteArray clientKeyData; // PEM
    QString bearerToken;
    QString bearerTokenFile; // re-read when it changes (a rotating token)
    QString username; // basic auth
    QString password;
    std::optional<ExecConfig> exec; // a client.authentication.k8s.io credential plugin

    QString defaultNamespace = QStringLiteral("default"); // the context's namespace
    QString userAgent; // empty: "qcm/<version>"
    double qps = 5.0; // client-side rate limit (watches are exempt); <= 0: none
    int burst = 10;
    Duration timeout {0}; // per request; zero: none (watches use their own timeout)
    // Limits on what the API server can make the client hold (docs/security.md). A response
    // body over maxResponseBytes is abandoned as a transport error (reason ResponseTooLarge);
    // a watch event over maxWatchEventBytes is an ERROR event, and the watch goes on.
    qint64 maxResponseBytes = DefaultMaxResponseBytes;
    qint64 maxWatchEventBytes = DefaultMaxWatchEventBytes;
    // The health of the connection (client-go's HTTP/2 ReadIdleTimeout and PingTimeout):
    // while requests or watches are in flight and nothing has been received for
    // readIdleTimeout, a probe asks the server; with no answer within pingTimeout the
    // connection counts as lost, is closed, and what was in flight on it fails with reason
    // ConnectionLost (a GET is tried once more; a watch ends, and its reflector starts it
    // again). After a connection of the client breaks, a reply sent before the break (or
    // just after it) that receives nothing for readIdleTimeout + pingTimeout is lost the same
    // way (a stranded reply: docs/client.md). Zero readIdleTimeout: no checks.
    Duration readIdleTimeout = std::chrono::seconds(30);
    Duration pingTimeout = std::chrono::seconds(15);
    // How watches reach the server (docs/client.md, "Watch transport"). Dedicated (the
    // default): one HTTP/1.1 connection per watch, read on the client's I/O thread where its
    // events are decoded, so an event wakes one thread less (tests/bench/RESULTS.md run 24).
    // Shared: on the connections of every other request (HTTP/2, one connection multiplexed,
    // as client-go's), read by Qt's network thread.
    enum class WatchTransport { Dedicated, Shared };
    WatchTransport watchTransport = WatchTransport::Dedicated;
    static constexpr qint64 DefaultMaxResponseBytes = qint64(1) << 30; // 1 GiB
    static constexpr qint64 DefaultMaxWatchEventBytes = 64 * 1024 * 1024; // 64 MiB

    // Where it came from, for messages: "kubeconfig /path (context foo)", "in-cluster".
    QString source;
};

} // namespace qcm::client
