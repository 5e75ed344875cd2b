// SPDX-License-Identifier: Apache-2.0
// HealthChecks: one health endpoint (/healthz, /livez or /readyz) and its named checks, served
// as k8s.io/apiserver's healthz package serves them (InstallPathHandler, handleRootHealth):
//
//   /<endpoint>             200 "ok" when every check passes; with ?verbose, one line per
//                           check ("[+]ping ok") and "<endpoint> check passed". On a failure,
//                           500 with every line ("[-]name failed: reason withheld": the root
//                           is public, so the reason is only logged) and "<endpoint> check
//                           failed". ?exclude=<name> (repeatable) skips a check.
//   /<endpoint>/<name>      that check alone: 200 "ok", or 500 "internal server error:
//                           <reason>"; 404 for a name that is not a check.
//
// The checks are asked for at every request (checks()), so the set can follow plugins that
// come and go.
//
// Thread safety: respond() runs the checks on the calling thread; the host calls it on its
// main thread, where the checks may read the plugins' states.
#pragma once

#include <QtCore/QByteArray>
#include <QtCore/QList>
#include <QtCore/QString>
#include <QtCore/QUrlQuery>

#include <functional>
#include <optional>

namespace qcm::host {

struct HealthCheck
{
    QString name;
    // Nothing when healthy, otherwise the reason.
    std::function<std::optional<QString>()> check;
};

struct HealthResponse
{
    int status = 200;
    QByteArray body;
};

class HealthChecks
{
public:
    // `endpoint` without the slash: "healthz", "livez", "readyz".
    HealthChecks(QString endpoint, std::function<QList<HealthCheck>()> checks);

    QString endpoint() const { return m_endpoint; }
    // `subpath` is what follows "/<endpoint>/", empty for the root.
    HealthResponse respond(const QString &subpath, const QUrlQuery &query) const;

private:
    HealthResponse root(const QUrlQuery &query) const;

    const QString m_endpoint;
    const std::function<QList<HealthCheck>()> m_checks;
};

// The check every endpoint has: the server answers.
HealthCheck pingCheck();

} // namespace qcm::host
