// SPDX-License-Identifier: Apache-2.0
// Watch: one streaming watch request (client-go's watch.Interface).
//
// Made by RestClient::watch(). Events arrive as the server writes them, decoded
// incrementally. Two ways to consume them:
//   * Qt: connect to eventReceived() and finished(); the Watch lives on the client's I/O
//     thread, so connections to a receiver elsewhere are queued, in order;
//   * blocking: next() from any thread but the I/O thread.
// A watch that the server refuses (410 Gone for a compacted resourceVersion, 403, ...) or that
// fails in transport delivers one Error event with the Status, then finishes. stop() ends it
// early; destroying the last shared_ptr stops it too.
//
// Thread safety: next(), stop(), setEventSink() and the getters are safe from any thread.
#pragma once

#include <qcm/client/watchdecoder.h>
#include <qcm/client/watchstream.h>
#include <qcm/clock.h>

#include <QtCore/QObject>
#include <QtCore/QPointer>

#include <condition_variable>
#include <deque>
#include <mutex>

QT_BEGIN_NAMESPACE
class QNetworkReply;
QT_END_NAMESPACE

namespace qcm::client {

class Http1WatchReply;

class QCM_SDK_EXPORT Watch : public QObject, public WatchStream
{
    Q_OBJECT

public:
    ~Watch() override;

    // The next event; nothing once the watch has finished and every event was taken, or when
    // `timeout` passes first.
    std::optional<WatchEvent> next(Duration timeout = Duration::max()) override;
    void stop() override;
    bool setEventSink(EventSink sink) override;
    bool isFinished() const;
    bool usedHttp2() const;

signals:
    void eventReceived(const qcm::client::WatchEvent &event);
    void finished();

private:
    friend class RestClient;
    friend class RestClientWorker;
    explicit Watch(const Codec *codec, qint64 maxEventBytes = WatchDecoder::DefaultMaxFrame);
    void attach(QNetworkReply *reply); // on the I/O thread
    void deliver(const WatchEvent &event);
    void onReadyRead();
    void onFinished();

    WatchDecoder m_decoder; // I/O thread only
    QPointer<QNetworkReply> m_reply; // I/O thread only
    // I/O thread only: m_reply answered 200 (its status and kind are looked up once), and
    // m_reply as the SDK's own HTTP/1.1 watch reply (null for the access manager's).
    bool m_streaming = false;
    Http1WatchReply *m_dedicated = nullptr;
    QList<WatchEvent> m_decoded; // I/O thread only: one read's events, the capacity kept
    // Held while an event is delivered, and while the sink is set or detached; taken before
    // m_mutex when both are.
    std::mutex m_sinkMutex;
    EventSink m_sink; // guarded by m_sinkMutex
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<WatchEvent> m_events; // guarded by m_mutex
    bool m_finished = false; // guarded by m_mutex
    bool m_stopRequested = false; // guarded by m_mutex
    bool m_http2 = false; // guarded by m_mutex
};

} // namespace qcm::client

Q_DECLARE_METATYPE(qcm::client::WatchEvent)
