// SPDX-License-Identifier: Apache-2.0
// WatchDecoder: events split anywhere across chunks, and malformed frames.
#include <qcm/client/watchdecoder.h>

#include <QtTest/QtTest>

using namespace qcm::client;

namespace {

const QByteArray Stream
    = R"({"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"n","resourceVersion":"10"}}})"
      "\n"
      "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
      "\"metadata\":{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"11\"},"
      "\"data\":{\"k\":\"caf\\u00e9 \\n\"}}}"
      "\n"
      R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"12"}}})"
      "\n"
      R"({"type":"DELETED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"n","resourceVersion":"13"}}})"
      "\n"
      R"json({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 5 (13)","reason":"Expired","code":410}})json"
      "\n";

QString summary(const QList<WatchEvent> &events)
{
    QStringList out;
    for (const WatchEvent &e : events) {
        out << QString::fromLatin1(WatchEvent::typeName(e.type)) + QLatin1Char(':')
                + (e.type == WatchEvent::Type::Error ? e.status.reason
                                                     : e.object.resourceVersion());
    }
    return out.join(QLatin1Char(' '));
}

} // namespace

class tst_WatchDecoder : public QObject
{
    Q_OBJECT

private slots:
    void wholeStream();
    void everySplitPoint();
    void byteByByte();
    void malformedFrames_data();
    void malformedFrames();
    void decodingGoesOnAfterAMalformedFrame();
    void truncatedStream();
    void lastFrameWithoutNewline();
    void overLongFrameIsSkipped();
    void overLongFrameInOneChunkIsSkipped();
    void blankLinesAreIgnored();
};

static const QString Expected
    = QStringLiteral("ADDED:10 MODIFIED:11 BOOKMARK:12 DELETED:13 ERROR:Expired");

// With the default codec (LazyJsonCodec) and with QtJsonCodec.
void tst_WatchDecoder::wholeStream()
{
    const QtJsonCodec tree;
    for (const Codec *codec : {Codec::defaultCodec(), static_cast<const Codec *>(&tree)}) {
        WatchDecoder decoder(codec);
        const QList<WatchEvent> events = decoder.feed(Stream);
        QCOMPARE(summary(events), Expected);
        QCOMPARE(events[1]
                     .object.json()[QStringLiteral("data")]
                     .toObject()[QStringLiteral("k")]
                     .toString(),
            QStringLiteral("café \n"));
        QCOMPARE(events[4].status.code, 410);
        QVERIFY(events[4].status.isResourceExpired());
        QVERIFY(decoder.finish().isEmpty());
    }
}

void tst_WatchDecoder::everySplitPoint()
{
    for (qsizetype split = 0; split <= Stream.size(); ++split) {
        WatchDecoder decoder;
        QList<WatchEvent> events = decoder.feed(QByteArrayView(Stream).first(split));
        events += decoder.feed(QByteArrayView(Stream).sliced(split));
        QCOMPARE(summary(events), Expected);
    }
}

void tst_WatchDecoder::byteByByte()
{
    WatchDecoder decoder;
    QList<WatchEvent> events;
    for (char c : Stream)
        events += decoder.feed(QByteArrayView(&c, 1));
    QCOMPARE(summary(events), Expected);
}

void tst_WatchDecoder::malformedFrames_data()
{
    QTest::addColumn<QByteArray>("frame");
    QTest::addColumn<QString>("reason");
    QTest::newRow("not JSON") << QByteArray("hello") << QStringLiteral("invalid JSON");
    QTest::newRow("truncated JSON")
        << QByteArray(R"({"type":"ADDED","object":{)") << QStringLiteral("invalid JSON");
    QTest::newRow("array") << QByteArray("[1,2]") << QStringLiteral("expected a JSON object");
    QTest::newRow("no type") << QByteArray(R"({"object":{}})")
                             << QStringLiteral("unknown event type \"\"");
    QTest::newRow("unknown type") << QByteArray(R"({"type":"RENAMED","object":{}})")
                                  << QStringLiteral("unknown event type \"RENAMED\"");
    QTest::newRow("no object") << QByteArray(R"({"type":"ADDED"})")
                               << QStringLiteral("no \"object\" in a ADDED event");
    QTest::newRow("object not an object")
        << QByteArray(R"({"type":"ADDED","object":"x"})") << QStringLiteral("no \"object\"");
}

