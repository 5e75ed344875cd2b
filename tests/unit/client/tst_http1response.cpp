// SPDX-License-Identifier: Apache-2.0
// Http1ResponseParser (sdk/src/client/http1response_p.h): the framings, bytes cut anywhere,
// interim responses, and each malformed response refused with its reason.
#include "../../../sdk/src/client/http1response_p.h"

#include <QtTest/QtTest>

using qcm::client::Http1ResponseParser;
using State = Http1ResponseParser::State;

namespace {

struct Parsed
{
    State state;
    int status = 0;
    QByteArray body;
    QString error;
    QByteArray contentType;
};

// Feeds `response` in pieces of `chunk` bytes, then the close when `close` is set.
Parsed parse(const QByteArray &response, qsizetype chunk, bool close = false,
    qsizetype maxHead = Http1ResponseParser::DefaultMaxHeadBytes, int maxFields = 128)
{
    Http1ResponseParser parser(maxHead, maxFields);
    QByteArray body;
    for (qsizetype at = 0; at < response.size(); at += chunk)
        parser.feed(QByteArrayView(response).sliced(at, qMin(chunk, response.size() - at)), body);
    if (close)
        parser.finishOnClose();
    return {
        parser.state(), parser.statusCode(), body, parser.error(), parser.header("content-type")};
}

const QByteArray Chunked = "HTTP/1.1 200 OK\r\n"
                           "Content-Type: application/json\r\n"
                           "Transfer-Encoding: chunked\r\n"
                           "\r\n"
                           "5\r\nhello\r\n"
                           "7;ext=1\r\n, world\r\n"
                           "1A\r\nabcdefghijklmnopqrstuvwxyz\r\n"
                           "0\r\n"
                           "X-Trailer: t\r\n"
                           "\r\n";

} // namespace

class tst_Http1Response : public QObject
{
    Q_OBJECT

private slots:
    void chunkedCutAnywhere();
    void contentLength();
    void bodyUntilClose();
    void interimResponsesSkipped();
    void noBodyStatuses();
    void bareLineFeeds();
    void repeatedContentLength();
    void refused_data();
    void refused();
    void headLimits();
    void closedEarly_data();
    void closedEarly();
    void bytesAfterTheEndIgnored();
    void theHeadStaysReadWhenTheBodyFails();
    void repeatedCodingFieldsAreAllRead();
    void interimResponsesAreBounded();
};

void tst_Http1Response::chunkedCutAnywhere()
{
    for (qsizetype chunk = 1; chunk <= Chunked.size(); ++chunk) {
        const Parsed p = parse(Chunked, chunk);
        QCOMPARE(p.state, State::Complete);
        QCOMPARE(p.status, 200);
        QCOMPARE(p.contentType, QByteArray("application/json"));
        QCOMPARE(p.body, QByteArray("hello, worldabcdefghijklmnopqrstuvwxyz"));
    }
    // Before its last chunk the body so far is there, and the state says more is coming.
    const Parsed partial = parse(Chunked.first(Chunked.indexOf("1A")), 3);
    QCOMPARE(partial.state, State::Body);
    QCOMPARE(partial.body, QByteArray("hello, world"));
}

void tst_Http1Response::contentLength()
{
    const QByteArray r = "HTTP/1.1 410 Gone\r\nContent-Length: 11\r\n\r\n{\"code\":410}";
    const Parsed p = parse(r, 4);
    QCOMPARE(p.state, State::Complete);
    QCOMPARE(p.status, 410);
    QCOMPARE(p.body, QByteArray("{\"code\":410")); // 11 bytes: the rest is not the body
}

void tst_Http1Response::bodyUntilClose()
{
    const QByteArray r = "HTTP/1.0 200 OK\r\n\r\nline 1\nline 2\n";
    QCOMPARE(parse(r, 5).state, State::Body);
    const Parsed p = parse(r, 5, true);
    QCOMPARE(p.state, State::Complete);
    QCOMPARE(p.body, QByteArray("line 1\nline 2\n"));
}

void tst_Http1Response::interimResponsesSkipped()
{
    const QByteArray r = "HTTP/1.1 100 Continue\r\nX-A: 1\r\n\r\n"
                         "HTTP/1.1 103 Early Hints\r\n\r\n"
                         "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    const Parsed p = parse(r, 7);
    QCOMPARE(p.state, State::Complete);
    QCOMPARE(p.status, 200);
    QCOMPARE(p.body, QByteArray("ok"));
}

void tst_Http1Response::noBodyStatuses()
{
    for (const char *code : {"204 No Content", "304 Not Modified"}) {
        const Parsed p = parse(QByteArray("HTTP/1.1 ") + code + "\r\nContent-Length: 9\r\n\r\n", 1);
        QCOMPARE(p.state, State::Complete);
        QVERIFY(p.body.isEmpty());
    }
}

