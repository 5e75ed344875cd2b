// SPDX-License-Identifier: Apache-2.0
// Event, ObjectReference, the event name, eventf's formatting and FakeRecorder: client-go's
// util_test.go (TestGenerateEventName), tools/reference's GetReference, fake.go, and the JSON
// the API server gets.
#include "recordtestsupport.h"

#include <qcm/record/event.h>
#include <qcm/record/eventkeys.h>
#include <qcm/record/fakerecorder.h>

#include <QtCore/QJsonDocument>
#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::record;

class tst_Event : public QObject
{
    Q_OBJECT

private slots:
    void generateEventName_data();
    void generateEventName();
    void validateEventType();
    void getReference();
    void getReferenceWithoutKindIsAnError();
    void toJsonLeavesEmptyFieldsOut();
    void jsonRoundTrip();
    void timestamps();
    void goStringOfAReference();
    void eventKeys();
    void eventfFormatsInOnePass();
    void fakeRecorder();
};

namespace {

client::Object pod()
{
    client::Object o = testing::testPod();
    o.setResourceVersion(QStringLiteral("17"));
    return o;
}

bool isDnsSubdomain(const QString &name)
{
    static const QRegularExpression re(
        QStringLiteral("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"));
    return name.size() <= 253 && re.match(name).hasMatch();
}

} // namespace

void tst_Event::generateEventName_data()
{
    QTest::addColumn<QString>("refName");
    QTest::addColumn<QString>("expected");
    QTest::newRow("valid name") << QStringLiteral("test-pod")
                                << QStringLiteral("test-pod.178959f726d80ec");
    QTest::newRow("invalid name - too long") << QString(300, QLatin1Char('x')) << QString();
    QTest::newRow("invalid name - upper case") << QStringLiteral("test.POD") << QString();
    QTest::newRow("invalid name - special chars")
        << QStringLiteral("test.pod/invalid!chars?") << QString();
    QTest::newRow("invalid name - special chars and non alphanumeric starting character")
        << QStringLiteral("--test.pod/invalid!chars?") << QString();
}

void tst_Event::generateEventName()
{
    QFETCH(QString, refName);
    QFETCH(QString, expected);
    const qint64 timestamp = 105999103295324396;
    const QString actual = record::generateEventName(refName, timestamp);
    QVERIFY2(isDnsSubdomain(actual), qPrintable(actual));
    if (!expected.isEmpty())
        QCOMPARE(actual, expected);
    else // a UUID
        QCOMPARE(actual.size(), 36);
}

void tst_Event::validateEventType()
{
    QVERIFY(record::validateEventType(QStringLiteral("Normal")));
    QVERIFY(record::validateEventType(QStringLiteral("Warning")));
    QVERIFY(!record::validateEventType(QStringLiteral("normal")));
    QVERIFY(!record::validateEventType(QStringLiteral("Info")));
    QVERIFY(!record::validateEventType(QString()));
}

void tst_Event::getReference()
{
    const auto ref = ObjectReference::getReference(pod());
    QVERIFY2(ref, qPrintable(ref ? QString() : ref.error().toString()));
    QCOMPARE(ref->kind, QStringLiteral("Pod"));
    QCOMPARE(ref->apiVersion, QStringLiteral("v1"));
    QCOMPARE(ref->namespaceName, QStringLiteral("baz"));
    QCOMPARE(ref->name, QStringLiteral("foo"));
    QCOMPARE(ref->uid, QStringLiteral("bar"));
    QCOMPARE(ref->resourceVersion, QStringLiteral("17"));
    QCOMPARE(ref->fieldPath, QString());

    const auto partial
        = ObjectReference::getPartialReference(pod(), QStringLiteral("spec.containers[2]"));
    QVERIFY(partial);
    QCOMPARE(partial->fieldPath, QStringLiteral("spec.containers[2]"));
}

