// SPDX-License-Identifier: Apache-2.0
// LazyJsonCodec: decoded Objects behave exactly as the tree-built ones of QtJsonCodec, its
// scanner accepts only what Qt's reader accepts (and says where and why it refuses), lists and
// watch frames decode as before, and a shared decoded Object builds its tree once, safely,
// from several threads.
#include <qcm/client/codec.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QRandomGenerator>
#include <QtTest/QtTest>

#include <thread>
#include <vector>

using namespace qcm::client;
using qcm::Result;

class tst_LazyJsonCodec : public QObject
{
    Q_OBJECT

private slots:
    void isTheDefault();
    void accessorsMatchTheTree_data();
    void accessorsMatchTheTree();
    void settersAndJsonDetach();
    void errorsSayWhereAndWhy_data();
    void errorsSayWhereAndWhy();
    void acceptsOnlyWhatQtAccepts();
    void listDecodesAsTheTreeCodec();
    void listsMatchTheTreeCodec_data();
    void listsMatchTheTreeCodec();
    void constJsonSurvivesModifiedCopies();
    void listErrors_data();
    void listErrors();
    void watchEvents();
    void watchEventTypesAsTheTreeCodec_data();
    void watchEventTypesAsTheTreeCodec();
    void treeIsBuiltOnceAcrossThreads();
};

