// SPDX-License-Identifier: Apache-2.0
// Watch: one watch request's stream of events (watch.h), fed by its reply on the I/O thread.
#include <qcm/client/watch.h>

#include "connectionhealth_p.h"
#include "http1watchreply_p.h"
#include "redirect_p.h"
#include "restclientworker_p.h"

#include <QtNetwork/QNetworkReply>

namespace qcm::client {

Watch::Watch(const Codec *codec, qint64 maxEventBytes) : m_decoder(codec, maxEventBytes) { }

Watch::~Watch()
{
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
    }
}

void Watch::attach(QNetworkReply *reply)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_stopRequested) {
            reply->abort();
            reply->deleteLater();
            m_finished = true;
            m_changed.notify_all();
            return;
        }
    }
    m_reply = reply;
    connect(reply, &QNetworkReply::readyRead, this, &Watch::onReadyRead);
    connect(reply, &QNetworkReply::finished, this, &Watch::onFinished);
}

void Watch::deliver(const WatchEvent &event)
{
    {
        std::lock_guard delivering(m_sinkMutex);
        // Nothing may overtake an event that waits for next().
        const bool sinkMayTake = m_sink && event.type != WatchEvent::Type::Error && [this] {
            std::lock_guard lock(m_mutex);
            return m_events.empty();
        }();
        if (!sinkMayTake || !m_sink(event)) {
            {
                std::lock_guard lock(m_mutex);
                m_events.push_back(event);
            }
            m_changed.notify_all();
        }
    }
    emit eventReceived(event);
}

bool Watch::setEventSink(EventSink sink)
{
    std::lock_guard delivering(m_sinkMutex);
    m_sink = std::move(sink);
    if (!m_sink)
        return true;
    // The waiting events, oldest first, until one is an Error or declined. The I/O thread
    // cannot add any meanwhile (it delivers under m_sinkMutex), and next() is not running
    // (the contract: the consumer sets its sink), so a declined event goes back in front.
    for (;;) {
        WatchEvent front;
        {
            std::lock_guard lock(m_mutex);
            if (m_events.empty() || m_events.front().type == WatchEvent::Type::Error)
                return true;
            front = std::move(m_events.front());
            m_events.pop_front();
        }
        if (!m_sink(front)) {
            std::lock_guard lock(m_mutex);
            m_events.push_front(std::move(front));
            return true;
        }
    }
}

void Watch::onReadyRead()
{
    if (!m_reply)
        return;
    if (!m_streaming) {
        // The reply's status and kind, looked up once: a 200 stays one.
        const int code = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (code != 200)
            return; // an error body: read whole when finished
        m_streaming = true;
        m_dedicated = dynamic_cast<Http1WatchReply *>(m_reply.data());
        std::lock_guard lock(m_mutex);
        m_http2 = m_reply->attribute(QNetworkRequest::Http2WasUsedAttribute).toBool();
    }
    // A list of our own, its capacity kept across reads (the event sink, or a slot connected
    // directly to eventReceived(), runs on this thread; one that spins the event loop reenters
    // here, finds m_decoded empty and uses one of its own).
    QList<WatchEvent> events;
    events.swap(m_decoded);
    if (m_dedicated) {
        m_decoder.feed(m_dedicated->unreadBody(), events); // decoding copies what it keeps
        m_dedicated->consumeBody();
    } else {
        m_decoder.feed(m_reply->readAll(), events);
    }
    for (const WatchEvent &event : std::as_const(events))
        deliver(event);
    events.clear();
    events.swap(m_decoded);
}

void Watch::onFinished()
{
    bool stopped;
    {
        std::lock_guard lock(m_mutex);
        if (m_finished)
            return;
        stopped = m_stopRequested;
    }
    if (m_reply) {
        const int code = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        // An aborted reply is closed: nothing is left to read.
        const QByteArray rest = m_reply->isOpen() ? m_reply->readAll() : QByteArray();
        if (code == 200) {
            for (const WatchEvent &event : m_decoder.feed(rest))
                deliver(event);
            if (!stopped)
                for (const WatchEvent &event : m_decoder.finish())
                    deliver(event);
        } else if (code != 0) {
            WatchEvent event;
            event.status = detail::answerStatus(code, rest, m_reply->rawHeader("Location"));
            deliver(event);
        } else if (!stopped) {
            WatchEvent event;
            const QString lost = ConnectionHealth::lostReason(m_reply);
            QString message = lost.isEmpty() ? m_reply->errorString() : lost;
            const QStringList ssl = m_reply->property("qcm_ssl_errors").toStringList();
            if (!ssl.isEmpty())
                message += QStringLiteral(" (") + ssl.join(QStringLiteral("; ")) + QLatin1Char(')');
            event.status = Status::transportError(lost.isEmpty() ? transportReason(m_reply->error())
                                                                 : QStringLiteral("ConnectionLost"),
                message);
            deliver(event);
        }
        m_reply->deleteLater();
        m_reply = nullptr;
    }
    {
        std::lock_guard lock(m_mutex);
        m_finished = true;
    }
    m_changed.notify_all();
    emit finished();
}

std::optional<WatchEvent> Watch::next(Duration timeout)
{
    std::unique_lock lock(m_mutex);
    auto ready = [this] { return !m_events.empty() || m_finished; };
    if (timeout == Duration::max())
        m_changed.wait(lock, ready);
    else if (!m_changed.wait_for(lock, timeout, ready))
        return std::nullopt;
    if (m_events.empty())
        return std::nullopt;
    WatchEvent event = std::move(m_events.front());
    m_events.pop_front();
    return event;
}

void Watch::stop()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_finished || m_stopRequested)
            return;
        m_stopRequested = true;
    }
    QMetaObject::invokeMethod(this, [this] {
        if (m_reply)
            m_reply->abort(); // finished() follows
    });
}

bool Watch::isFinished() const
{
    std::lock_guard lock(m_mutex);
    return m_finished;
}

bool Watch::usedHttp2() const
{
    std::lock_guard lock(m_mutex);
    return m_http2;
}

} // namespace qcm::client
