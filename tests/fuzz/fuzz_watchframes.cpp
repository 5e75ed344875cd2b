// SPDX-License-Identifier: Apache-2.0
// Watch streams (qcm/client/watchdecoder.h): the same bytes, fed whole or cut into chunks
// anywhere, give the same events; every malformed frame is an ERROR event with a Status,
// never a lost line or a crash; frames over the limit are reported and skipped. The first
// two bytes choose the chunk size and the frame limit; the rest is the stream.
#include "fuzzsupport.h"

#include <qcm/client/watchdecoder.h>

namespace {

using qcm::client::WatchDecoder;
using qcm::client::WatchEvent;

QList<WatchEvent> decode(const QByteArray &stream, qsizetype chunk, qsizetype maxFrame)
{
    WatchDecoder decoder(nullptr, maxFrame);
    QList<WatchEvent> events;
    for (qsizetype at = 0; at < stream.size(); at += chunk)
        events += decoder.feed(QByteArrayView(stream).sliced(at, qMin(chunk, stream.size() - at)));
    events += decoder.finish();
    return events;
}

QString describe(const WatchEvent &e)
{
    if (e.type == WatchEvent::Type::Error)
        return QStringLiteral("ERROR %1 %2").arg(e.status.code).arg(e.status.message);
    return QStringLiteral("%1 %2 %3")
        .arg(QLatin1String(WatchEvent::typeName(e.type)), e.object.key(),
            e.object.resourceVersion());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const qsizetype chunk = 1 + data[0] % 64;
    const qsizetype maxFrame = 16 + qsizetype(data[1]) * 64;
    const QByteArray stream = qcm::fuzz::bytes(data + 2, size - 2);
    const QList<WatchEvent> whole = decode(stream, qMax<qsizetype>(1, stream.size()), maxFrame);
    const QList<WatchEvent> chunked = decode(stream, chunk, maxFrame);
    FUZZ_CHECK(whole.size() == chunked.size(),
        QStringLiteral("%1 events whole, %2 in chunks of %3")
            .arg(whole.size())
            .arg(chunked.size())
            .arg(chunk));
    for (qsizetype i = 0; i < whole.size(); ++i)
        FUZZ_CHECK(describe(whole.at(i)) == describe(chunked.at(i)),
            describe(whole.at(i)) + QLatin1String(" / ") + describe(chunked.at(i)));
    // No more events than lines (one per line, and one for an unterminated tail).
    FUZZ_CHECK(whole.size() <= stream.count('\n') + 1, QStringLiteral("more events than lines"));
    return 0;
}