namespace {

QByteArray podNginx()
{
    QFile f(QStringLiteral(QCM_SHARED_TESTDATA "/pod-nginx.json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing ../shared/testdata/pod-nginx.json: shared/ must sit beside the repository");
    return f.readAll();
}

const QtJsonCodec &treeCodec()
{
    static const QtJsonCodec codec;
    return codec;
}

const LazyJsonCodec &lazyCodec()
{
    static const LazyJsonCodec codec;
    return codec;
}

// Every getter of Object, as text, to compare two Objects.
QString describe(const Object &o)
{
    QStringList refs;
    for (const OwnerReference &r : o.ownerReferences())
        refs << r.apiVersion + r.kind + r.name + r.uid + QString::number(r.controller)
                + QString::number(r.blockOwnerDeletion);
    QStringList labels;
    const QMap<QString, QString> l = o.labels();
    for (auto it = l.begin(); it != l.end(); ++it)
        labels << it.key() + QLatin1Char('=') + it.value();
    QStringList annotations;
    const QMap<QString, QString> a = o.annotations();
    for (auto it = a.begin(); it != a.end(); ++it)
        annotations << it.key() + QLatin1Char('=') + it.value();
    const std::optional<QDateTime> deleted = o.deletionTimestamp();
    return QStringList {o.apiVersion(), o.kind(), o.name(), o.namespaceName(), o.uid(),
        o.resourceVersion(), QString::number(o.generation()), labels.join(QLatin1Char(',')),
        annotations.join(QLatin1Char(',')), refs.join(QLatin1Char(',')),
        o.controllerRef() ? o.controllerRef()->name : QStringLiteral("-"),
        o.finalizers().join(QLatin1Char(',')), o.creationTimestamp().toString(Qt::ISODate),
        deleted ? deleted->toString(Qt::ISODate) : QStringLiteral("-"), o.key(),
        QString::number(o.hasName()), QString::number(o.isEmpty())}
        .join(QLatin1Char('|'));
}

} // namespace

void tst_LazyJsonCodec::isTheDefault()
{
    QVERIFY(dynamic_cast<const LazyJsonCodec *>(Codec::defaultCodec()));
}

void tst_LazyJsonCodec::accessorsMatchTheTree_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("pod-nginx") << podNginx();
    QTest::newRow("every metadata field") << QByteArray(R"({"metadata":{"name":"x","generation":7,
        "labels":{"a":"1","b":""},"annotations":{"c":"2"},"finalizers":["f1","f2"],
        "uid":"u","resourceVersion":"42","namespace":"ns",
        "creationTimestamp":"2026-11-22T06:00:00Z","deletionTimestamp":"2026-11-22T07:00:00Z",
        "ownerReferences":[{"apiVersion":"v1","kind":"Foo","name":"o1","uid":"u1"},
          {"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"u2","controller":true,
           "blockOwnerDeletion":true}]},"apiVersion":"v1","kind":"Thing"})");
    QTest::newRow("escapes") << QByteArray(
        R"({"kind":"K\u0069nd","metadata":{"n\u0061me":"caf\u00e9\/\"q\"\\ \ud83d\ude00 \t","namespace":"d\u00e9j\u00e0"}})");
    // The key is made from plain ASCII in one step, from anything else through the decoder.
    QTest::newRow("plain name, escaped namespace")
        << QByteArray(R"({"metadata":{"name":"plain","namespace":"d\u00e9j"}})");
    QTest::newRow("escaped name, plain namespace")
        << QByteArray(R"({"metadata":{"name":"a\/b","namespace":"plain"}})");
    QTest::newRow("UTF-8 namespace")
        << QByteArray("{\"metadata\":{\"name\":\"n\",\"namespace\":\"\xc3\xa9\"}}");
    QTest::newRow("empty namespace") << QByteArray(R"({"metadata":{"name":"n","namespace":""}})");
    QTest::newRow("empty name") << QByteArray(R"({"metadata":{"name":"","namespace":"ns"}})");
    QTest::newRow("UTF-8") << QByteArray("{\"metadata\":{\"name\":\"caf\xc3\xa9 \xf0\x9f\x98\x80\","
                                         "\"labels\":{\"\xe2\x82\xac\":\"\xef\xbf\xbd\"}}}");
    QTest::newRow("white space") << QByteArray(
        " \r\n\t{ \"metadata\" : { \"name\" : \"a\" , \"namespace\" :\n\"b\" } , "
        "\"kind\" : \"K\" }\n ");
    QTest::newRow("duplicate keys: the last counts")
        << QByteArray(R"({"metadata":{"name":"a","name":"b"},"kind":"A","kind":"B"})");
    QTest::newRow("a later metadata replaces an earlier one")
        << QByteArray(R"({"metadata":{"name":"a","uid":"u"},"metadata":{"name":"b"}})");
    QTest::newRow("metadata not an object")
        << QByteArray(R"({"metadata":{"name":"a"},"metadata":null})");
    QTest::newRow("fields of the wrong type") << QByteArray(
        R"({"apiVersion":1,"kind":null,"metadata":{"name":["x"],"namespace":{},"generation":"7","labels":[1],"ownerReferences":{},"finalizers":"f"}})");
    QTest::newRow("numbers") << QByteArray(
        R"({"metadata":{"generation":12345678901,"x":-0.5e-3,"y":1E+2,"z":[0,-0,1.25]}})");
    QTest::newRow("no name") << QByteArray(R"({"metadata":{"namespace":"n"}})");
    QTest::newRow("U+FEFF after an escape")
        << QByteArray("{\"metadata\":{\"name\":\"\\u0061\xef\xbb\xbf"
                      "b\",\"uid\":\"\xef\xbb\xbf"
                      "c\"}}");
    QTest::newRow("an escaped key with U+FEFF is not \"name\"")
        << QByteArray("{\"metadata\":{\"name\":\"real\",\"\\u006e\xef\xbb\xbf"
                      "ame\":\"spoof\"}}");
    QTest::newRow("integral numbers as Qt stores them") << QByteArray(
        R"({"metadata":{"generation":1.0,"x":1e3,"y":9223372036854775807,"z":1e19}})");
    QTest::newRow("empty") << QByteArray("{}");
    QTest::newRow("nothing but spec") << QByteArray(R"({"spec":{"a":[{"b":[true,false,null]}]}})");
}

