// SPDX-License-Identifier: Apache-2.0
// WatchDecoder: turns the bytes of a watch response into WatchEvents as they arrive.
//
// The API server writes one JSON object per event, each ending in a newline. Bytes come in
// chunks that split events anywhere; feed() keeps the partial tail until the rest arrives.
// A malformed frame (invalid JSON, an unknown or missing type, no object) becomes an Error
// event with an InternalError Status, as client-go's StreamWatcher reports it, and decoding
// goes on with the next line. A frame longer than the limit is reported and skipped.
//
// Thread safety: none; one decoder per stream.
#pragma once

#include <qcm/client/codec.h>
#include <qcm/client/watchevent.h>

#include <QtCore/QByteArrayView>
#include <QtCore/QList>

namespace qcm::client {

class QCM_SDK_EXPORT WatchDecoder
{
public:
    static constexpr qsizetype DefaultMaxFrame = 64 * 1024 * 1024;

    explicit WatchDecoder(const Codec *codec = nullptr, qsizetype maxFrame = DefaultMaxFrame);

    // Decodes the complete events in `chunk` (with what was left over from earlier chunks).
    QList<WatchEvent> feed(QByteArrayView chunk);
    // The same, appended to `events` (a caller that keeps one list keeps its capacity).
    void feed(QByteArrayView chunk, QList<WatchEvent> &events);
    // The stream has ended: a partial frame left over is reported as an Error event.
    QList<WatchEvent> finish();

    // Decodes one frame (without its newline).
    WatchEvent decodeFrame(QByteArrayView frame) const;

private:
    static constexpr qsizetype KeptBufferCapacity = 64 * 1024;
    void clearBuffer();

    const Codec *m_codec;
    qsizetype m_maxFrame;
    QByteArray m_buffer;
    bool m_skipping = false; // inside an over-long frame, until its newline
};

} // namespace qcm::client
