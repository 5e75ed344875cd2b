// SPDX-License-Identifier: Apache-2.0
// Resource locks: the record's two encodings (annotation JSON, Lease spec), lock types by
// name, and MultiLock's rules for combining two locks (client-go's multilock.go).
// The Lease, ConfigMap and Endpoints locks themselves are tested on the real apiserver
// (tests/e2e/leaderelection).
#include <qcm/leaderelection/multilock.h>
#include <qcm/leaderelection/newresourcelock.h>

#include "fakelock.h"

#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::leaderelection;
using namespace qcm::leaderelection::testing;

namespace {

void settle()
{
    for (int i = 0; i < 20; ++i)
        QCoreApplication::sendPostedEvents();
}

template<typename T>
T await(QFuture<T> future)
{
    settle();
    if (!future.isFinished())
        qFatal("the lock call did not finish");
    return future.result();
}

QDateTime at(const char *iso)
{
    return QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODateWithMs);
}

} // namespace

class tst_ResourceLock : public QObject
{
    Q_OBJECT

private slots:
    void annotationForm();
    void annotationErrors_data();
    void annotationErrors();
    void annotationAsGoUnmarshals();
    void leaseSpecToLeaderElectionRecordRoundTrip();
    void lockTypesByName();
    void defaultIdentity();
    void multiLockGet();
    void multiLockOldClientHoldsPrimary();
    void multiLockCreate();
    void multiLockUpdateCreatesMissingSecondary();
    void multiLockSupersededUpdateStops();
};

void tst_ResourceLock::annotationForm()
{
    LeaderElectionRecord r;
    r.holderIdentity = QStringLiteral("node-1_6a1b");
    r.leaseDurationSeconds = 15;
    r.acquireTime = at("2024-03-01T10:00:00.250Z");
    r.renewTime = at("2024-03-01T10:00:07.900Z");
    r.leaderTransitions = 3;
    // client-go's json.Marshal of the record: field order, seconds precision.
    QCOMPARE(r.toAnnotation(),
        QByteArray(R"({"holderIdentity":"node-1_6a1b","leaseDurationSeconds":15,)"
                   R"("acquireTime":"2024-03-01T10:00:00Z","renewTime":"2024-03-01T10:00:07Z",)"
                   R"("leaderTransitions":3})"));
    auto back = LeaderElectionRecord::fromAnnotation(r.toAnnotation());
    QVERIFY(back.ok());
    QCOMPARE(back->holderIdentity, r.holderIdentity);
    QCOMPARE(back->acquireTime, at("2024-03-01T10:00:00Z"));
    QCOMPARE(back->leaderTransitions, 3);

    // Strings as Go's json.Marshal escapes them (HTML-safe; U+2028 and U+2029; controls).
    LeaderElectionRecord odd;
    odd.holderIdentity = QStringLiteral("a<b>&c\u2028\u2029\x01\b\f\t\x7f\"\\/\u00e9");
    QCOMPARE(odd.toAnnotation().left(odd.toAnnotation().indexOf(",\"leaseDuration")),
        QByteArray(R"({"holderIdentity":"a\u003cb\u003e\u0026c\u2028\u2029\u0001\b\f\t)") + "\x7f"
            + QByteArray(R"(\"\\/)") + "\xc3\xa9\"");
    QCOMPARE(LeaderElectionRecord::fromAnnotation(odd.toAnnotation())->holderIdentity,
        odd.holderIdentity);

    // What a released lock writes, and unset times.
    LeaderElectionRecord empty;
    QCOMPARE(empty.toAnnotation(),
        QByteArray(R"({"holderIdentity":"","leaseDurationSeconds":0,"acquireTime":null,)"
                   R"("renewTime":null,"leaderTransitions":0})"));
    QVERIFY(LeaderElectionRecord::fromAnnotation(empty.toAnnotation())->renewTime.isNull());
    // Written by client-go with sub-second digits or an offset.
    auto go = LeaderElectionRecord::fromAnnotation(
        R"({"holderIdentity":"a\"b","leaseDurationSeconds":10,"acquireTime":"2024-03-01T12:00:00.123456+02:00","renewTime":"2024-03-01T10:00:01Z","leaderTransitions":0})");
    QVERIFY(go.ok());
    QCOMPARE(go->holderIdentity, QStringLiteral("a\"b"));
    QCOMPARE(go->acquireTime, at("2024-03-01T10:00:00.123Z"));
}