void tst_WatchDecoder::malformedFrames()
{
    QFETCH(QByteArray, frame);
    QFETCH(QString, reason);
    const QtJsonCodec tree;
    for (const Codec *codec : {Codec::defaultCodec(), static_cast<const Codec *>(&tree)}) {
        WatchDecoder decoder(codec);
        const QList<WatchEvent> events = decoder.feed(frame + '\n');
        QCOMPARE(events.size(), 1);
        QCOMPARE(events[0].type, WatchEvent::Type::Error);
        QCOMPARE(events[0].status.reason, QStringLiteral("InternalError"));
        QCOMPARE(events[0].status.code, 500);
        QVERIFY2(events[0].status.message.startsWith(QStringLiteral("malformed watch frame: ")),
            qPrintable(events[0].status.message));
        QVERIFY2(events[0].status.message.contains(reason), qPrintable(events[0].status.message));
    }
}

void tst_WatchDecoder::decodingGoesOnAfterAMalformedFrame()
{
    WatchDecoder decoder;
    const QList<WatchEvent> events = decoder.feed("garbage\n" + Stream);
    QCOMPARE(summary(events), QStringLiteral("ERROR:InternalError ") + Expected);
}

void tst_WatchDecoder::truncatedStream()
{
    WatchDecoder decoder;
    const QByteArray partial = Stream.left(Stream.indexOf('\n') + 1 + 20); // 20 bytes of frame 2
    QCOMPARE(decoder.feed(partial).size(), 1);
    const QList<WatchEvent> rest = decoder.finish();
    QCOMPARE(rest.size(), 1);
    QCOMPARE(rest[0].type, WatchEvent::Type::Error);
    QVERIFY(rest[0].status.message.contains(
        QStringLiteral("the stream ended inside a frame (20 bytes)")));
}

void tst_WatchDecoder::lastFrameWithoutNewline()
{
    WatchDecoder decoder;
    const QByteArray noNewline = Stream.chopped(1);
    QCOMPARE(decoder.feed(noNewline).size(), 4);
    QCOMPARE(summary(decoder.finish()), QStringLiteral("ERROR:Expired"));
}

void tst_WatchDecoder::overLongFrameIsSkipped()
{
    // 200 bytes: over every frame of Stream (up to 160), under the 240 of the long one.
    WatchDecoder decoder(nullptr, 200);
    QList<WatchEvent> events = decoder.feed(QByteArray(80, 'x'));
    events += decoder.feed(QByteArray(80, 'x'));
    events += decoder.feed(QByteArray(80, 'x') + '\n' + Stream);
    QCOMPARE(summary(events), QStringLiteral("ERROR:InternalError ") + Expected);
    QVERIFY(events[0].status.message.contains(QStringLiteral("exceeds 200 bytes")));
}

// The limit holds however the bytes arrive: a frame over it that comes whole in one chunk is
// skipped as one cut into pieces is (found by tests/fuzz/fuzz_watchframes).
void tst_WatchDecoder::overLongFrameInOneChunkIsSkipped()
{
    const QByteArray longFrame
        = R"({"type":"ADDED","object":{"metadata":{"name":"a-name-long-enough","resourceVersion":"1"}}})";
    QVERIFY(longFrame.size() > 60);
    WatchDecoder decoder(nullptr, 60);
    QList<WatchEvent> events = decoder.feed(longFrame + '\n' + longFrame + '\n');
    events += decoder.finish();
    QCOMPARE(summary(events), QStringLiteral("ERROR:InternalError ERROR:InternalError"));
    QVERIFY(events[0].status.message.contains(QStringLiteral("exceeds 60 bytes")));
    // Exactly at the limit is not over it.
    WatchDecoder atLimit(nullptr, longFrame.size());
    QCOMPARE(summary(atLimit.feed(longFrame + '\n')), QStringLiteral("ADDED:1"));
}

void tst_WatchDecoder::blankLinesAreIgnored()
{
    WatchDecoder decoder;
    QCOMPARE(summary(decoder.feed("\n\n  \n" + Stream + "\n")), Expected);
}

QTEST_GUILESS_MAIN(tst_WatchDecoder)
#include "tst_watchdecoder.moc"