void tst_Event::getReferenceWithoutKindIsAnError()
{
    client::Object noKind = pod();
    noKind.json().remove(QStringLiteral("kind"));
    const auto ref = ObjectReference::getReference(noKind);
    QVERIFY(!ref);
    QCOMPARE(ref.error().file, QStringLiteral("baz/foo"));
    QCOMPARE(ref.error().field, QStringLiteral("kind"));
    QVERIFY2(
        ref.error().reason.contains(QStringLiteral("no kind")), qPrintable(ref.error().toString()));

    QVERIFY(!ObjectReference::getReference(client::Object()));
}

void tst_Event::toJsonLeavesEmptyFieldsOut()
{
    Event e;
    e.name = QStringLiteral("foo.1");
    e.namespaceName = QStringLiteral("baz");
    e.involvedObject.kind = QStringLiteral("Pod");
    e.involvedObject.name = QStringLiteral("foo");
    e.reason = QStringLiteral("Started");
    e.source.component = QStringLiteral("eventTest");
    e.firstTimestamp = e.lastTimestamp = WallTime(std::chrono::seconds(1700000000));
    e.count = 1;
    e.type = EventTypeNormal;
    e.reportingController = QStringLiteral("eventTest");
    const QByteArray json = QJsonDocument(e.toJson()).toJson(QJsonDocument::Compact);
    QCOMPARE(json,
        QByteArray(R"({"apiVersion":"v1","count":1,"eventTime":null,"firstTimestamp":)"
                   R"("2023-11-14T22:13:20Z","involvedObject":{"kind":"Pod","name":"foo"},)"
                   R"("kind":"Event","lastTimestamp":"2023-11-14T22:13:20Z","metadata":)"
                   R"({"name":"foo.1","namespace":"baz"},"reason":"Started",)"
                   R"("reportingComponent":"eventTest","reportingInstance":"",)"
                   R"("source":{"component":"eventTest"},"type":"Normal"})"));

    // Unset timestamps are null, as Go marshals a zero metav1.Time.
    const QJsonObject empty = Event().toJson();
    QVERIFY(empty.value(QStringLiteral("firstTimestamp")).isNull());
    QVERIFY(!empty.contains(QStringLiteral("count")));
    QVERIFY(!empty.contains(QStringLiteral("message")));
    QCOMPARE(empty.value(QStringLiteral("source")).toObject(), QJsonObject());
}

void tst_Event::jsonRoundTrip()
{
    Event e;
    e.name = QStringLiteral("foo.178959f726d80ec");
    e.namespaceName = QStringLiteral("baz");
    e.resourceVersion = QStringLiteral("123");
    e.annotations = {{QStringLiteral("a"), QStringLiteral("b")}};
    e.involvedObject = *ObjectReference::getPartialReference(pod(), QStringLiteral("spec.x"));
    e.reason = QStringLiteral("Killed");
    e.message = QStringLiteral("killed it");
    e.source = {QStringLiteral("kubelet"), QStringLiteral("node1")};
    e.firstTimestamp = WallTime(std::chrono::seconds(1700000000));
    e.lastTimestamp = WallTime(std::chrono::seconds(1700000060));
    e.count = 4;
    e.type = EventTypeWarning;
    e.reportingController = QStringLiteral("kubelet");
    e.reportingInstance = QStringLiteral("node1");
    QCOMPARE(Event::fromJson(e.toJson()), e);
}

void tst_Event::timestamps()
{
    // Whole seconds in UTC: the nanoseconds are cut, as metav1.Time marshals.
    const WallTime t = WallTime(std::chrono::nanoseconds(1700000000999999999));
    QCOMPARE(Event::formatTimestamp(t), QStringLiteral("2023-11-14T22:13:20Z"));
    QCOMPARE(Event::parseTimestamp(QStringLiteral("2023-11-14T22:13:20Z")),
        WallTime(std::chrono::seconds(1700000000)));
    QCOMPARE(Event::parseTimestamp(QStringLiteral("2023-11-14T23:13:20+01:00")),
        WallTime(std::chrono::seconds(1700000000)));
    QCOMPARE(Event::parseTimestamp(QStringLiteral("not a time")), WallTime());
}