// The same bytes through both codecs give the same Object by every getter and the same tree.
void tst_LazyJsonCodec::accessorsMatchTheTree()
{
    QFETCH(QByteArray, json);
    const Result<Object> tree = treeCodec().decodeObject(json);
    const Result<Object> lazy = lazyCodec().decodeObject(json);
    QVERIFY(tree);
    QVERIFY2(lazy, lazy ? "" : qPrintable(lazy.error().reason));
    QCOMPARE(describe(*lazy), describe(*tree));
    QCOMPARE(lazy->json(), tree->json());
    QCOMPARE(describe(*lazy), describe(*tree)); // and the same after the tree is built
    const Object copy = *lazy;
    QCOMPARE(describe(copy), describe(*tree));
}

// A decoded Object is a value like any other: setters and the non-const json() change that
// instance only, and its identity follows.
void tst_LazyJsonCodec::settersAndJsonDetach()
{
    const Object original = *lazyCodec().decodeObject(
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"n"},"data":{"k":"v"}})");
    Object renamed = original;
    renamed.setName(QStringLiteral("b"));
    QCOMPARE(renamed.key(), QStringLiteral("n/b"));
    QCOMPARE(renamed.json()[QStringLiteral("data")].toObject()[QStringLiteral("k")],
        QJsonValue(QStringLiteral("v")));
    QCOMPARE(original.key(), QStringLiteral("n/a"));
    QCOMPARE(original.name(), QStringLiteral("a"));

    Object edited = original;
    QJsonObject &json = edited.json();
    json.insert(QStringLiteral("data"), QJsonObject {{QStringLiteral("k"), QStringLiteral("w")}});
    QJsonObject meta = json.value(QStringLiteral("metadata")).toObject();
    meta.insert(QStringLiteral("namespace"), QStringLiteral("m"));
    json.insert(QStringLiteral("metadata"), meta);
    QCOMPARE(edited.key(), QStringLiteral("m/a")); // read from the lent JSON
    QCOMPARE(edited.namespaceName(), QStringLiteral("m"));
    QCOMPARE(original.json()[QStringLiteral("data")].toObject()[QStringLiteral("k")],
        QJsonValue(QStringLiteral("v")));
    QCOMPARE(original.namespaceName(), QStringLiteral("n"));

    Object labelled = original;
    labelled.setLabels({{QStringLiteral("x"), QStringLiteral("y")}});
    labelled.setKind(QStringLiteral("Other"));
    QCOMPARE(labelled.labels().value(QStringLiteral("x")), QStringLiteral("y"));
    QCOMPARE(labelled.kind(), QStringLiteral("Other"));
    QVERIFY(original.labels().isEmpty());
    QCOMPARE(original.kind(), QStringLiteral("ConfigMap"));

    Object moved = std::move(labelled);
    QCOMPARE(moved.kind(), QStringLiteral("Other"));
    Object target = original;
    target = std::move(moved);
    QCOMPARE(target.kind(), QStringLiteral("Other"));
    QCOMPARE(target.key(), QStringLiteral("n/a"));
}

