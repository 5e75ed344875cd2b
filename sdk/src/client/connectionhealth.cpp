// SPDX-License-Identifier: Apache-2.0
#include "connectionhealth_p.h"

#include <QtCore/QLoggingCategory>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkReply>

namespace qcm::client {

namespace {

Q_LOGGING_CATEGORY(lcConnectionHealth, "qcm.client.connectionhealth")

constexpr char LostProperty[] = "qcm_connection_lost";

std::chrono::milliseconds milliseconds(Duration d)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(d);
}

double seconds(std::chrono::milliseconds d)
{
    return double(d.count()) / 1000.0;
}

} // namespace

ConnectionHealth::ConnectionHealth(QNetworkAccessManager *nam, QString server,
    Duration readIdleTimeout, Duration pingTimeout, std::function<QNetworkReply *()> sendProbe,
    QObject *parent)
    : QObject(parent)
    , m_nam(nam)
    , m_server(std::move(server))
    , m_readIdleTimeout(milliseconds(readIdleTimeout))
    , m_pingTimeout(milliseconds(pingTimeout))
    , m_sendProbe(std::move(sendProbe))
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &ConnectionHealth::check);
}

void ConnectionHealth::track(QNetworkReply *reply, bool ownConnection)
{
    if (m_readIdleTimeout <= std::chrono::milliseconds::zero())
        return;
    const auto now = SteadyClock::now();
    if (m_inFlight.isEmpty()) // idleness counts from here: nothing was awaited before
        m_lastReceived = now;
    m_inFlight.insert(reply, {m_breaks, !m_confirmed, false, now, ownConnection});
    if (!m_probe && !m_timer.isActive())
        m_timer.start(m_readIdleTimeout);
    connect(reply, &QNetworkReply::metaDataChanged, this, [this, reply] { received(reply); });
    connect(reply, &QNetworkReply::readyRead, this, [this, reply] { received(reply); });
    connect(reply, &QNetworkReply::finished, this, [this, reply, ownConnection] {
        if (ownConnection) { // its connection's end says nothing about the others'
            m_inFlight.remove(reply);
            return;
        }
        // A transport error (Qt's network and proxy errors; a watch's too, after its 200)
        // other than an abort of ours: its connection failed under it.
        const QNetworkReply::NetworkError error = reply->error();
        if ((error > QNetworkReply::NoError && error < QNetworkReply::ContentAccessDenied
                && error != QNetworkReply::OperationCanceledError)
            || error == QNetworkReply::ProtocolFailure)
            broke();
        else if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() != 0)
            received(reply);
        m_inFlight.remove(reply);
    });
    connect(reply, &QObject::destroyed, this, [this, reply] { m_inFlight.remove(reply); });
}

QString ConnectionHealth::lostReason(const QNetworkReply *reply)
{
    return reply->property(LostProperty).toString();
}

void ConnectionHealth::received(QNetworkReply *reply)
{
    const auto it = m_inFlight.find(reply);
    if (it != m_inFlight.end() && it->ownConnection) {
        it->lastReceived = SteadyClock::now();
        return; // not the shared connections' traffic
    }
    m_lastReceived = SteadyClock::now();
    if (it == m_inFlight.end())
        return;
    it->lastReceived = m_lastReceived;
    it->heard = true;
    if (it->breaks == m_breaks)
        m_confirmed = true;
}

void ConnectionHealth::broke()
{
    const auto now = SteadyClock::now();
    ++m_breaks;
    m_brokeAt = now;
    m_confirmed = false;
    for (InFlight &entry : m_inFlight)
        entry.heard = false;
    if (!m_inFlight.isEmpty())
        armTimer(now + m_readIdleTimeout + m_pingTimeout, now);
}

void ConnectionHealth::check()
{
    if (m_inFlight.isEmpty())
        return; // track() arms the next check
    const auto now = SteadyClock::now();
    auto next = abortStranded(now);
    if (m_inFlight.isEmpty())
        return;
    if (!m_probe) { // else the probe's end checks again
        const auto idle
            = std::chrono::duration_cast<std::chrono::milliseconds>(now - m_lastReceived);
        if (idle >= m_readIdleTimeout)
            probe(idle);
        else
            next = std::min(next, m_lastReceived + m_readIdleTimeout);
    }
    if (next != SteadyClock::time_point::max())
        armTimer(next, now);
}

