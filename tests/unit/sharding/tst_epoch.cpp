// SPDX-License-Identifier: Apache-2.0
// Epoch, ack and term annotations: a round trip, the normal form (sorted, unique members),
// incarnations, and a precise error for each kind of bad value.
#include <qcm/sharding/epoch.h>

#include <QtTest/QtTest>

using namespace qcm::sharding;
using namespace Qt::StringLiterals;

class tst_Epoch : public QObject
{
    Q_OBJECT

private slots:
    void roundTrip();
    void membersAreSortedAndUnique();
    void badEpochs_data();
    void badEpochs();
    void acks_data();
    void acks();
    void terms_data();
    void terms();
    void incarnations();
};

void tst_Epoch::roundTrip()
{
    const Epoch e = Epoch::make(7, {QStringLiteral("qcm-1/b2"), QStringLiteral("qcm-0/a1")},
        QStringLiteral("e7"), QStringLiteral("e6"));
    QCOMPARE(e.toJson(),
        QByteArray(R"({"id":"e7","members":["qcm-0/a1","qcm-1/b2"],"number":7,"previous":"e6"})"));
    const auto parsed = Epoch::fromJson(e.toJson());
    QVERIFY(parsed);
    QCOMPARE(*parsed, e);
    const Epoch largest = Epoch::make(quint64(1) << 53, {QStringLiteral("a/0")}, u"1"_qs);
    QCOMPARE(Epoch::fromJson(largest.toJson())->number, quint64(1) << 53);
    const auto first = Epoch::fromJson(R"({"number":1,"id":"ab","members":[]})"); // no previous
    QVERIFY(first);
    QCOMPARE(first->previous, QString());
}

void tst_Epoch::membersAreSortedAndUnique()
{
    const auto parsed
        = Epoch::fromJson(R"({"number":2,"id":"1","members":["b/1","a/1","b/1","b/2"]})");
    QVERIFY(parsed);
    QCOMPARE(parsed->members,
        (QStringList {QStringLiteral("a/1"), QStringLiteral("b/1"), QStringLiteral("b/2")}));
}

void tst_Epoch::badEpochs_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error");
    const QString prefix = QStringLiteral("scale-out.qcm.io/epoch: ");
    QTest::newRow("not JSON") << QByteArray(
        "{") << QStringLiteral("scale-out.qcm.io/epoch: not JSON at offset 1: unterminated object");
    QTest::newRow("array") << QByteArray("[]")
                           << QStringLiteral("scale-out.qcm.io/epoch: not a JSON object");
    QTest::newRow("no number") << QByteArray(R"({"members":[]})")
                               << prefix
            + QStringLiteral("number: not a whole number from 1 to 2^53");
    QTest::newRow("zero") << QByteArray(R"({"number":0,"members":[]})")
                          << prefix + QStringLiteral("number: not a whole number from 1 to 2^53");
    QTest::newRow("fraction") << QByteArray(R"({"number":1.5,"members":[]})")
                              << prefix
            + QStringLiteral("number: not a whole number from 1 to 2^53");
    QTest::newRow("too large") << QByteArray(R"({"number":1e300,"members":[]})")
                               << prefix
            + QStringLiteral("number: not a whole number from 1 to 2^53");
    QTest::newRow("string number")
        << QByteArray(R"({"number":"3","members":[]})")
        << prefix + QStringLiteral("number: not a whole number from 1 to 2^53");
    QTest::newRow("members not a list") << QByteArray(R"({"number":3,"id":"1","members":"a"})")
                                        << prefix + QStringLiteral("members: not a list");
    QTest::newRow("empty member") << QByteArray(R"({"number":3,"id":"1","members":["a/1",""]})")
                                  << prefix + QStringLiteral("members[1]: not a non-empty string");
    QTest::newRow("number member") << QByteArray(R"({"number":3,"id":"1","members":[1]})")
                                   << prefix + QStringLiteral("members[0]: not a non-empty string");
    QTest::newRow("long identity") << QByteArray(R"({"number":3,"id":"1","members":[")")
            + QByteArray(513, 'x') + QByteArray(R"(/1"]})")
                                   << prefix
            + QStringLiteral("members[0]: an identity longer than the limit of 512 characters");
    QTest::newRow("no term") << QByteArray(R"({"number":3,"id":"1","members":["a/1","qcm-0"]})")
                             << prefix
            + QStringLiteral("members[1]: not an incarnation, identity/term");
    QTest::newRow("no identity") << QByteArray(R"({"number":3,"id":"1","members":["/1"]})")
                                 << prefix
            + QStringLiteral("members[0]: not an incarnation, identity/term");
    QTest::newRow("bad term") << QByteArray(R"({"number":3,"id":"1","members":["a/1","b/XY"]})")
                              << prefix
            + QStringLiteral("members[1]: 'XY' is not a term id of 1 to 32 lowercase "
                             "hexadecimal digits");
    QByteArray many = R"({"number":3,"id":"1","members":[)";
    for (int i = 0; i < 1025; ++i)
        many += (i ? ",\"m" : "\"m") + QByteArray::number(i) + "/1\"";
    many += "]}";
    QTest::newRow("no id") << QByteArray(R"({"number":3,"members":[]})")
                           << prefix
            + QStringLiteral("id: not an id of 1 to 32 lowercase hexadecimal digits");
    QTest::newRow("bad previous") << QByteArray(
        R"({"number":3,"id":"1","previous":7,"members":[]})")
                                  << prefix
            + QStringLiteral("previous: not an id of 1 to 32 lowercase hexadecimal digits");
    QTest::newRow("too many members")
        << many << prefix + QStringLiteral("members: more than the limit of 1024 members");
    QTest::newRow("too large a value") << QByteArray(
        1024 * 1024 + 1, ' ') << prefix + QStringLiteral("larger than the limit of 1048576 bytes");
}