void tst_LazyJsonCodec::errorsSayWhereAndWhy_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error");
    auto row = [](const char *name, const QByteArray &json, const char *error) {
        QTest::newRow(name) << json << QString::fromUtf8(error);
    };
    row("empty", "", "invalid JSON at offset 0: expected a JSON object, found the end");
    row("an array", "[1]", "invalid JSON at offset 0: expected a JSON object");
    row("truncated", R"({"a":{"b":)", "invalid JSON at offset 10: expected a value, found the end");
    row("bad literal", R"({"a":tru})", "invalid JSON at offset 5: invalid value");
    row("missing colon", R"({"a" 1})",
        "invalid JSON at offset 5: expected ':' after a member name");
    row("trailing comma", R"({"a":1,})", "invalid JSON at offset 7: expected a member name");
    row("missing comma", R"({"a":1 "b":2})",
        "invalid JSON at offset 7: expected ',' or '}' in an object");
    row("array missing comma", R"({"a":[1 2]})",
        "invalid JSON at offset 8: expected ',' or ']' in an array");
    row("unterminated string", R"({"a":"xyz)", "invalid JSON at offset 5: unterminated string");
    row("control character", "{\"a\":\"x\ty\"}",
        "invalid JSON at offset 7: control character in a string");
    row("bad escape", R"({"a":"x\qy"})", "invalid JSON at offset 7: invalid escape sequence");
    row("bad \\u escape", R"({"a":"\u12g4"})",
        "invalid JSON at offset 6: invalid \\u escape sequence");
    row("overlong UTF-8", "{\"a\":\"\xc0\x80\"}",
        "invalid JSON at offset 6: invalid UTF-8 in a string");
    row("UTF-8 surrogate", "{\"a\":\"\xed\xa0\x80\"}",
        "invalid JSON at offset 6: invalid UTF-8 in a string");
    row("above U+10FFFF", "{\"a\":\"\xf4\x90\x80\x80\"}",
        "invalid JSON at offset 6: invalid UTF-8 in a string");
    row("leading zero", R"({"a":01})",
        "invalid JSON at offset 6: expected ',' or '}' in an object");
    row("bare minus", R"({"a":-})", "invalid JSON at offset 5: invalid number");
    row("no fraction digits", R"({"a":1.})", "invalid JSON at offset 5: invalid number");
    row("out of range", R"({"a":1e400})", "invalid JSON at offset 5: number out of range");
    row("underflow", R"({"a":1e-400})", "invalid JSON at offset 5: number out of range");
    row("garbage after", R"({"a":1} x)", "invalid JSON at offset 8: garbage after the JSON object");
    row("too deep", "{\"a\":" + QByteArray(600, '[') + QByteArray(600, ']') + "}",
        "invalid JSON at offset 516: nested deeper than 512 (limits.jsonDepth)");
}

void tst_LazyJsonCodec::errorsSayWhereAndWhy()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, error);
    const Result<Object> object = lazyCodec().decodeObject(json);
    QVERIFY(!object);
    QCOMPARE(object.error().reason, error);
}

// Random damage to real objects: whatever the scanner accepts, Qt's reader accepts too and
// reads the same values (a decoded Object relies on it when it builds its tree); and it
// accepts every undamaged object.
void tst_LazyJsonCodec::acceptsOnlyWhatQtAccepts()
{
    const QList<QByteArray> seeds {podNginx(),
        QByteArray(
            R"({"metadata":{"name":"a\u00e9\"","labels":{"x":"1"}},"n":[1,-2.5e3,true,null,{}]})"),
        QByteArray("{\"metadata\":{\"name\":\"caf\xc3\xa9 \xf0\x9f\x98\x80\"}}")};
    const QByteArray inserts[] = {"\"", "\\", "\\u", "\\ud800", "{", "}", "[", "]", ",", ":", "-",
        ".", "e", "0", "1e999", "\x00", "\x1f", "\x80", "\xc0", "\xc3", "\xed\xa0", "\xf4\x90",
        "\xff", " ", "null", "tru", "\"k\":1,"};
    QRandomGenerator random(20261122);
    int accepted = 0;
    for (int i = 0; i < 20000; ++i) {
        QByteArray json = seeds[random.bounded(int(seeds.size()))];
        const int edits = 1 + random.bounded(3);
        for (int e = 0; e < edits; ++e) {
            const int at = random.bounded(int(json.size()) + 1);
            switch (random.bounded(4)) {
            case 0:
                json.insert(at, inserts[random.bounded(int(std::size(inserts)))]);
                break;
            case 1:
                if (at < json.size())
                    json[at] = char(random.bounded(256));
                break;
            case 2:
                json.remove(at, 1 + random.bounded(4));
                break;
            case 3:
                json.truncate(at);
                break;
            }
        }
        const Result<Object> lazy = lazyCodec().decodeObject(json);
        if (!lazy)
            continue;
        ++accepted;
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
        QVERIFY2(error.error == QJsonParseError::NoError && doc.isObject(),
            qPrintable(QStringLiteral("accepted, but Qt's reader says %1: %2")
                           .arg(error.errorString(), QString::fromLatin1(json.toBase64()))));
        QCOMPARE(describe(*lazy), describe(Object(doc.object())));
        QCOMPARE(lazy->json(), doc.object());
    }
    QVERIFY2(accepted > 100, "too few damaged objects stayed valid to compare anything");
    for (const QByteArray &seed : seeds)
        QVERIFY(lazyCodec().decodeObject(seed));
}