void ConnectionHealth::probe(std::chrono::milliseconds idle)
{
    QNetworkReply *probe = m_sendProbe();
    if (!probe)
        return;
    m_probe = probe;
    auto timedOut = std::make_shared<bool>(false);
    QTimer::singleShot(m_pingTimeout, probe, [probe, timedOut] {
        *timedOut = true;
        probe->abort();
    });
    connect(probe, &QNetworkReply::finished, this, [this, probe, timedOut, idle] {
        probe->deleteLater();
        m_probe = nullptr;
        if (*timedOut) {
            lose(idle + m_pingTimeout);
            return;
        }
        // An answer, or an error of the probe's own (a refused new connection): the
        // connection is not known to be dead; replies on a broken one fail by themselves.
        m_lastReceived = SteadyClock::now();
        check();
    });
}

ConnectionHealth::SteadyClock::time_point ConnectionHealth::abortStranded(
    SteadyClock::time_point now)
{
    const auto bound = m_readIdleTimeout + m_pingTimeout;
    auto next = SteadyClock::time_point::max();
    QList<QNetworkReply *> stranded;
    for (auto it = m_inFlight.cbegin(); it != m_inFlight.cend(); ++it) {
        if (it->ownConnection || it->heard || (it->breaks == m_breaks && !it->unconfirmed))
            continue; // its connection answers, or the probe speaks for it
        const auto since = std::max(it->lastReceived, m_brokeAt);
        if (now - since >= bound)
            stranded << it.key();
        else
            next = std::min(next, since + bound);
    }
    if (stranded.isEmpty())
        return next;
    const auto ago = std::chrono::duration_cast<std::chrono::milliseconds>(now - m_brokeAt);
    const QString reason
        = QStringLiteral("the connection to %1 that it waits on is taken to be lost: a "
                         "connection of this client broke %2 s ago, and since then (or since it "
                         "was sent, if later) it has received nothing for %3 s (readIdleTimeout "
                         "+ pingTimeout), while other replies may arrive on another connection")
              .arg(m_server)
              .arg(seconds(ago))
              .arg(seconds(bound));
    qCWarning(lcConnectionHealth).noquote()
        << QStringLiteral("%1 of the requests and watches in flight stranded: ")
                .arg(stranded.size())
            + reason + QStringLiteral("; aborting them");
    for (QNetworkReply *reply : std::as_const(stranded))
        m_inFlight.remove(reply);
    abortAsLost(stranded, reason);
    return next;
}

void ConnectionHealth::armTimer(SteadyClock::time_point at, SteadyClock::time_point now)
{
    const auto wait = std::max(
        std::chrono::milliseconds::zero(), std::chrono::ceil<std::chrono::milliseconds>(at - now));
    if (m_timer.isActive() && m_timer.remainingTimeAsDuration() <= wait)
        return; // it checks earlier, and arms the next
    m_timer.start(wait);
}

void ConnectionHealth::lose(std::chrono::milliseconds idle)
{
    const QList<QNetworkReply *> replies = std::exchange(m_inFlight, {}).keys();
    broke();
    const QString reason
        = QStringLiteral("the connection to %1 is lost: nothing was received for %2 s with "
                         "%3 requests and watches in flight, and a health probe (GET /livez) "
                         "had no answer within %4 s (readIdleTimeout, pingTimeout)")
              .arg(m_server)
              .arg(seconds(idle))
              .arg(replies.size())
              .arg(seconds(m_pingTimeout));
    qCWarning(lcConnectionHealth).noquote()
        << reason + QStringLiteral("; closing it, new requests open another");
    m_nam->clearConnectionCache();
    abortAsLost(replies, reason);
}

void ConnectionHealth::abortAsLost(const QList<QNetworkReply *> &replies, const QString &reason)
{
    for (QNetworkReply *reply : replies) {
        reply->setProperty(LostProperty, reason); // its error becomes ConnectionLost, `reason`
        reply->abort();
    }
}

} // namespace qcm::client