void tst_Http1Response::bareLineFeeds()
{
    const QByteArray r = "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3\nabc\n0\n\n";
    const Parsed p = parse(r, 2);
    QCOMPARE(p.state, State::Complete);
    QCOMPARE(p.body, QByteArray("abc"));
}

void tst_Http1Response::repeatedContentLength()
{
    const Parsed same
        = parse("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", 100);
    QCOMPARE(same.state, State::Complete);
    const Parsed differ
        = parse("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", 100);
    QCOMPARE(differ.state, State::Failed);
    QVERIFY2(differ.error.contains(QLatin1String("not one length")), qPrintable(differ.error));
}

void tst_Http1Response::refused_data()
{
    QTest::addColumn<QByteArray>("response");
    QTest::addColumn<QString>("reason");
    const QByteArray ok = "HTTP/1.1 200 OK\r\n";
    QTest::newRow("not http") << QByteArray("SSH-2.0-OpenSSH\r\n\r\n")
                              << "line 1: not an HTTP/1.x status line: \"SSH-2.0-OpenSSH\"";
    QTest::newRow("http/2 preface")
        << QByteArray("HTTP/2 200\r\n\r\n") << "line 1: not an HTTP/1.x status line";
    QTest::newRow("status letters")
        << QByteArray("HTTP/1.1 2x0 OK\r\n\r\n") << "line 1: the status code is not 3 digits";
    QTest::newRow("status under 100")
        << QByteArray("HTTP/1.1 099 x\r\n\r\n") << "line 1: status code 99 is under 100";
    QTest::newRow("folded") << ok + "X-A: 1\r\n  2\r\n\r\n"
                            << "line 3: obsolete line folding";
    QTest::newRow("space in name") << ok + "X A: 1\r\n\r\n"
                                   << "line 2: the field name \"X A\" holds a character";
    QTest::newRow("space before colon") << ok + "X-A : 1\r\n\r\n"
                                        << "line 2: the field name";
    QTest::newRow("no colon") << ok + "garbage\r\n\r\n"
                              << "line 2: not a header field";
    QTest::newRow("control in value") << ok + "X-A: a\x01z\r\n\r\n"
                                      << "line 2: the value of field X-A holds a control";
    QTest::newRow("smuggling") << ok + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n"
                               << "both Transfer-Encoding and Content-Length";
    QTest::newRow("gzip transfer") << ok + "Transfer-Encoding: gzip, chunked\r\n\r\n"
                                   << "Transfer-Encoding \"gzip, chunked\" is not chunked";
    QTest::newRow("gzip content") << ok + "Content-Encoding: gzip\r\nContent-Length: 1\r\n\r\nx"
                                  << "Content-Encoding \"gzip\", which was not asked for";
    QTest::newRow("length sign") << ok + "Content-Length: -1\r\n\r\n"
                                 << "Content-Length \"-1\" is not one length";
    QTest::newRow("chunk size") << ok + "Transfer-Encoding: chunked\r\n\r\nzz\r\n"
                                << "not a chunk size line: \"zz\"";
    QTest::newRow("chunk size junk") << ok + "Transfer-Encoding: chunked\r\n\r\n5 x\r\n"
                                     << "not a chunk size line: \"5 x\"";
    QTest::newRow("chunk overflow")
        << ok + "Transfer-Encoding: chunked\r\n\r\n10000000000000000\r\n"
        << "a chunk size overflows 63 bits";
    QTest::newRow("chunk without crlf") << ok + "Transfer-Encoding: chunked\r\n\r\n1\r\nab\r\n"
                                        << "a chunk's data is not followed by CRLF";
    QTest::newRow("chunk line limit")
        << ok + "Transfer-Encoding: chunked\r\n\r\n1;" + QByteArray(5000, 'e') + "\r\n"
        << "the response's chunk size line exceeds 4096 bytes, the limit";
    QTest::newRow("bad trailer") << ok + "Transfer-Encoding: chunked\r\n\r\n0\r\nnope\r\n\r\n"
                                 << "not a trailer field: \"nope\"";
    QTest::newRow("switching") << QByteArray("HTTP/1.1 101 Switching Protocols\r\n\r\n")
                               << "the server switched protocols (101)";
}

void tst_Http1Response::refused()
{
    QFETCH(QByteArray, response);
    QFETCH(QString, reason);
    for (qsizetype chunk : {qsizetype(1), qsizetype(3), response.size()}) {
        const Parsed p = parse(response, chunk);
        QCOMPARE(p.state, State::Failed);
        QVERIFY2(p.error.contains(reason), qPrintable(p.error));
    }
}

