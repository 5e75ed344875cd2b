// SPDX-License-Identifier: Apache-2.0
// HTTP/1.1 responses (sdk/src/client/http1response_p.h, the dedicated watch transport's
// parser): the same bytes, fed whole or cut into chunks anywhere, give the same state, status,
// fields, body and error (and whether the head was read); the body is never longer than the
// input, and there is none without a head; a complete response has its head; a failure
// always says why. The first byte chooses the chunk size, the second the
// head limit and whether the connection closes after the bytes; the rest is the response.
#include "fuzzsupport.h"

#include "../../sdk/src/client/http1response_p.h"

namespace {

using qcm::client::Http1ResponseParser;

struct Outcome
{
    Http1ResponseParser::State state;
    bool head;
    int status;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;
    QString error;
};

Outcome parse(const QByteArray &response, qsizetype chunk, qsizetype maxHead, bool close)
{
    Http1ResponseParser parser(maxHead, 16);
    QByteArray body;
    for (qsizetype at = 0; at < response.size(); at += chunk)
        parser.feed(QByteArrayView(response).sliced(at, qMin(chunk, response.size() - at)), body);
    if (close)
        parser.finishOnClose();
    FUZZ_CHECK(parser.state() != Http1ResponseParser::State::Complete || parser.headComplete(),
        QStringLiteral("complete without a head"));
    FUZZ_CHECK((parser.state() == Http1ResponseParser::State::Failed) != parser.error().isEmpty(),
        QStringLiteral("state %1, error \"%2\"").arg(int(parser.state())).arg(parser.error()));
    FUZZ_CHECK(parser.headComplete() || body.isEmpty(), QStringLiteral("a body without a head"));
    return {parser.state(), parser.headComplete(), parser.statusCode(), parser.headers(), body,
        parser.error()};
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const qsizetype chunk = 1 + data[0] % 64;
    const qsizetype maxHead = 32 + qsizetype(data[1] & 0x7f) * 32;
    const bool close = data[1] & 0x80;
    const QByteArray response = qcm::fuzz::bytes(data + 2, size - 2);
    const Outcome whole = parse(response, qMax<qsizetype>(1, response.size()), maxHead, close);
    const Outcome cut = parse(response, chunk, maxHead, close);
    FUZZ_CHECK(whole.state == cut.state && whole.head == cut.head && whole.status == cut.status,
        QStringLiteral("whole: state %1 status %2; in chunks of %3: state %4 status %5")
            .arg(int(whole.state))
            .arg(whole.status)
            .arg(chunk)
            .arg(int(cut.state))
            .arg(cut.status));
    FUZZ_CHECK(whole.error == cut.error, whole.error + QLatin1String(" / ") + cut.error);
    FUZZ_CHECK(whole.headers == cut.headers, QStringLiteral("the fields differ"));
    FUZZ_CHECK(whole.body == cut.body, QStringLiteral("the bodies differ"));
    FUZZ_CHECK(
        whole.body.size() <= response.size(), QStringLiteral("a body longer than its input"));
    return 0;
}