void tst_ResourceLock::annotationErrors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("reason");
    const QString key = QString::fromLatin1(LeaderElectionRecordAnnotationKey);
    QTest::newRow("not json") << QByteArray("{holder") << key << QString();
    QTest::newRow("array") << QByteArray("[]") << key
                           << QStringLiteral("not a JSON object: not an object");
    QTest::newRow("holder") << QByteArray(R"({"holderIdentity":7})")
                            << key + QStringLiteral(".holderIdentity")
                            << QStringLiteral("must be a string");
    QTest::newRow("duration") << QByteArray(R"({"leaseDurationSeconds":"15"})")
                              << key + QStringLiteral(".leaseDurationSeconds")
                              << QStringLiteral("must be an integer");
    QTest::newRow("fraction") << QByteArray(R"({"leaderTransitions":1.5})")
                              << key + QStringLiteral(".leaderTransitions")
                              << QStringLiteral("must be an integer");
    QTest::newRow("time") << QByteArray(R"({"renewTime":"yesterday"})")
                          << key + QStringLiteral(".renewTime")
                          << QStringLiteral("must be an RFC 3339 time");
    // Go's time.Parse(time.RFC3339, …) refuses these; Qt's ISO 8601 parser took them.
    for (const char *time : {"2024-03-01T10:00:00", "2024-03-01 10:00:00Z", "2024-03-01t10:00:00Z",
             "2024-03-01T10:00:00z", "2024-03-01T10:00Z", "2024-13-01T10:00:00Z",
             "2024-02-30T10:00:00Z", "2024-03-01T24:00:00Z", "2024-03-01T10:00:60Z",
             "2024-03-01T10:00:00+0200", "2024-03-01T10:00:00+25:00", "2024-3-01T10:00:00Z",
             "20240301T100000Z", "2024-03-01T10:00:00.Z"}) {
        QTest::newRow(time) << QByteArray(R"({"acquireTime":")") + time + "\"}"
                            << key + QStringLiteral(".acquireTime")
                            << QStringLiteral("must be an RFC 3339 time");
    }
    QTest::newRow("time number") << QByteArray(R"({"acquireTime":1709287200})")
                                 << key + QStringLiteral(".acquireTime")
                                 << QStringLiteral("must be an RFC 3339 time");
}

// What Go's json.Unmarshal into the record accepts.
void tst_ResourceLock::annotationAsGoUnmarshals()
{
    // null leaves every field at its zero value, the holder included.
    auto nulls = LeaderElectionRecord::fromAnnotation(
        R"({"holderIdentity":null,"leaseDurationSeconds":null,"acquireTime":null,)"
        R"("renewTime":null,"leaderTransitions":null})");
    QVERIFY2(nulls.ok(), nulls ? "" : qPrintable(nulls.error().toString()));
    QCOMPARE(*nulls, LeaderElectionRecord());
    // Unknown fields are ignored (a v0.37 record's strategy and preferredHolder too).
    auto extra = LeaderElectionRecord::fromAnnotation(
        R"({"holderIdentity":"a","strategy":"OldestEmulationVersion","x":[1]})");
    QVERIFY(extra.ok());
    QCOMPARE(extra->holderIdentity, QStringLiteral("a"));
    QVERIFY(extra->strategy.isEmpty());
    // time.Parse(RFC3339) takes a one-digit hour, a comma before the fraction, any number of
    // fractional digits, and offsets up to 24:60.
    const struct
    {
        const char *text;
        const char *utc;
    } times[] = {{"2024-03-01T9:00:00Z", "2024-03-01T09:00:00.000Z"},
        {"2024-03-01T10:00:00,5Z", "2024-03-01T10:00:00.500Z"},
        {"2024-03-01T10:00:00.123456789Z", "2024-03-01T10:00:00.123Z"},
        {"2024-03-01T10:00:00-01:30", "2024-03-01T11:30:00.000Z"},
        {"2024-03-01T10:00:00+24:00", "2024-02-29T10:00:00.000Z"},
        {"2024-02-29T23:59:59Z", "2024-02-29T23:59:59.000Z"}};
    for (const auto &t : times) {
        auto r = LeaderElectionRecord::fromAnnotation(
            QByteArray(R"({"renewTime":")") + t.text + "\"}");
        QVERIFY2(r.ok(), t.text);
        QCOMPARE(r->renewTime.toString(Qt::ISODateWithMs), QString::fromLatin1(t.utc));
    }
}

