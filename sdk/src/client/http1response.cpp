// SPDX-License-Identifier: Apache-2.0
// Http1ResponseParser: one HTTP/1.1 response, parsed as its bytes arrive (http1response_p.h).
#include "http1response_p.h"

#include <algorithm>
#include <limits>

namespace qcm::client {

namespace {

bool isTokenChar(char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
        return true;
    default:
        return false;
    }
}

bool isWhitespace(char c)
{
    return c == ' ' || c == '\t';
}

QByteArrayView trimmed(QByteArrayView v)
{
    while (!v.isEmpty() && isWhitespace(v.front()))
        v = v.sliced(1);
    while (!v.isEmpty() && isWhitespace(v.back()))
        v.chop(1);
    return v;
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// The printable form of a line for an error message: at most 80 bytes, controls escaped.
QString shown(QByteArrayView line)
{
    QString out;
    for (char c : line.first(qMin<qsizetype>(line.size(), 80))) {
        const auto u = uchar(c);
        if (u < 0x20 || u >= 0x7f)
            out += QStringLiteral("\\x%1").arg(u, 2, 16, QLatin1Char('0'));
        else
            out += QLatin1Char(c);
    }
    if (line.size() > 80)
        out += QStringLiteral("...");
    return out;
}

} // namespace

Http1ResponseParser::Http1ResponseParser(qsizetype maxHeadBytes, int maxFields)
    : m_maxHeadBytes(maxHeadBytes), m_maxFields(maxFields)
{ }

QByteArray Http1ResponseParser::header(QByteArrayView name) const
{
    QByteArray out;
    bool first = true;
    for (const auto &[key, value] : m_headers) {
        if (QByteArrayView(key).compare(name, Qt::CaseInsensitive) != 0)
            continue;
        if (!first)
            out += ", ";
        out += value;
        first = false;
    }
    return out;
}

bool Http1ResponseParser::hasHeader(QByteArrayView name) const
{
    return std::any_of(m_headers.begin(), m_headers.end(), [name](const auto &field) {
        return QByteArrayView(field.first).compare(name, Qt::CaseInsensitive) == 0;
    });
}

void Http1ResponseParser::complete()
{
    m_step = Step::Done;
    m_state = State::Complete;
}

void Http1ResponseParser::fail(QString reason)
{
    m_state = State::Failed;
    m_error = std::move(reason);
}

bool Http1ResponseParser::takeLine(
    QByteArrayView data, qsizetype &at, qsizetype limit, const char *what)
{
    const qsizetype end = data.indexOf('\n', at);
    const qsizetype taken = (end < 0 ? data.size() : end + 1) - at;
    if (m_sectionBytes + m_line.size() + taken > limit) {
        fail(QStringLiteral("the response's %1 exceeds %2 bytes, the limit")
                 .arg(QLatin1String(what))
                 .arg(limit));
        return false;
    }
    m_line.append(data.sliced(at, end < 0 ? taken : taken - 1));
    at += taken;
    if (end < 0)
        return false;
    m_sectionBytes += m_line.size() + 1;
    if (m_line.endsWith('\r'))
        m_line.chop(1);
    return true;
}

void Http1ResponseParser::statusLine()
{
    // HTTP-version SP 3DIGIT SP [reason-phrase]; some servers leave out the last SP.
    const QByteArrayView line(m_line);
    if (!line.startsWith("HTTP/1.") || line.size() < 12 || line.at(7) < '0' || line.at(7) > '9'
        || line.at(8) != ' ' || (line.size() > 12 && line.at(12) != ' ')) {
        fail(QStringLiteral("line %1: not an HTTP/1.x status line: \"%2\"")
                 .arg(m_lineNumber)
                 .arg(shown(line)));
        return;
    }
    int code = 0;
    for (qsizetype i = 9; i < 12; ++i) {
        const char c = line.at(i);
        if (c < '0' || c > '9') {
            fail(QStringLiteral("line %1: the status code is not 3 digits: \"%2\"")
                     .arg(m_lineNumber)
                     .arg(shown(line)));
            return;
        }
        code = code * 10 + (c - '0');
    }
    if (code < 100) {
        fail(QStringLiteral("line %1: status code %2 is under 100").arg(m_lineNumber).arg(code));
        return;
    }
    m_status = code;
    m_reason = line.size() > 13 ? line.sliced(13).toByteArray() : QByteArray();
    m_step = Step::Field;
}

void Http1ResponseParser::field()
{
    const QByteArrayView line(m_line);
    if (line.isEmpty()) {
        headEnd();
        return;
    }
    if (isWhitespace(line.front())) {
        fail(QStringLiteral("line %1: obsolete line folding (a field line that starts with "
                            "whitespace) is not accepted")
                 .arg(m_lineNumber));
        return;
    }
    const qsizetype colon = line.indexOf(':');
    if (colon <= 0) {
        fail(QStringLiteral("line %1: not a header field (no name before ':'): \"%2\"")
                 .arg(m_lineNumber)
                 .arg(shown(line)));
        return;
    }
    const QByteArrayView name = line.first(colon);
    for (char c : name) {
        if (!isTokenChar(c)) {
            fail(QStringLiteral("line %1: the field name \"%2\" holds a character a token may "
                                "not (RFC 9110 5.1)")
                     .arg(m_lineNumber)
                     .arg(shown(name)));
            return;
        }
    }
    const QByteArrayView value = trimmed(line.sliced(colon + 1));
    for (char c : value) {
        const auto u = uchar(c);
        if ((u < 0x20 && c != '\t') || u == 0x7f) {
            fail(QStringLiteral("line %1: the value of field %2 holds a control character")
                     .arg(m_lineNumber)
                     .arg(QString::fromLatin1(name)));
            return;
        }
    }
    if (m_headers.size() >= m_maxFields) {
        fail(QStringLiteral("the response has more than %1 header fields, the limit")
                 .arg(m_maxFields));
        return;
    }
    m_headers.append({name.toByteArray(), value.toByteArray()});
}

void Http1ResponseParser::headEnd()
{
    if (m_status < 200) {
        if (m_status == 101) {
            fail(QStringLiteral("the server switched protocols (101), which was not asked for"));
            return;
        }
        // An interim response: the final one follows.
        if (++m_interim > MaxInterimResponses) {
            fail(QStringLiteral("more than %1 interim (1xx) responses, the limit")
                     .arg(MaxInterimResponses));
            return;
        }
        m_headers.clear();
        m_reason.clear();
        m_status = 0;
        m_sectionBytes = 0;
        m_step = Step::StatusLine;
        return;
    }
    m_sectionBytes = 0;
    const QByteArray coding = header("Content-Encoding").trimmed();
    if (!coding.isEmpty() && coding.compare("identity", Qt::CaseInsensitive) != 0) {
        fail(QStringLiteral("the response has Content-Encoding \"%1\", which was not asked "
                            "for (no Accept-Encoding)")
                 .arg(shown(coding)));
        return;
    }
    const QByteArray transfer = header("Transfer-Encoding");
    qint64 length = -1;
    bool lengthSeen = false;
    for (const auto &[key, value] : std::as_const(m_headers)) {
        if (key.compare("Content-Length", Qt::CaseInsensitive) != 0)
            continue;
        bool ok = false;
        const qint64 n = value.toLongLong(&ok);
        const bool digits = !value.isEmpty()
            && std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (!ok || !digits || (lengthSeen && n != length)) {
            fail(QStringLiteral("the response's Content-Length \"%1\" is not one length")
                     .arg(shown(value)));
            return;
        }
        length = n;
        lengthSeen = true;
    }
    m_state = State::Body;
    if (m_status == 204 || m_status == 304) {
        complete();
        return;
    }
    if (hasHeader("Transfer-Encoding")) {
        if (lengthSeen) {
            fail(QStringLiteral("the response has both Transfer-Encoding and Content-Length "
                                "(RFC 9112 6.3: a sign of request smuggling)"));
            return;
        }
        if (QByteArrayView(transfer).trimmed().compare("chunked", Qt::CaseInsensitive) != 0) {
            fail(QStringLiteral("the response's Transfer-Encoding \"%1\" is not chunked, the "
                                "only coding read")
                     .arg(shown(transfer)));
            return;
        }
        m_step = Step::ChunkSize;
        return;
    }
    if (lengthSeen) {
        m_remaining = length;
        m_step = Step::LengthBody;
        if (length == 0) {
            complete();
        }
        return;
    }
    m_step = Step::CloseBody;
}

void Http1ResponseParser::chunkSize()
{
    // chunk-size [ BWS ";" chunk-ext ] (RFC 9112 7.1.1): the extensions are ignored.
    const QByteArrayView line(m_line);
    qsizetype i = 0;
    qint64 size = 0;
    for (; i < line.size(); ++i) {
        const int digit = hexValue(line.at(i));
        if (digit < 0)
            break;
        if (size > (std::numeric_limits<qint64>::max() >> 4)) {
            fail(QStringLiteral("a chunk size overflows 63 bits: \"%1\"").arg(shown(line)));
            return;
        }
        size = size * 16 + digit;
    }
    qsizetype rest = i;
    while (rest < line.size() && isWhitespace(line.at(rest)))
        ++rest;
    if (i == 0 || (rest < line.size() && line.at(rest) != ';')) {
        fail(QStringLiteral("not a chunk size line: \"%1\"").arg(shown(line)));
        return;
    }
    m_remaining = size;
    m_step = size == 0 ? Step::Trailer : Step::ChunkData;
    m_sectionBytes = 0;
}

void Http1ResponseParser::trailer()
{
    if (m_line.isEmpty()) {
        complete();
        return;
    }
    if (!m_line.contains(':') || isWhitespace(m_line.front()))
        fail(QStringLiteral("not a trailer field: \"%1\"").arg(shown(m_line)));
    // Trailer fields are not used: the watch needs none.
}

Http1ResponseParser::State Http1ResponseParser::feed(QByteArrayView data, QByteArray &body)
{
    qsizetype at = 0;
    while (at < data.size() && m_state != State::Failed && m_step != Step::Done) {
        switch (m_step) {
        case Step::StatusLine:
        case Step::Field:
            if (!takeLine(data, at, m_maxHeadBytes, "head"))
                break;
            ++m_lineNumber;
            if (m_step == Step::StatusLine)
                statusLine();
            else
                field();
            m_line.resize(0); // keeping the capacity for the next line
            // The final head was read and its framing accepted.
            m_headDone
                = m_state != State::Failed && m_step != Step::StatusLine && m_step != Step::Field;
            break;
        case Step::ChunkSize:
            if (!takeLine(data, at, MaxChunkLineBytes, "chunk size line"))
                break;
            chunkSize();
            m_line.resize(0); // keeping the capacity for the next line
            break;
        case Step::ChunkData:
        case Step::LengthBody: {
            const qsizetype n = qsizetype(qMin<qint64>(m_remaining, data.size() - at));
            body.append(data.sliced(at, n));
            at += n;
            m_remaining -= n;
            if (m_remaining == 0) {
                if (m_step == Step::LengthBody) {
                    complete();
                } else {
                    m_step = Step::ChunkDataEnd;
                    m_sectionBytes = 0;
                }
            }
            break;
        }
        case Step::ChunkDataEnd: {
            // CRLF (or a bare LF); m_line holds a CR already read.
            const char c = data.at(at++);
            if (c == '\r' && m_line.isEmpty()) {
                m_line.append(c);
            } else if (c == '\n') {
                m_line.resize(0); // keeping the capacity for the next line
                m_step = Step::ChunkSize;
            } else {
                fail(QStringLiteral("a chunk's data is not followed by CRLF"));
            }
            break;
        }
        case Step::Trailer:
            if (!takeLine(data, at, m_maxHeadBytes, "trailer section"))
                break;
            trailer();
            m_line.resize(0); // keeping the capacity for the next line
            break;
        case Step::CloseBody:
            body.append(data.sliced(at));
            at = data.size();
            break;
        case Step::Done:
            break;
        }
    }
    return m_state;
}

Http1ResponseParser::State Http1ResponseParser::finishOnClose()
{
    if (m_state == State::Failed || m_state == State::Complete)
        return m_state;
    if (m_step == Step::CloseBody) {
        complete();
        return m_state;
    }
    switch (m_step) {
    case Step::StatusLine:
        fail(m_lineNumber == 0 && m_line.isEmpty()
                ? QStringLiteral("the server closed the connection without answering")
                : QStringLiteral("the server closed the connection in the status line"));
        break;
    case Step::Field:
        fail(QStringLiteral("the server closed the connection in the response's head"));
        break;
    case Step::LengthBody:
        fail(QStringLiteral("the server closed the connection with %1 bytes of the body "
                            "(Content-Length) unsent")
                 .arg(m_remaining));
        break;
    default:
        fail(QStringLiteral("the server closed the connection before the chunked body's end"));
        break;
    }
    return m_state;
}

} // namespace qcm::client