void tst_LazyJsonCodec::listDecodesAsTheTreeCodec()
{
    const QByteArray list = R"({"kind":"PodList","apiVersion":"v1",
        "metadata":{"resourceVersion":"77","continue":"tok","remainingItemCount":1200},
        "items":[)"
        + podNginx() + R"(,{"metadata":{"name":"b","namespace":"n"}},
                 {"apiVersion":"v2","kind":"Other","metadata":{"name":"c"}},
                 {"apiVersion":"","kind":null,"metadata":{"name":"d"}}]})";
    const Result<ObjectList> tree = treeCodec().decodeList(list);
    const Result<ObjectList> lazy = lazyCodec().decodeList(list);
    QVERIFY(tree);
    QVERIFY2(lazy, lazy ? "" : qPrintable(lazy.error().reason));
    QCOMPARE(lazy->kind, QStringLiteral("PodList"));
    QCOMPARE(lazy->apiVersion, QStringLiteral("v1"));
    QCOMPARE(lazy->resourceVersion, QStringLiteral("77"));
    QCOMPARE(lazy->continueToken, QStringLiteral("tok"));
    QCOMPARE(lazy->remainingItemCount, std::optional<qint64>(1200));
    QCOMPARE(lazy->items.size(), 4);
    for (qsizetype i = 0; i < lazy->items.size(); ++i) {
        QCOMPARE(describe(lazy->items[i]), describe(tree->items[i]));
        QCOMPARE(lazy->items[i].json(), tree->items[i].json());
    }
    // Items take the list's apiVersion and kind when theirs are missing or empty.
    QCOMPARE(lazy->items[1].apiVersion(), QStringLiteral("v1"));
    QCOMPARE(lazy->items[1].kind(), QStringLiteral("Pod"));
    QCOMPARE(lazy->items[2].apiVersion(), QStringLiteral("v2"));
    QCOMPARE(lazy->items[2].kind(), QStringLiteral("Other"));
    QCOMPARE(lazy->items[3].json()[QStringLiteral("kind")], QJsonValue(QStringLiteral("Pod")));

    const Result<ObjectList> empty = lazyCodec().decodeList(
        R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":null})");
    QVERIFY(empty);
    QVERIFY(empty->items.isEmpty());
    QCOMPARE(empty->resourceVersion, QStringLiteral("5"));
    QVERIFY(!empty->remainingItemCount);
}

void tst_LazyJsonCodec::listsMatchTheTreeCodec_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("items without apiVersion and kind") << QByteArray(
        R"({"kind":"PodList","apiVersion":"v1","items":[{},{"metadata":{"name":"a"}}]})");
    // client-go's UnstructuredList sets both only when the item has neither.
    QTest::newRow("an item with only an apiVersion")
        << QByteArray(R"({"kind":"PodList","apiVersion":"v1","items":[{"apiVersion":"v2"}]})");
    QTest::newRow("an item with only a kind")
        << QByteArray(R"({"kind":"PodList","apiVersion":"v1","items":[{"kind":"Other"}]})");
    QTest::newRow("kind List") << QByteArray(R"({"kind":"List","apiVersion":"v1","items":[{}]})");
    QTest::newRow("a list without kind") << QByteArray(R"({"items":[{"metadata":{"name":"a"}}]})");
    QTest::newRow("the last items count")
        << QByteArray(R"({"kind":"PodList","items":[{"metadata":{"name":"a"}}],"items":null})");
    QTest::newRow("the last items count, even after a bad one")
        << QByteArray(R"({"kind":"PodList","items":[1],"items":[{}]})");
    QTest::newRow("the last metadata counts") << QByteArray(
        R"({"metadata":{"resourceVersion":"5","remainingItemCount":3},"metadata":null,"items":[]})");
    QTest::newRow("remainingItemCount as Qt reads it") << QByteArray(
        R"({"metadata":{"remainingItemCount":1.0e2,"continue":"c\u00e9"},"items":[]})");
}