void tst_ResourceLock::annotationErrors()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, field);
    QFETCH(QString, reason);
    auto r = LeaderElectionRecord::fromAnnotation(json);
    QVERIFY(!r);
    QCOMPARE(r.error().field, field);
    if (!reason.isEmpty())
        QCOMPARE(r.error().reason, reason);
    QVERIFY(!r.error().reason.isEmpty());
}

// client-go's TestLeaseSpecToLeaderElectionRecordRoundTrip, plus MicroTime's precision.
void tst_ResourceLock::leaseSpecToLeaderElectionRecordRoundTrip()
{
    const QJsonObject spec {{QStringLiteral("holderIdentity"), QStringLiteral("foo")},
        {QStringLiteral("leaseDurationSeconds"), 10},
        {QStringLiteral("acquireTime"), QStringLiteral("2024-03-01T10:00:00.123000Z")},
        {QStringLiteral("renewTime"), QStringLiteral("2024-03-01T10:00:05.456000Z")},
        {QStringLiteral("leaseTransitions"), 1}};
    const LeaderElectionRecord record = LeaderElectionRecord::fromLeaseSpec(spec);
    QCOMPARE(record.holderIdentity, QStringLiteral("foo"));
    QCOMPARE(record.leaseDurationSeconds, 10);
    QCOMPARE(record.leaderTransitions, 1);
    QCOMPARE(record.renewTime, at("2024-03-01T10:00:05.456Z"));
    QCOMPARE(record.toLeaseSpec(), spec);
    QCOMPARE(LeaderElectionRecord::fromLeaseSpec(record.toLeaseSpec()), record);

    // Coordinated election's fields are kept.
    QJsonObject coordinated = spec;
    coordinated.insert(QStringLiteral("strategy"), QStringLiteral("OldestEmulationVersion"));
    coordinated.insert(QStringLiteral("preferredHolder"), QStringLiteral("bar"));
    QCOMPARE(LeaderElectionRecord::fromLeaseSpec(coordinated).toLeaseSpec(), coordinated);
}

void tst_ResourceLock::lockTypesByName()
{
    auto unknown = newResourceLock(
        QStringLiteral("leasess"), QStringLiteral("ns"), QStringLiteral("name"), nullptr, {});
    QVERIFY(!unknown);
    QCOMPARE(unknown.error().field, QStringLiteral("lockType"));
    QCOMPARE(unknown.error().reason,
        QStringLiteral("invalid lock type \"leasess\"; valid types are leases, configmaps, "
                       "endpoints, endpointsleases, configmapsleases"));
    auto noClient = newResourceLock(
        QStringLiteral("leases"), QStringLiteral("ns"), QStringLiteral("name"), nullptr, {});
    QVERIFY(!noClient);
    QCOMPARE(noClient.error().field, QStringLiteral("client"));
    auto noName = newResourceLock(
        QStringLiteral("configmapsleases"), QStringLiteral("ns"), QString(), nullptr, {});
    QVERIFY(!noName);
    QCOMPARE(noName.error().field, QStringLiteral("name"));
}

