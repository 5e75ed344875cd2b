// SPDX-License-Identifier: Apache-2.0
// Http1ResponseParser: an incremental parser of one HTTP/1.1 response (RFC 9112), for the
// watch transport that reads its own connection (http1watchreply_p.h). Private to the SDK.
//
// It takes the bytes as they arrive, cut anywhere, and gives the status, the header fields and
// the body, decoded from its framing: chunked transfer coding, Content-Length, or the
// connection's close. Interim 1xx responses are skipped. Everything a client that sent one GET
// without Accept-Encoding cannot read is an error with its reason: a malformed status line or
// field, obsolete line folding, a head over the limit, a transfer coding other than chunked, a
// content coding, Content-Length beside Transfer-Encoding (a smuggling sign, RFC 9112 6.3), a
// bad chunk size. Bytes after the end of the response are ignored (the request asks the server
// to close the connection).
//
// Thread safety: none; one parser per connection, used on one thread.
#pragma once

#include <QtCore/QByteArray>
#include <QtCore/QByteArrayView>
#include <QtCore/QList>
#include <QtCore/QPair>
#include <QtCore/QString>

namespace qcm::client {

class Http1ResponseParser
{
public:
    enum class State { Head, Body, Complete, Failed };

    static constexpr qsizetype DefaultMaxHeadBytes = 64 * 1024; // the status line and fields
    static constexpr int DefaultMaxFields = 128;
    static constexpr qsizetype MaxChunkLineBytes = 4096; // a chunk size and its extensions
    static constexpr int MaxInterimResponses = 16; // 1xx before the final response

    explicit Http1ResponseParser(
        qsizetype maxHeadBytes = DefaultMaxHeadBytes, int maxFields = DefaultMaxFields);

    // Parses `data`, appending the body's bytes to `body`; returns the state after it.
    State feed(QByteArrayView data, QByteArray &body);
    // The connection closed: a body framed by the close is complete; anything else unfinished
    // fails.
    State finishOnClose();

    State state() const { return m_state; }
    // The final response's head was read and its framing accepted (it stays so when the body
    // fails later).
    bool headComplete() const { return m_headDone; }
    int statusCode() const { return m_status; }
    const QByteArray &reasonPhrase() const { return m_reason; }
    const QList<QPair<QByteArray, QByteArray>> &headers() const { return m_headers; }
    // Every field named `name` (case-insensitive), joined with ", " (RFC 9110 5.3); empty when
    // there is none.
    QByteArray header(QByteArrayView name) const;
    bool hasHeader(QByteArrayView name) const;
    // Why it failed ("line 3: ..."); empty unless the state is Failed.
    const QString &error() const { return m_error; }

private:
    enum class Step {
        StatusLine,
        Field,
        ChunkSize,
        ChunkData,
        ChunkDataEnd,
        Trailer,
        LengthBody,
        CloseBody,
        Done,
    };

    // Takes one line (without its CRLF or LF) from `data` at `at` into m_line; false while the
    // line is incomplete. `limit` bounds the line with what came before it in the same section.
    bool takeLine(QByteArrayView data, qsizetype &at, qsizetype limit, const char *what);
    void statusLine();
    void field();
    void headEnd();
    void chunkSize();
    void trailer();
    void complete(); // the response's end
    void fail(QString reason);

    qsizetype m_maxHeadBytes;
    int m_maxFields;
    State m_state = State::Head;
    Step m_step = Step::StatusLine;
    QByteArray m_line; // the line being read
    qsizetype m_sectionBytes = 0; // of the head or trailer so far, lines and line ends
    int m_lineNumber = 0; // of the head (the interim responses' included), for the messages
    int m_interim = 0; // 1xx responses skipped
    bool m_headDone = false;
    qint64 m_remaining = 0; // of the chunk or the Content-Length body
    int m_status = 0;
    QByteArray m_reason;
    QList<QPair<QByteArray, QByteArray>> m_headers;
    QString m_error;
};

} // namespace qcm::client