void tst_Epoch::badEpochs()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, error);
    const auto parsed = Epoch::fromJson(json);
    QVERIFY(!parsed);
    QCOMPARE(parsed.error().toString(), error);
}

void tst_Epoch::acks_data()
{
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("error"); // empty: parses
    const QString notNumber = QStringLiteral(
        "scale-out.qcm.io/ack: '%1' is not a decimal number without sign or leading zeros");
    const QString notAck = QStringLiteral("scale-out.qcm.io/ack: '%1' is not <number>/<epoch id> "
                                          "(an id of 1 to 32 lowercase hexadecimal digits)");
    QTest::newRow("0") << QStringLiteral("0/1") << QString();
    QTest::newRow("42") << QStringLiteral("42/9f2c01ab77d0e413") << QString();
    QTest::newRow("max") << QStringLiteral("9007199254740992/a") << QString();
    QTest::newRow("past the largest epoch")
        << QStringLiteral("9007199254740993/a")
        << QStringLiteral(
               "scale-out.qcm.io/ack: 9007199254740993 is more than the largest epoch, 2^53");
    QTest::newRow("overflow") << QStringLiteral("18446744073709551616/a")
                              << notNumber.arg(QStringLiteral("18446744073709551616"));
    QTest::newRow("empty") << QString() << notNumber.arg(QString());
    QTest::newRow("leading zero") << QStringLiteral("07/a") << notNumber.arg(u"07"_qs);
    QTest::newRow("sign") << QStringLiteral("+7/a") << notNumber.arg(u"+7"_qs);
    QTest::newRow("negative") << QStringLiteral("-1/a") << notNumber.arg(u"-1"_qs);
    QTest::newRow("space") << QStringLiteral(" 7/a") << notNumber.arg(u" 7"_qs);
    QTest::newRow("arabic-indic digit")
        << QStringLiteral("\u0663/a") << notNumber.arg(QStringLiteral("\u0663"));
    QTest::newRow("no id") << QStringLiteral("7") << notAck.arg(u"7"_qs);
    QTest::newRow("empty id") << QStringLiteral("7/") << notAck.arg(u"7/"_qs);
    QTest::newRow("bad id") << QStringLiteral("7/A") << notAck.arg(u"7/A"_qs);
}

void tst_Epoch::acks()
{
    QFETCH(QString, value);
    QFETCH(QString, error);
    const auto parsed = parseAck(value);
    QCOMPARE(bool(parsed), error.isEmpty());
    if (parsed)
        QCOMPARE(parsed->toString(), value);
    else
        QCOMPARE(parsed.error().toString(), error);
}

void tst_Epoch::terms_data()
{
    QTest::addColumn<QString>("value");
    QTest::addColumn<bool>("ok");
    QTest::newRow("16 digits") << QStringLiteral("9f2c01ab77d0e413") << true;
    QTest::newRow("one digit") << QStringLiteral("0") << true;
    QTest::newRow("32 digits") << QString(32, QLatin1Char('f')) << true;
    QTest::newRow("33 digits") << QString(33, QLatin1Char('f')) << false;
    QTest::newRow("empty") << QString() << false;
    QTest::newRow("upper case") << QStringLiteral("9F") << false;
    QTest::newRow("not hex") << QStringLiteral("g") << false;
    QTest::newRow("slash") << QStringLiteral("a/b") << false;
}

void tst_Epoch::terms()
{
    QFETCH(QString, value);
    QFETCH(bool, ok);
    const auto parsed = parseTerm(value);
    QCOMPARE(bool(parsed), ok);
    if (ok)
        QCOMPARE(*parsed, value);
    else
        QCOMPARE(parsed.error().toString(),
            QStringLiteral("scale-out.qcm.io/term: '%1' is not a term id of 1 to 32 lowercase "
                           "hexadecimal digits")
                .arg(value));
}

void tst_Epoch::incarnations()
{
    const QString a = newTerm();
    const QString b = newTerm();
    QCOMPARE(a.size(), 16);
    QVERIFY(parseTerm(a));
    QVERIFY(a != b);
    QCOMPARE(incarnation(u"ns/pod-0", a), QStringLiteral("ns/pod-0/") + a);
    QCOMPARE(identityOf(incarnation(u"ns/pod-0", a)), QStringView(u"ns/pod-0"));
    QCOMPARE(identityOf(u"plain"), QStringView(u"plain"));
}

QTEST_MAIN(tst_Epoch)
#include "tst_epoch.moc"