void tst_ResourceLock::defaultIdentity()
{
    const QString a = leaderelection::defaultIdentity();
    const QString b = leaderelection::defaultIdentity();
    QVERIFY(a.startsWith(QSysInfo::machineHostName() + QLatin1Char('_')));
    QCOMPARE(a.size(), QSysInfo::machineHostName().size() + 1 + 36); // hostname_<uuid>
    QVERIFY(a != b);
}

void tst_ResourceLock::multiLockGet()
{
    auto *primary = new FakeLock(QStringLiteral("baz"));
    auto *secondary = new FakeLock(QStringLiteral("baz"));
    MultiLock lock {
        std::unique_ptr<ResourceLock>(primary), std::unique_ptr<ResourceLock>(secondary)};
    QCOMPARE(lock.identity(), QStringLiteral("baz"));
    QCOMPARE(lock.describe(), QStringLiteral("foo/bar"));

    QVERIFY(await(lock.get()).error().isNotFound()); // nothing yet

    primary->stored = holder(QStringLiteral("a"), 15);
    secondary->stored = holder(QStringLiteral("a"), 15);
    GetResult same = await(lock.get());
    QVERIFY(same.ok());
    QCOMPARE(same->record.holderIdentity, QStringLiteral("a"));
    QCOMPARE(same->raw, rawOf(*primary->stored) + ',' + rawOf(*secondary->stored));

    secondary->stored = holder(QStringLiteral("b"), 15);
    GetResult differ = await(lock.get());
    QVERIFY(differ.ok());
    QCOMPARE(differ->record.holderIdentity, QString::fromLatin1(UnknownLeader));
    QVERIFY(differ->raw.endsWith(',' + rawOf(*secondary->stored)));
}

void tst_ResourceLock::multiLockOldClientHoldsPrimary()
{
    auto *primary = new FakeLock(QStringLiteral("baz"));
    auto *secondary = new FakeLock(QStringLiteral("baz"));
    MultiLock lock {
        std::unique_ptr<ResourceLock>(primary), std::unique_ptr<ResourceLock>(secondary)};
    primary->stored = holder(QStringLiteral("old-client"), 15);
    GetResult old = await(lock.get());
    QVERIFY(old.ok()); // an old client, which knows only the primary, leads
    QCOMPARE(old->record.holderIdentity, QStringLiteral("old-client"));
    QCOMPARE(old->raw, rawOf(*primary->stored));

    primary->stored = holder(QStringLiteral("baz"), 15); // ours, but the secondary is gone
    QVERIFY(await(lock.get()).error().isNotFound());
}

void tst_ResourceLock::multiLockCreate()
{
    auto *primary = new FakeLock(QStringLiteral("baz"));
    auto *secondary = new FakeLock(QStringLiteral("baz"));
    MultiLock lock {
        std::unique_ptr<ResourceLock>(primary), std::unique_ptr<ResourceLock>(secondary)};
    primary->stored = holder(QStringLiteral("baz"), 15); // ours; the secondary is missing
    QVERIFY(await(lock.get()).error().isNotFound());
    QVERIFY(!await(lock.create(holder(QStringLiteral("baz"), 15)))); // AlreadyExists is fine
    QCOMPARE(secondary->stored->holderIdentity, QStringLiteral("baz"));
    QCOMPARE(primary->ops, (QStringList {QStringLiteral("get"), QStringLiteral("create")}));

    // Two candidates racing: the primary was missing when read, someone created it since.
    auto *p1 = new FakeLock(QStringLiteral("baz"));
    auto *s1 = new FakeLock(QStringLiteral("baz"));
    MultiLock raced {std::unique_ptr<ResourceLock>(p1), std::unique_ptr<ResourceLock>(s1)};
    QVERIFY(await(raced.get()).error().isNotFound());
    p1->writeByOther(holder(QStringLiteral("other"), 15));
    QVERIFY(await(raced.create(holder(QStringLiteral("baz"), 15)))->isAlreadyExists());
    QVERIFY(s1->ops.isEmpty()); // the secondary is left to the winner

    // Any other error of the primary stops there.
    auto *p2 = new FakeLock(QStringLiteral("baz"));
    auto *s2 = new FakeLock(QStringLiteral("baz"));
    MultiLock lock2 {std::unique_ptr<ResourceLock>(p2), std::unique_ptr<ResourceLock>(s2)};
    p2->onCreate = [](int, const LeaderElectionRecord &) -> std::optional<WriteResult> {
        return WriteResult(canceled());
    };
    QCOMPARE(
        await(lock2.create(holder(QStringLiteral("baz"), 15)))->reason, QStringLiteral("Canceled"));
    QVERIFY(s2->ops.isEmpty());
}