void tst_Http1Response::headLimits()
{
    const QByteArray big = "HTTP/1.1 200 OK\r\nX-Big: " + QByteArray(200, 'b') + "\r\n\r\n";
    const Parsed over = parse(big, 16, false, 128);
    QCOMPARE(over.state, State::Failed);
    QCOMPARE(over.error, QStringLiteral("the response's head exceeds 128 bytes, the limit"));
    QCOMPARE(parse(big + "x", 16, true, big.size()).state, State::Complete);

    QByteArray many = "HTTP/1.1 200 OK\r\n";
    for (int i = 0; i < 5; ++i)
        many += "X-" + QByteArray::number(i) + ": v\r\n";
    const Parsed fields = parse(many + "\r\n", 1, false, 4096, 4);
    QCOMPARE(fields.state, State::Failed);
    QCOMPARE(fields.error, QStringLiteral("the response has more than 4 header fields, the limit"));
    QCOMPARE(parse(many + "\r\n", 1, true, 4096, 5).state, State::Complete);
}

void tst_Http1Response::closedEarly_data()
{
    QTest::addColumn<QByteArray>("response");
    QTest::addColumn<QString>("reason");
    QTest::newRow("nothing") << QByteArray() << "closed the connection without answering";
    QTest::newRow("status line") << QByteArray("HTTP/1.1 2")
                                 << "closed the connection in the status line";
    QTest::newRow("head") << QByteArray("HTTP/1.1 200 OK\r\nX-A: 1\r\n")
                          << "closed the connection in the response's head";
    QTest::newRow("length") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
                            << "with 7 bytes of the body (Content-Length) unsent";
    QTest::newRow("chunk") << Chunked.first(Chunked.indexOf("world"))
                           << "before the chunked body's end";
    QTest::newRow("trailer") << Chunked.first(Chunked.size() - 2)
                             << "before the chunked body's end";
}

void tst_Http1Response::closedEarly()
{
    QFETCH(QByteArray, response);
    QFETCH(QString, reason);
    const Parsed p = parse(response, 4, true);
    QCOMPARE(p.state, State::Failed);
    QVERIFY2(p.error.contains(reason), qPrintable(p.error));
}

void tst_Http1Response::bytesAfterTheEndIgnored()
{
    const Parsed p = parse(Chunked + "HTTP/1.1 500 Oops\r\n\r\n", 9, true);
    QCOMPARE(p.state, State::Complete);
    QCOMPARE(p.status, 200);
    QCOMPARE(p.body, QByteArray("hello, worldabcdefghijklmnopqrstuvwxyz"));
}

void tst_Http1Response::theHeadStaysReadWhenTheBodyFails()
{
    // However the bytes are cut: a 200 head, a chunk, then a bad chunk size.
    const QByteArray r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\nzz\r\n";
    for (qsizetype chunk : {qsizetype(1), qsizetype(7), r.size()}) {
        Http1ResponseParser parser;
        QByteArray body;
        for (qsizetype at = 0; at < r.size(); at += chunk)
            parser.feed(QByteArrayView(r).sliced(at, qMin(chunk, r.size() - at)), body);
        QCOMPARE(parser.state(), State::Failed);
        QVERIFY(parser.headComplete());
        QCOMPARE(parser.statusCode(), 200);
        QCOMPARE(body, QByteArray("ok"));
    }
}

void tst_Http1Response::repeatedCodingFieldsAreAllRead()
{
    const QByteArray ok = "HTTP/1.1 200 OK\r\n";
    const Parsed te
        = parse(ok + "Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n", 5);
    QCOMPARE(te.state, State::Failed);
    QVERIFY2(
        te.error.contains(QLatin1String("\"chunked, gzip\" is not chunked")), qPrintable(te.error));
    const Parsed ce = parse(
        ok + "Content-Encoding: identity\r\nContent-Encoding: gzip\r\nContent-Length: 0\r\n\r\n",
        5);
    QCOMPARE(ce.state, State::Failed);
    QVERIFY2(ce.error.contains(QLatin1String("Content-Encoding \"identity, gzip\"")),
        qPrintable(ce.error));
    const Parsed empty = parse(ok + "Transfer-Encoding:\r\n\r\n", 5);
    QCOMPARE(empty.state, State::Failed);
    QVERIFY2(empty.error.contains(QLatin1String("Transfer-Encoding \"\" is not chunked")),
        qPrintable(empty.error));
}

void tst_Http1Response::interimResponsesAreBounded()
{
    QByteArray r;
    for (int i = 0; i < Http1ResponseParser::MaxInterimResponses; ++i)
        r += "HTTP/1.1 100 Continue\r\n\r\n";
    QCOMPARE(parse(r + "HTTP/1.1 204 No Content\r\n\r\n", 11).state, State::Complete);
    const Parsed over = parse(r + "HTTP/1.1 100 Continue\r\n\r\n", 11);
    QCOMPARE(over.state, State::Failed);
    QCOMPARE(over.error, QStringLiteral("more than 16 interim (1xx) responses, the limit"));
}

QTEST_GUILESS_MAIN(tst_Http1Response)
#include "tst_http1response.moc"