void tst_Event::goStringOfAReference()
{
    ObjectReference ref = *ObjectReference::getPartialReference(pod(), QStringLiteral("spec.a"));
    ref.resourceVersion.clear();
    QCOMPARE(ref.toGoString(),
        QStringLiteral(R"(v1.ObjectReference{Kind:"Pod", Namespace:"baz", Name:"foo", UID:"bar", )"
                       R"(APIVersion:"v1", ResourceVersion:"", FieldPath:"spec.a"})"));
    ref.name = QStringLiteral("a\"b\\c\n");
    QVERIFY(ref.toGoString().contains(QStringLiteral("Name:\"a\\\"b\\\\c\\n\"")));
}

void tst_Event::eventKeys()
{
    Event e;
    e.source = {QStringLiteral("c"), QStringLiteral("h")};
    e.involvedObject.kind = QStringLiteral("Pod");
    e.involvedObject.namespaceName = QStringLiteral("ns");
    e.involvedObject.name = QStringLiteral("n");
    e.involvedObject.fieldPath = QStringLiteral("f");
    e.involvedObject.uid = QStringLiteral("u");
    e.involvedObject.apiVersion = QStringLiteral("v1");
    e.type = EventTypeNormal;
    e.reason = QStringLiteral("R");
    e.message = QStringLiteral("m");
    // Joined with no separator, in client-go's order.
    QCOMPARE(getEventKey(e), QStringLiteral("chPodnsnfuv1NormalRm"));
    QCOMPARE(getSpamKey(e), QStringLiteral("chPodnsnuv1Normal"));
}

void tst_Event::eventfFormatsInOnePass()
{
    using record::detail::formatEventMessage;
    QCOMPARE(
        formatEventMessage(QStringLiteral("no arguments %1")), QStringLiteral("no arguments %1"));
    QCOMPARE(formatEventMessage(QStringLiteral("some verbose message: %1"), 1),
        QStringLiteral("some verbose message: 1"));
    // A replacement is not scanned again, unlike chained QString::arg calls.
    QCOMPARE(formatEventMessage(QStringLiteral("%1 and %2"), QStringLiteral("%2"), 7),
        QStringLiteral("%2 and 7"));
    QCOMPARE(formatEventMessage(QStringLiteral("%1/%2/%3/%4/%5"), "c-string", QByteArray("bytes"),
                 2.5, true, QVariant(42)),
        QStringLiteral("c-string/bytes/2.5/true/42"));
}

void tst_Event::fakeRecorder()
{
    FakeRecorder recorder;
    recorder.event(pod(), EventTypeNormal, QStringLiteral("Started"), QStringLiteral("started"));
    recorder.eventf(
        pod(), EventTypeWarning, QStringLiteral("Failed"), QStringLiteral("failed %1 times"), 3);
    recorder.annotatedEventf(pod(),
        {{QStringLiteral("k2"), QStringLiteral("v2")},
            {QStringLiteral("k1"), QStringLiteral("v1")}},
        EventTypeNormal, QStringLiteral("Synced"), QStringLiteral("synced %1"),
        QStringLiteral("foo"));
    QCOMPARE(recorder.takeEvents(),
        (QStringList {QStringLiteral("Normal Started started"),
            QStringLiteral("Warning Failed failed 3 times"),
            QStringLiteral("Normal Synced synced foo map[k1:v1 k2:v2]")}));
    QVERIFY(recorder.events().isEmpty());

    FakeRecorder withObject(true);
    withObject.event(pod(), EventTypeNormal, QStringLiteral("Started"), QStringLiteral("x"));
    QCOMPARE(withObject.events(),
        QStringList {QStringLiteral("Normal Started x involvedObject{kind=Pod,apiVersion=v1}")});
}

QTEST_GUILESS_MAIN(tst_Event)
#include "tst_event.moc"
