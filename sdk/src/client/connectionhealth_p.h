// SPDX-License-Identifier: Apache-2.0
// ConnectionHealth: finds a connection to the API server that a partition left dead, as
// client-go's HTTP/2 health check does (its ReadIdleTimeout and PingTimeout, 30 s and 15 s;
// RestConfig::readIdleTimeout and pingTimeout). Private to the SDK.
//
// A dead connection (no FIN, no RST: a cable pulled, a route gone, a middlebox that drops the
// flow) otherwise holds its requests and watches for ever: the controllers' client has no
// request timeout, as client-go's. Qt 6.4 has no HTTP/2 PING, so the probe is a request:
// while requests or watches are in flight and nothing has been received for readIdleTimeout,
// it sends GET /livez, which rides the same HTTP/2 connection; any answer within pingTimeout
// (even 401) proves the connection alive. No answer: the connection is lost. The access
// manager's connection cache is cleared, so new requests open a new connection, and every
// reply in flight is aborted, marked with the reason (lostReason()): the worker fails its
// request with ConnectionLost or retries it (a GET), and its watch ends and is started again
// by its reflector. Over HTTP/1.1 the probe may take another connection and prove nothing;
// client-go has no health check there either.
//
// Thread safety: the RestClientWorker's I/O thread only.
#pragma once

#include <qcm/clock.h>

#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QSet>
#include <QtCore/QTimer>

#include <chrono>
#include <functional>

QT_BEGIN_NAMESPACE
class QNetworkAccessManager;
class QNetworkReply;
QT_END_NAMESPACE

namespace qcm::client {

class ConnectionHealth : public QObject
{
public:
    // `sendProbe` sends GET /livez as the worker sends any request (its URL, TLS and
    // headers), bypassing the rate limit. A zero readIdleTimeout turns the checks off.
    ConnectionHealth(QNetworkAccessManager *nam, QString server, Duration readIdleTimeout,
        Duration pingTimeout, std::function<QNetworkReply *()> sendProbe, QObject *parent);

    // Watches `reply` (a request's or a watch's) until it finishes.
    void track(QNetworkReply *reply);
    // Why `reply` was aborted as on a lost connection; empty when it was not.
    static QString lostReason(const QNetworkReply *reply);

private:
    using SteadyClock = std::chrono::steady_clock;

    void received() { m_lastReceived = SteadyClock::now(); }
    void check();
    void lose(std::chrono::milliseconds idle);

    QNetworkAccessManager *m_nam;
    QString m_server;
    std::chrono::milliseconds m_readIdleTimeout;
    std::chrono::milliseconds m_pingTimeout;
    std::function<QNetworkReply *()> m_sendProbe;
    QSet<QNetworkReply *> m_inFlight;
    SteadyClock::time_point m_lastReceived;
    QTimer m_timer; // single shot: the next check while something is in flight
    QPointer<QNetworkReply> m_probe;
};

} // namespace qcm::client