// Lists, including odd ones, decode the same with both codecs.
void tst_LazyJsonCodec::listsMatchTheTreeCodec()
{
    QFETCH(QByteArray, json);
    const Result<ObjectList> tree = treeCodec().decodeList(json);
    const Result<ObjectList> lazy = lazyCodec().decodeList(json);
    QVERIFY2(tree, tree ? "" : qPrintable(tree.error().reason));
    QVERIFY2(lazy, lazy ? "" : qPrintable(lazy.error().reason));
    QCOMPARE(lazy->apiVersion, tree->apiVersion);
    QCOMPARE(lazy->kind, tree->kind);
    QCOMPARE(lazy->resourceVersion, tree->resourceVersion);
    QCOMPARE(lazy->continueToken, tree->continueToken);
    QCOMPARE(lazy->remainingItemCount, tree->remainingItemCount);
    QCOMPARE(lazy->items.size(), tree->items.size());
    for (qsizetype i = 0; i < lazy->items.size(); ++i) {
        QCOMPARE(describe(lazy->items[i]), describe(tree->items[i]));
        QCOMPARE(lazy->items[i].json(), tree->items[i].json());
    }
}

// A reference from the const json() of a decoded Object stays valid while that Object is not
// modified, whatever its copies do: they share its block, and a copy that is modified gets a
// block of its own (the header's contract).
void tst_LazyJsonCodec::constJsonSurvivesModifiedCopies()
{
    Object kept = *lazyCodec().decodeObject(R"({"metadata":{"name":"c"},"data":{"k":"v"}})");
    const QJsonObject &tree = std::as_const(kept).json();
    for (int i = 0; i < 3; ++i) {
        Object renamed = kept;
        renamed.setName(QStringLiteral("d%1").arg(i));
        Object edited = kept;
        edited.json().insert(QStringLiteral("data"), QJsonObject());
        QCOMPARE(renamed.name(), QStringLiteral("d%1").arg(i));
        QCOMPARE(edited.json()[QStringLiteral("data")].toObject(), QJsonObject());
    }
    QCOMPARE(tree[QStringLiteral("metadata")].toObject()[QStringLiteral("name")],
        QJsonValue(QStringLiteral("c")));
    QCOMPARE(tree[QStringLiteral("data")].toObject()[QStringLiteral("k")],
        QJsonValue(QStringLiteral("v")));
    QCOMPARE(kept.name(), QStringLiteral("c"));
    QCOMPARE(kept.key(), QStringLiteral("c"));
}

void tst_LazyJsonCodec::listErrors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error");
    QTest::newRow("an item is not an object") << QByteArray(R"({"kind":"PodList","items":[{},3]})")
                                              << QStringLiteral("items[1] is not an object");
    QTest::newRow("a broken item") << QByteArray(R"({"kind":"PodList","items":[{"a":}]})")
                                   << QStringLiteral("invalid JSON at offset 32: invalid value");
    QTest::newRow("not an object") << QByteArray("[]") << QStringLiteral("expected a JSON object");
}

void tst_LazyJsonCodec::listErrors()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, error);
    for (const Codec *codec :
        {static_cast<const Codec *>(&lazyCodec()), static_cast<const Codec *>(&treeCodec())}) {
        const Result<ObjectList> list = codec->decodeList(json);
        QVERIFY(!list);
        if (codec == &lazyCodec() || !error.startsWith(QLatin1String("invalid JSON")))
            QVERIFY2(list.error().reason.contains(error), qPrintable(list.error().reason));
    }
}