void tst_ResourceLock::multiLockUpdateCreatesMissingSecondary()
{
    auto *primary = new FakeLock(QStringLiteral("baz"));
    auto *secondary = new FakeLock(QStringLiteral("baz"));
    MultiLock lock {
        std::unique_ptr<ResourceLock>(primary), std::unique_ptr<ResourceLock>(secondary)};
    primary->stored = holder(QStringLiteral("old-client"), 15);
    QVERIFY(await(lock.get()).ok());
    QVERIFY(!await(lock.update(holder(QStringLiteral("baz"), 15))));
    QCOMPARE(primary->stored->holderIdentity, QStringLiteral("baz"));
    QCOMPARE(secondary->stored->holderIdentity, QStringLiteral("baz"));
    QCOMPARE(secondary->ops,
        (QStringList {QStringLiteral("get"), QStringLiteral("get"), QStringLiteral("create")}));

    // Next time both exist: primary then secondary are updated.
    QVERIFY(await(lock.get()).ok());
    QVERIFY(!await(lock.update(holder(QStringLiteral("baz"), 15))));
    QCOMPARE(secondary->ops.mid(3),
        (QStringList {QStringLiteral("get"), QStringLiteral("get"), QStringLiteral("update")}));
    // A primary that conflicts leaves the secondary alone.
    primary->writeByOther(holder(QStringLiteral("x"), 15));
    QVERIFY(await(lock.update(holder(QStringLiteral("baz"), 15)))->isConflict());
    QCOMPARE(secondary->ops.size(), 6);
}

// The elector abandons a call that hangs and makes a newer one; an update chain whose
// primary write answers only then must not go on to write the secondary (client-go's context
// cancellation stops it).
void tst_ResourceLock::multiLockSupersededUpdateStops()
{
    auto *primary = new FakeLock(QStringLiteral("baz"));
    auto *secondary = new FakeLock(QStringLiteral("baz"));
    MultiLock lock {
        std::unique_ptr<ResourceLock>(primary), std::unique_ptr<ResourceLock>(secondary)};
    primary->stored = holder(QStringLiteral("baz"), 15);
    secondary->stored = holder(QStringLiteral("baz"), 15);
    QVERIFY(await(lock.get()).ok());
    const int secondaryOps = secondary->ops.size();

    primary->holdUpdate = [](int) { return true; };
    QFuture<WriteResult> abandoned = lock.update(holder(QStringLiteral("baz"), 15));
    settle();
    QVERIFY(primary->heldUpdate); // the primary's write hangs; the elector gives up on it
    primary->holdUpdate = {};
    QFuture<GetResult> newer = lock.get();
    primary->finishHeldUpdate(primary->heldUpdateResult); // the write answers late
    QVERIFY(await(newer).ok());
    const WriteResult result = await(abandoned);
    QVERIFY(result);
    QCOMPARE(result->reason, QStringLiteral("Canceled"));
    // Only the newer get read the secondary; the abandoned chain did not touch it.
    QCOMPARE(secondary->ops.mid(secondaryOps), QStringList {QStringLiteral("get")});

    // A call that is not superseded still writes both.
    QVERIFY(!await(lock.update(holder(QStringLiteral("baz"), 15))));
    QCOMPARE(secondary->ops.last(), QStringLiteral("update"));
}

QTEST_GUILESS_MAIN(tst_ResourceLock)
#include "tst_resourcelock.moc"
