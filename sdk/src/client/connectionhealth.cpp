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

void ConnectionHealth::track(QNetworkReply *reply)
{
    if (m_readIdleTimeout <= std::chrono::milliseconds::zero())
        return;
    if (m_inFlight.isEmpty()) { // idleness counts from here: nothing was awaited before
        received();
        if (!m_probe)
            m_timer.start(m_readIdleTimeout);
    }
    m_inFlight.insert(reply);
    connect(reply, &QNetworkReply::metaDataChanged, this, &ConnectionHealth::received);
    connect(reply, &QNetworkReply::readyRead, this, &ConnectionHealth::received);
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() != 0)
            received();
        m_inFlight.remove(reply);
    });
    connect(reply, &QObject::destroyed, this, [this, reply] { m_inFlight.remove(reply); });
}

QString ConnectionHealth::lostReason(const QNetworkReply *reply)
{
    return reply->property(LostProperty).toString();
}

void ConnectionHealth::check()
{
    if (m_inFlight.isEmpty() || m_probe)
        return; // track() or the probe's answer arms the next check
    const auto idle = std::chrono::duration_cast<std::chrono::milliseconds>(
        SteadyClock::now() - m_lastReceived);
    if (idle < m_readIdleTimeout) {
        m_timer.start(m_readIdleTimeout - idle);
        return;
    }
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
        received();
        if (!m_inFlight.isEmpty())
            m_timer.start(m_readIdleTimeout);
    });
}

void ConnectionHealth::lose(std::chrono::milliseconds idle)
{
    const QSet<QNetworkReply *> replies = std::exchange(m_inFlight, {});
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
    for (QNetworkReply *reply : replies) {
        reply->setProperty(LostProperty, reason);
        reply->abort();
    }
}

} // namespace qcm::client
