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
// The probe speaks for the connection that new requests take, which need not be the one an
// older reply waits on: client-go pings every connection, Qt shows none. So each reply is
// also watched on its own. When a connection of this client breaks (lose(), or a reply that
// ends in a transport error), a reply is suspect until it receives something again if it was
// sent before the break, or after it but before any reply sent after it was answered (Qt 6.4
// seems to lose a request sent as its HTTP/2 connection closes: the best explanation found
// for a watch restarted at that moment that never answered). A suspect reply that receives nothing
// for readIdleTimeout + pingTimeout from the break (or from its sending, if later) is taken to be
// stranded and aborted as lost, while new traffic elsewhere keeps the client as a whole from ever
// looking idle.
//
// A reply on a connection of its own (a dedicated watch, http1watchreply_p.h) says nothing
// about the others: what it receives does not count as the client's traffic, and its
// connection's break makes no other reply suspect, nor is it ever suspect itself (its TCP
// keep-alive watches its connection). It is only in flight: it keeps the checks going (so
// with nothing but such watches open, the probe asks every readIdleTimeout), and a probe that
// finds the server unreachable ends it with the rest.
//
// Thread safety: the RestClientWorker's I/O thread only.
#pragma once

#include <qcm/clock.h>

#include <QtCore/QHash>
#include <QtCore/QObject>
#include <QtCore/QPointer>
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

    // Watches `reply` (a request's or a watch's) until it finishes; `ownConnection`: it has a
    // connection to itself (above).
    void track(QNetworkReply *reply, bool ownConnection = false);
    // Why `reply` was aborted as on a lost connection; empty when it was not.
    static QString lostReason(const QNetworkReply *reply);

private:
    using SteadyClock = std::chrono::steady_clock;

    struct InFlight
    {
        quint64 breaks = 0; // m_breaks when it was sent
        bool unconfirmed = false; // sent after that break, before the client was answered
        bool heard = false; // received something since the last break
        SteadyClock::time_point lastReceived; // its sending, then its last byte
        bool ownConnection = false; // on a connection of its own: never suspect
    };

    void received(QNetworkReply *reply);
    // A connection of this client broke: what was sent before it is suspect from now on.
    void broke();
    void check();
    void probe(std::chrono::milliseconds idle);
    void lose(std::chrono::milliseconds idle);
    // Aborts the replies stranded since a break; returns when the next one would be.
    SteadyClock::time_point abortStranded(SteadyClock::time_point now);
    // Aborts each of `replies` (already out of m_inFlight) as ConnectionLost for `reason`.
    static void abortAsLost(const QList<QNetworkReply *> &replies, const QString &reason);
    void armTimer(SteadyClock::time_point at, SteadyClock::time_point now);

    QNetworkAccessManager *m_nam;
    QString m_server;
    std::chrono::milliseconds m_readIdleTimeout;
    std::chrono::milliseconds m_pingTimeout;
    std::function<QNetworkReply *()> m_sendProbe;
    QHash<QNetworkReply *, InFlight> m_inFlight;
    SteadyClock::time_point m_lastReceived; // by any reply
    quint64 m_breaks = 0;
    SteadyClock::time_point m_brokeAt;
    bool m_confirmed = true; // a reply sent after the last break has received something
    QTimer m_timer; // single shot: the next check while something is in flight
    QPointer<QNetworkReply> m_probe;
};

} // namespace qcm::client