void tst_LazyJsonCodec::watchEvents()
{
    const Result<WatchEvent> added = lazyCodec().decodeWatchEvent(
        R"({"object":{"metadata":{"name":"a","resourceVersion":"9"}},"type":"ADDED"})");
    QVERIFY(added);
    QCOMPARE(added->type, WatchEvent::Type::Added);
    QCOMPARE(added->object.resourceVersion(), QStringLiteral("9"));
    QCOMPARE(added->object.json().size(), 1); // nothing added to an event's object

    const Result<WatchEvent> error = lazyCodec().decodeWatchEvent(
        R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old"}})");
    QVERIFY(error);
    QCOMPARE(error->type, WatchEvent::Type::Error);
    QCOMPARE(error->status.code, 410);
    QVERIFY(error->status.isResourceExpired());

    const Result<WatchEvent> garbage
        = lazyCodec().decodeWatchEvent(R"({"type":"ADDED","object":{}}})");
    QVERIFY(!garbage);
    QCOMPARE(garbage.error().reason,
        QStringLiteral("invalid JSON at offset 28: garbage after the JSON object"));
}

// The event's type, read without decoding for the five names, decodes as the tree codec reads
// it: the names, escaped ones, unknown ones (the error quotes them) and non-strings.
void tst_LazyJsonCodec::watchEventTypesAsTheTreeCodec_data()
{
    QTest::addColumn<QByteArray>("type");
    for (const char *type : {R"("ADDED")", R"("MODIFIED")", R"("DELETED")", R"("BOOKMARK")",
             R"("ERROR")", R"("\u0041DDED")", R"("MODIFIE\u0044")", R"("added")", R"("ADDEDX")",
             R"("ADDE")", R"("")", R"(" ADDED")", "\"\xc3\x89RROR\"", "7", "null", R"(["ADDED"])"})
        QTest::newRow(type) << QByteArray(type);
}

void tst_LazyJsonCodec::watchEventTypesAsTheTreeCodec()
{
    QFETCH(QByteArray, type);
    const QByteArray frame = R"({"type":)" + type
        + R"(,"object":{"kind":"Status","code":410,"metadata":{"name":"a"}}})";
    const Result<WatchEvent> lazy = lazyCodec().decodeWatchEvent(frame);
    const Result<WatchEvent> tree = treeCodec().decodeWatchEvent(frame);
    QCOMPARE(bool(lazy), bool(tree));
    if (!tree) {
        QCOMPARE(lazy.error().reason, tree.error().reason);
        return;
    }
    QCOMPARE(lazy->type, tree->type);
    QCOMPARE(lazy->status.code, tree->status.code);
    QCOMPARE(lazy->object.key(), tree->object.key());
}

// Many threads reading one shared decoded Object (an informer's cache hands the same Object to
// every lister and handler): the tree is built once and every thread sees the same one.
void tst_LazyJsonCodec::treeIsBuiltOnceAcrossThreads()
{
    for (int round = 0; round < 50; ++round) {
        const Object shared = *lazyCodec().decodeObject(podNginx());
        std::vector<const QJsonObject *> seen(8, nullptr);
        std::vector<QString> names(8);
        std::vector<std::thread> threads;
        for (int t = 0; t < 8; ++t)
            threads.emplace_back([&, t] {
                const Object copy = shared;
                names[t] = copy.json()[QStringLiteral("metadata")]
                               .toObject()[QStringLiteral("name")]
                               .toString();
                seen[t] = &shared.json();
            });
        for (std::thread &t : threads)
            t.join();
        for (int t = 0; t < 8; ++t) {
            QCOMPARE(seen[t], seen[0]);
            QCOMPARE(names[t], shared.name());
        }
    }
}

QTEST_GUILESS_MAIN(tst_LazyJsonCodec)
#include "tst_lazyjsoncodec.moc"
