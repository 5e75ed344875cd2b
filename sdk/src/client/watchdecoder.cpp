// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/watchdecoder.h>
#include <qcm/client/watchstream.h>

namespace qcm::client {

WatchStream::~WatchStream() = default;

bool WatchStream::setEventSink(EventSink)
{
    return false;
}

namespace {

WatchEvent malformed(const QString &why)
{
    WatchEvent event;
    event.type = WatchEvent::Type::Error;
    event.status.code = 500;
    event.status.reason = QStringLiteral("InternalError");
    event.status.message = QStringLiteral("malformed watch frame: ") + why;
    return event;
}

} // namespace

const char *WatchEvent::typeName(Type type)
{
    switch (type) {
    case Type::Added:
        return "ADDED";
    case Type::Modified:
        return "MODIFIED";
    case Type::Deleted:
        return "DELETED";
    case Type::Bookmark:
        return "BOOKMARK";
    case Type::Error:
        return "ERROR";
    }
    return "ERROR";
}

WatchDecoder::WatchDecoder(const Codec *codec, qsizetype maxFrame)
    : m_codec(codec ? codec : Codec::defaultCodec()), m_maxFrame(maxFrame)
{ }

WatchEvent WatchDecoder::decodeFrame(QByteArrayView frame) const
{
    Result<WatchEvent> event = m_codec->decodeWatchEvent(frame);
    return event ? std::move(event).value() : malformed(event.error().reason);
}

QList<WatchEvent> WatchDecoder::feed(QByteArrayView chunk)
{
    QList<WatchEvent> events;
    feed(chunk, events);
    return events;
}

void WatchDecoder::feed(QByteArrayView chunk, QList<WatchEvent> &events)
{
    while (!chunk.isEmpty()) {
        const qsizetype newline = chunk.indexOf('\n');
        if (newline < 0) {
            if (!m_skipping) {
                m_buffer.append(chunk);
                if (m_buffer.size() > m_maxFrame) {
                    events << malformed(
                        QStringLiteral("a frame exceeds %1 bytes; skipped").arg(m_maxFrame));
                    m_buffer.clear();
                    m_skipping = true;
                }
            }
            break;
        }
        if (m_skipping) {
            m_skipping = false;
        } else if (m_buffer.size() + newline > m_maxFrame) {
            // Over the limit however it arrived: whole in this chunk or cut across several.
            events << malformed(
                QStringLiteral("a frame exceeds %1 bytes; skipped").arg(m_maxFrame));
            m_buffer.clear();
        } else {
            QByteArrayView frame = chunk.first(newline);
            if (!m_buffer.isEmpty()) {
                m_buffer.append(frame);
                frame = m_buffer;
            }
            if (!frame.trimmed().isEmpty())
                events << decodeFrame(frame);
            clearBuffer();
        }
        chunk = chunk.sliced(newline + 1);
    }
}

// An event cut across reads is common: the buffer keeps a small capacity for the next one.
void WatchDecoder::clearBuffer()
{
    if (m_buffer.capacity() > KeptBufferCapacity)
        m_buffer = QByteArray();
    else
        m_buffer.resize(0);
}

QList<WatchEvent> WatchDecoder::finish()
{
    QList<WatchEvent> events;
    if (!QByteArrayView(m_buffer).trimmed().isEmpty()) {
        // The last frame may lack its newline; decode it if it is complete JSON.
        WatchEvent last = decodeFrame(m_buffer);
        if (last.type == WatchEvent::Type::Error && last.status.code == 500)
            last.status.message = QStringLiteral(
                "malformed watch frame: the stream ended inside a frame (%1 bytes)")
                                      .arg(m_buffer.size());
        events << last;
    }
    m_buffer.clear();
    m_skipping = false;
    return events;
}

} // namespace qcm::client
