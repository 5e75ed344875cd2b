// SPDX-License-Identifier: Apache-2.0
// JsonNode reads the same values from a decoded Object's bytes as from Qt's tree of the same
// JSON: every member, element and scalar, by iteration and by lookup (jsonnodewalk.h), over
// documents chosen for what a byte walker gets wrong: white space, escapes in keys and
// strings, repeated keys, numbers of every form, nesting, and the top-level and metadata
// members the scanner indexes.
#include "jsonnodewalk.h"

#include <qcm/client/codec.h>
#include <qcm/client/restclient.h>

#include <QtCore/QJsonDocument>
#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::client;
using qcm::typed::JsonNode;

class tst_JsonNode : public QObject
{
    Q_OBJECT

private slots:
    void bytesAndTreeReadTheSame_data();
    void bytesAndTreeReadTheSame();
    void paths();
    void repeatedKeysReadTheLast();
    void indexedMembersOfTheRoot();
    void rootLookupPassesIndexedMembers();
    void listItemsGetTheListsKind();
    void changedObjectReadsItsTree();
    void outlivesItsObject();
};

void tst_JsonNode::bytesAndTreeReadTheSame_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("empty") << QByteArray("{}");
    QTest::newRow("pod") << QByteArray(
        R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"ns","labels":{"app":"x"},"annotations":{},"generation":3},"spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}]}],"nodeSelector":{"disktype":"ssd"}},"status":{"phase":"Running"}})");
    QTest::newRow("white space") << QByteArray(
        "  {\n \"a\" :\t[ 1 , 2 ,\r\n {\"b\" : { } } , [ ] ] ,\n\"c\" : \"d\" , \"e\":null , \"f\" "
        ": true,\"g\":false }  ");
    QTest::newRow("escapes") << QByteArray(
        R"({"k\"ey":"v\\al\"ue\n\u00e9\ud83d\ude00","\u0061":"\/","t":"\\","u":"\\\"","a\\":["\"",{"\\\\":"x"}]})");
    QTest::newRow("utf-8") << QByteArray(
        "{\"gr\xc3\xbc\xc3\x9f\":\"\xe2\x82\xac\",\"x\":[\"\xf0\x9f\x98\x80\"]}");
    // Found by fuzz_typed: a key whose escape is a lone surrogate has no UTF-8 form; looked up
    // by its QString it must still be found, and a literal U+FFFD key must not match it.
    QTest::newRow("lone surrogate key")
        << QByteArray(R"({"sal\ree-n\u00e9\ud84dn`1":2,"\ud800":1,"ï¿½":3})");
    QTest::newRow("numbers") << QByteArray(
        R"({"i":0,"n":-17,"f":1.5,"e":1e3,"E":-2.5E-3,"w":3.0,"big":12345678901234567890,"max":9223372036854775807,"min":-9223372036854775808,"z":-0})");
    QTest::newRow("nesting") << QByteArray(
        R"({"a":[[[[{"b":[[]]}]]]],"c":{"d":{"e":{"f":{"g":[1,[2,[3]]]}}}}})");
    QTest::newRow("strings with brackets")
        << QByteArray(R"({"a":"}]","b":["[{",{"c":"\"}"}],"d":"{\"x\":1}"})");
    QTest::newRow("long string") << (QByteArray(R"({"a":")") + QByteArray(5000, 'x') + "\\\""
        + QByteArray(37, 'y') + R"(","b":1})");
    QTest::newRow("metadata not an object")
        << QByteArray(R"({"metadata":[1,2],"spec":"s","status":7})");
}

void tst_JsonNode::bytesAndTreeReadTheSame()
{
    QFETCH(QByteArray, json);
    const auto decoded = LazyJsonCodec().decodeObject(json);
    QVERIFY2(decoded, qPrintable(decoded.ok() ? QString() : decoded.error().toString()));
    const QJsonValue expected = QJsonDocument::fromJson(json).object();
    QCOMPARE(qcm::testing::jsonNodeDifference(JsonNode::of(*decoded), expected), QString());
    QCOMPARE(qcm::testing::jsonNodeDifference(JsonNode::of(Object(expected.toObject())), expected),
        QString());
    QCOMPARE(qcm::testing::jsonNodeDifference(JsonNode(expected), expected), QString());
}

void tst_JsonNode::paths()
{
    const auto pod = LazyJsonCodec().decodeObject(
        R"({"spec":{"containers":[{"name":"a"},{"name":"b","ports":[{"containerPort":8080}]}]}})");
    QVERIFY(pod);
    const JsonNode containers = JsonNode::of(*pod).member("spec").member("containers");
    QCOMPARE(containers.size(), 2);
    QCOMPARE(containers.at(1).member("name").toString(), QStringLiteral("b"));
    QCOMPARE(containers.at(1).member("ports").at(0).member("containerPort").toInteger(), 8080);
    // Absent, or of another type: nullopt, never a throw.
    QVERIFY(!containers.at(2).isPresent());
    QVERIFY(!containers.at(2).member("name").toString());
    QVERIFY(!containers.member("name").isPresent());
    QVERIFY(!containers.at(0).member("name").toInteger());
    QVERIFY(!JsonNode().member("x").at(3).toString());
    QVERIFY(JsonNode().toJsonValue().isUndefined());
}

void tst_JsonNode::repeatedKeysReadTheLast()
{
    // Qt's reader keeps the last of a repeated key, and so does an Object's tree; the bytes
    // must read the same, at the root (indexed), in metadata (indexed) and below.
    const QByteArray json
        = R"({"spec":{"a":1},"metadata":{"labels":{"x":"1"},"labels":{"x":"2"}},"spec":{"a":2,"b":{"c":1,"c":2}}})";
    const auto object = LazyJsonCodec().decodeObject(json);
    QVERIFY(object);
    const JsonNode root = JsonNode::of(*object);
    QCOMPARE(root.member("spec").member("a").toInteger(), 2);
    QCOMPARE(root.member("spec").member("b").member("c").toInteger(), 2);
    QCOMPARE(root.member("metadata").member("labels").member("x").toString(), QStringLiteral("2"));
    QCOMPARE(
        qcm::testing::jsonNodeDifference(root, QJsonDocument::fromJson(json).object()), QString());
}

void tst_JsonNode::indexedMembersOfTheRoot()
{
    // The members the scanner indexes are read from the index; others by a scan. Both give
    // the same, including when a later member is named like an indexed one inside a value.
    const QByteArray json
        = R"({"x":{"spec":1,"metadata":{"name":"inner"}},"metadata":{"name":"outer","namespace":"n","uid":"u"},"spec":{"k":"v"},"kind":"K","apiVersion":"v1"})";
    const auto object = LazyJsonCodec().decodeObject(json);
    QVERIFY(object);
    const JsonNode root = JsonNode::of(*object);
    QCOMPARE(root.member("metadata").member("name").toString(), QStringLiteral("outer"));
    QCOMPARE(root.member("metadata").member("uid").toString(), QStringLiteral("u"));
    QCOMPARE(
        root.member("x").member("metadata").member("name").toString(), QStringLiteral("inner"));
    QCOMPARE(root.member("spec").member("k").toString(), QStringLiteral("v"));
    QVERIFY(!root.member("status").isPresent());
    QCOMPARE(root.member("kind").toString(), QStringLiteral("K"));
}

void tst_JsonNode::rootLookupPassesIndexedMembers()
{
    // A lookup of a member the scanner did not index passes metadata, spec and status by their
    // spans' ends; each holds what would end a wrong skip early ("}", "]", a quoted "data"),
    // and a repeated metadata is passed once by its span and once by a walk.
    const QByteArray json = R"({"metadata":{"name":"a"},"data":{"ts":"1"},)"
                            R"("metadata":{"name":"b","annotations":{"k":"}]\"data\":"}},)"
                            R"("spec":[{"data":2},"]"],"status":"\"data\":{","data":{"ts":"2"}})";
    const auto object = LazyJsonCodec().decodeObject(json);
    QVERIFY(object);
    const JsonNode root = JsonNode::of(*object);
    QCOMPARE(root.member("data").member("ts").toString(), QStringLiteral("2"));
    QCOMPARE(root.member("metadata").member("name").toString(), QStringLiteral("b"));
    QVERIFY(!root.member("absent").isPresent());
    QCOMPARE(
        qcm::testing::jsonNodeDifference(root, QJsonDocument::fromJson(json).object()), QString());
}

void tst_JsonNode::listItemsGetTheListsKind()
{
    Response response;
    response.code = 200;
    response.body
        = R"({"apiVersion":"v1","kind":"PodList","metadata":{},"items":[{"metadata":{"name":"a"},"spec":{"nodeName":"n"}}]})";
    const auto list = RestClient::decodeList(response);
    QVERIFY(list);
    const JsonNode item = JsonNode::of(list->items.first());
    QCOMPARE(item.member("kind").toString(), QStringLiteral("Pod"));
    QCOMPARE(item.member("apiVersion").toString(), QStringLiteral("v1"));
    QCOMPARE(item.member("spec").member("nodeName").toString(), QStringLiteral("n"));
    QCOMPARE(item.toJsonValue().toObject(), list->items.first().json());
}

void tst_JsonNode::changedObjectReadsItsTree()
{
    auto object = LazyJsonCodec().decodeObject(R"({"metadata":{"name":"a"},"spec":{"n":1}})");
    QVERIFY(object);
    Object changed = *object;
    changed.setName(QStringLiteral("b"));
    QCOMPARE(
        JsonNode::of(changed).member("metadata").member("name").toString(), QStringLiteral("b"));
    QCOMPARE(
        JsonNode::of(*object).member("metadata").member("name").toString(), QStringLiteral("a"));
    QCOMPARE(JsonNode::of(changed).member("spec").member("n").toInteger(), 1);
}

void tst_JsonNode::outlivesItsObject()
{
    JsonNode spec;
    {
        const auto object = LazyJsonCodec().decodeObject(R"({"spec":{"image":"nginx"}})");
        QVERIFY(object);
        spec = JsonNode::of(*object).member("spec");
    }
    QCOMPARE(spec.member("image").toString(), QStringLiteral("nginx"));
}

QTEST_APPLESS_MAIN(tst_JsonNode)
#include "tst_jsonnode.moc"
