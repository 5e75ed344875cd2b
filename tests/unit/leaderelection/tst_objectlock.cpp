// SPDX-License-Identifier: Apache-2.0
// ObjectLock (through LeaseLock and ConfigMapLock) over a RestClient and a scripted local API
// server: calls may overlap (the elector abandons a call that hangs and makes a newer one), and the
// late reply of an older call must not replace the object, and so the resourceVersion, that a newer
// call read. (The locks against the real apiserver are in tests/e2e/leaderelection.)
#include <qcm/client/restclient.h>
#include <qcm/leaderelection/annotationlock.h>
#include <qcm/leaderelection/leaselock.h>
#include <qcm/record/eventrecorder.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QPointer>
#include <QtNetwork/QTcpServer>
#include <QtNetwork/QTcpSocket>
#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::client;
using namespace qcm::leaderelection;

namespace {

// An HTTP/1.1 server on the test's thread that answers only when the test says so.
class HeldServer : public QObject
{
public:
    struct Request
    {
        QByteArray method;
        QByteArray body;
        QPointer<QTcpSocket> socket;
    };

    HeldServer()
    {
        m_server.listen(QHostAddress::LocalHost, 0);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection())
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] { read(socket); });
        });
    }

    QUrl url() const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()));
    }

    QList<Request> requests;

    void reply(int index, const QJsonObject &body, const QByteArray &status = "200 OK")
    {
        const QByteArray json = QJsonDocument(body).toJson(QJsonDocument::Compact);
        requests[index].socket->write("HTTP/1.1 " + status
            + "\r\nContent-Type: application/json\r\n"
              "Content-Length: "
            + QByteArray::number(json.size()) + "\r\n\r\n" + json);
    }

    // A metav1.Status failure, as the apiserver sends it.
    void replyStatus(int index, int code, const char *reason)
    {
        const QJsonObject status {{QStringLiteral("kind"), QStringLiteral("Status")},
            {QStringLiteral("apiVersion"), QStringLiteral("v1")},
            {QStringLiteral("status"), QStringLiteral("Failure")},
            {QStringLiteral("reason"), QString::fromLatin1(reason)},
            {QStringLiteral("code"), code}};
        reply(index, status, QByteArray::number(code) + ' ' + reason);
    }

private:
    void read(QTcpSocket *socket)
    {
        QByteArray &data = m_unread[socket];
        data += socket->readAll();
        for (qsizetype headEnd; (headEnd = data.indexOf("\r\n\r\n")) >= 0;) {
            const QByteArray head = data.left(headEnd).toLower();
            const qsizetype at = head.indexOf("content-length:");
            const int length = at < 0
                ? 0
                : head.mid(at + 15, head.indexOf('\r', at) - at - 15).trimmed().toInt();
            if (data.size() < headEnd + 4 + length)
                return;
            requests << Request {
                data.left(data.indexOf(' ')), data.mid(headEnd + 4, length), socket};
            data.remove(0, headEnd + 4 + length);
        }
    }

    QTcpServer m_server;
    QHash<QTcpSocket *, QByteArray> m_unread;
};

QJsonObject lease(const char *resourceVersion, const char *holder)
{
    return QJsonObject {{QStringLiteral("apiVersion"), QStringLiteral("coordination.k8s.io/v1")},
        {QStringLiteral("kind"), QStringLiteral("Lease")},
        {QStringLiteral("metadata"),
            QJsonObject {{QStringLiteral("name"), QStringLiteral("lock")},
                {QStringLiteral("namespace"), QStringLiteral("ns")},
                {QStringLiteral("resourceVersion"), QString::fromLatin1(resourceVersion)}}},
        {QStringLiteral("spec"),
            QJsonObject {{QStringLiteral("holderIdentity"), QString::fromLatin1(holder)},
                {QStringLiteral("leaseDurationSeconds"), 15}}}};
}

QString resourceVersionOf(const QByteArray &body)
{
    return QJsonDocument::fromJson(body)
        .object()
        .value(QStringLiteral("metadata"))
        .toObject()
        .value(QStringLiteral("resourceVersion"))
        .toString();
}

LeaderElectionRecord mine()
{
    LeaderElectionRecord record;
    record.holderIdentity = QStringLiteral("me");
    record.leaseDurationSeconds = 15;
    return record;
}

// Keeps each Event it records as "<type> <reason> <message> <involvedObject in Go syntax>".
class RecordingRecorder : public record::EventRecorder
{
public:
    QStringList events;

protected:
    void generateEvent(const record::ObjectReference &reference, const QMap<QString, QString> &,
        const QString &type, const QString &reason, const QString &message) override
    {
        events << QStringList {type, reason, message, reference.toGoString()}.join(
            QLatin1Char(' '));
    }
};

} // namespace

class tst_ObjectLock : public QObject
{
    Q_OBJECT

private slots:
    void lateReplyDoesNotReplaceNewerObject();
    void failedGetKeepsTheObject();
    void failedCreateForgetsTheObject();
    void unreadableRecordIsRememberedAndOverwritten();
    void eventsAreAboutTheLockObject();
    void labelsAreWrittenOnCreateAndUpdate();
    void aPatchIsWhatTheNextUpdateWritesOver();
    void patchesAndUpdatesTakeTurns();
};

namespace {

// The Lease ns/lock of identity "me", over a RestClient to a HeldServer.
struct LockOnHeldServer
{
    explicit LockOnHeldServer(std::shared_ptr<record::EventRecorder> recorder = nullptr)
        : client(clientConfig(server))
        , lock(QStringLiteral("ns"), QStringLiteral("lock"), &client,
              ResourceLockConfig {QStringLiteral("me"), recorder})
    { }

    static RestConfig clientConfig(const HeldServer &server)
    {
        RestConfig config;
        config.server = server.url();
        config.qps = 0;
        return config;
    }

    // get(), answered with the Lease "me" holds at `resourceVersion`: whether it succeeded.
    bool getAnswered(const char *resourceVersion)
    {
        const qsizetype index = server.requests.size();
        QFuture<GetResult> read = lock.get();
        if (!QTest::qWaitFor([&] { return server.requests.size() > index; }))
            return false;
        server.reply(index, lease(resourceVersion, "me"));
        return QTest::qWaitFor([&] { return read.isFinished(); }) && read.result().ok();
    }

    HeldServer server;
    RestClient client;
    LeaseLock lock;
};

} // namespace

void tst_ObjectLock::lateReplyDoesNotReplaceNewerObject()
{
    LockOnHeldServer held;
    HeldServer &server = held.server;
    LeaseLock &lock = held.lock;

    // A get hangs; a newer get answers first, then the old one answers with an older version.
    QFuture<GetResult> abandoned = lock.get();
    QTRY_COMPARE(server.requests.size(), 1);
    QFuture<GetResult> newer = lock.get();
    QTRY_COMPARE(server.requests.size(), 2);
    server.reply(1, lease("7", "me"));
    QTRY_VERIFY(newer.isFinished());
    server.reply(0, lease("5", "other"));
    QTRY_VERIFY(abandoned.isFinished());
    QCOMPARE(abandoned.result()->record.holderIdentity, QStringLiteral("other")); // as read
    QFuture<WriteResult> update = lock.update(mine());
    QTRY_COMPARE(server.requests.size(), 3);
    QCOMPARE(server.requests[2].method, QByteArray("PUT"));
    QCOMPARE(resourceVersionOf(server.requests[2].body), QStringLiteral("7")); // not 5
    server.reply(2, lease("8", "me"));
    QTRY_VERIFY(update.isFinished());
    QVERIFY(!update.result());

    // An update hangs; a newer get answers first, then the update answers.
    QFuture<WriteResult> slow = lock.update(mine());
    QTRY_COMPARE(server.requests.size(), 4);
    QCOMPARE(resourceVersionOf(server.requests[3].body), QStringLiteral("8"));
    QFuture<GetResult> fresh = lock.get();
    QTRY_COMPARE(server.requests.size(), 5);
    server.reply(4, lease("10", "me"));
    QTRY_VERIFY(fresh.isFinished());
    server.reply(3, lease("9", "me"));
    QTRY_VERIFY(slow.isFinished());
    QVERIFY(!slow.result()); // its own outcome is still reported
    QFuture<WriteResult> next = lock.update(mine());
    QTRY_COMPARE(server.requests.size(), 6);
    QCOMPARE(resourceVersionOf(server.requests[5].body), QStringLiteral("10")); // not 9
    server.reply(5, lease("11", "me"));
    QTRY_VERIFY(next.isFinished());
}

// client-go's LeaseLock.Get assigns the lease only once the get succeeded: after a get that
// fails (a timeout, a 5xx, NotFound), the leader's optimistic update still writes over the
// version it last knew instead of failing without a request.
void tst_ObjectLock::failedGetKeepsTheObject()
{
    LockOnHeldServer held;
    HeldServer &server = held.server;
    LeaseLock &lock = held.lock;

    QVERIFY(held.getAnswered("7"));
    QFuture<GetResult> failed = lock.get();
    QTRY_COMPARE(server.requests.size(), 2);
    server.replyStatus(1, 500, "InternalError");
    QTRY_VERIFY(failed.isFinished());
    QVERIFY(!failed.result().ok());
    QFuture<GetResult> missing = lock.get();
    QTRY_COMPARE(server.requests.size(), 3);
    server.replyStatus(2, 404, "NotFound");
    QTRY_VERIFY(missing.isFinished());
    QVERIFY(missing.result().error().isNotFound());

    QFuture<WriteResult> update = lock.update(mine());
    QTRY_COMPARE(server.requests.size(), 4);
    QCOMPARE(server.requests[3].method, QByteArray("PUT"));
    QCOMPARE(resourceVersionOf(server.requests[3].body), QStringLiteral("7"));
    server.reply(3, lease("8", "me"));
    QTRY_VERIFY(update.isFinished());
    QVERIFY(!update.result());
}

// client-go's Create assigns what its client returns, an empty object when the create fails:
// no update can follow until a get.
void tst_ObjectLock::failedCreateForgetsTheObject()
{
    LockOnHeldServer held;
    HeldServer &server = held.server;
    LeaseLock &lock = held.lock;

    QVERIFY(held.getAnswered("7"));
    QFuture<WriteResult> create = lock.create(mine());
    QTRY_COMPARE(server.requests.size(), 2);
    QCOMPARE(server.requests[1].method, QByteArray("POST"));
    server.replyStatus(1, 409, "AlreadyExists");
    QTRY_VERIFY(create.isFinished());
    QVERIFY(create.result()->isAlreadyExists());

    QFuture<WriteResult> update = lock.update(mine());
    QTRY_VERIFY(update.isFinished());
    QVERIFY(update.result());
    QCOMPARE(update.result()->message,
        QStringLiteral("lease not initialized, call get or create first"));
    QTest::qWait(50);
    QCOMPARE(server.requests.size(), 2); // no request
}

// client-go's configMapLock/endpointsLock remember the object before they parse the record:
// the get fails, but a leader's next update writes a good record over the bad one.
void tst_ObjectLock::unreadableRecordIsRememberedAndOverwritten()
{
    HeldServer server;
    RestClient client(LockOnHeldServer::clientConfig(server));
    ConfigMapLock lock(QStringLiteral("ns"), QStringLiteral("lock"), &client,
        ResourceLockConfig {QStringLiteral("me"), nullptr});

    QJsonObject configMap {{QStringLiteral("apiVersion"), QStringLiteral("v1")},
        {QStringLiteral("kind"), QStringLiteral("ConfigMap")},
        {QStringLiteral("metadata"),
            QJsonObject {{QStringLiteral("name"), QStringLiteral("lock")},
                {QStringLiteral("namespace"), QStringLiteral("ns")},
                {QStringLiteral("resourceVersion"), QStringLiteral("5")},
                {QStringLiteral("annotations"),
                    QJsonObject {{QString::fromLatin1(LeaderElectionRecordAnnotationKey),
                        QStringLiteral("{not json")}}}}}};
    QFuture<GetResult> read = lock.get();
    QTRY_COMPARE(server.requests.size(), 1);
    server.reply(0, configMap);
    QTRY_VERIFY(read.isFinished());
    QVERIFY(!read.result().ok());
    QCOMPARE(read.result().error().reason, QStringLiteral("InvalidRecord"));

    QFuture<WriteResult> update = lock.update(mine());
    QTRY_COMPARE(server.requests.size(), 2);
    QCOMPARE(server.requests[1].method, QByteArray("PUT"));
    const QJsonObject written = QJsonDocument::fromJson(server.requests[1].body).object();
    QCOMPARE(resourceVersionOf(server.requests[1].body), QStringLiteral("5"));
    const QString annotation = written.value(QStringLiteral("metadata"))
                                   .toObject()
                                   .value(QStringLiteral("annotations"))
                                   .toObject()
                                   .value(QString::fromLatin1(LeaderElectionRecordAnnotationKey))
                                   .toString();
    QCOMPARE(annotation.toUtf8(), mine().toAnnotation());
    server.reply(1, configMap);
    QTRY_VERIFY(update.isFinished());
}

// client-go's LeaseLock.RecordEvent: a Normal LeaderElection Event "<identity> <event>" about
// the Lease as last read (uid and resourceVersion included), with its kind and apiVersion;
// before any read, about the Lease by namespace and name.
void tst_ObjectLock::eventsAreAboutTheLockObject()
{
    auto recorder = std::make_shared<RecordingRecorder>();
    LockOnHeldServer held(recorder);
    HeldServer &server = held.server;
    LeaseLock &lock = held.lock;

    lock.recordEvent(QStringLiteral("stopped leading"));
    QFuture<GetResult> read = lock.get();
    QTRY_COMPARE(server.requests.size(), 1);
    QJsonObject stored = lease("7", "me");
    QJsonObject metadata = stored.value(QStringLiteral("metadata")).toObject();
    metadata.insert(QStringLiteral("uid"), QStringLiteral("9b1c"));
    stored.insert(QStringLiteral("metadata"), metadata);
    server.reply(0, stored);
    QTRY_VERIFY(read.isFinished());
    lock.recordEvent(QStringLiteral("became leader"));
    QCOMPARE(recorder->events,
        (QStringList {QStringLiteral(R"(Normal LeaderElection me stopped leading )"
                                     R"(v1.ObjectReference{Kind:"Lease", Namespace:"ns", )"
                                     R"(Name:"lock", UID:"", APIVersion:"coordination.k8s.io/v1", )"
                                     R"(ResourceVersion:"", FieldPath:""})"),
            QStringLiteral(R"(Normal LeaderElection me became leader )"
                           R"(v1.ObjectReference{Kind:"Lease", Namespace:"ns", Name:"lock", )"
                           R"(UID:"9b1c", APIVersion:"coordination.k8s.io/v1", )"
                           R"(ResourceVersion:"7", FieldPath:""})")}));
}

// client-go's LeaseLock.Labels: on the new Lease, and over the Lease's own labels on update.
void tst_ObjectLock::labelsAreWrittenOnCreateAndUpdate()
{
    LockOnHeldServer held;
    HeldServer &server = held.server;
    LeaseLock &lock = held.lock;
    lock.setLabels({{QStringLiteral("scale-out.qcm.io/group"), QStringLiteral("g")}});
    const auto labelsOf = [](const QByteArray &body) {
        return QJsonDocument::fromJson(body)
            .object()
            .value(QStringLiteral("metadata"))
            .toObject()
            .value(QStringLiteral("labels"))
            .toObject();
    };

    QFuture<WriteResult> create = lock.create(mine());
    QTRY_COMPARE(server.requests.size(), 1);
    QCOMPARE(server.requests[0].method, QByteArray("POST"));
    QCOMPARE(labelsOf(server.requests[0].body),
        (QJsonObject {{QStringLiteral("scale-out.qcm.io/group"), QStringLiteral("g")}}));
    QJsonObject existing = lease("3", "me");
    QJsonObject metadata = existing.value(QStringLiteral("metadata")).toObject();
    metadata.insert(QStringLiteral("labels"),
        QJsonObject {{QStringLiteral("team"), QStringLiteral("a")},
            {QStringLiteral("scale-out.qcm.io/group"), QStringLiteral("old")}});
    existing.insert(QStringLiteral("metadata"), metadata);
    server.reply(0, existing);
    QTRY_VERIFY(create.isFinished());

    QFuture<WriteResult> update = lock.update(mine());
    QTRY_COMPARE(server.requests.size(), 2);
    QCOMPARE(labelsOf(server.requests[1].body),
        (QJsonObject {{QStringLiteral("team"), QStringLiteral("a")},
            {QStringLiteral("scale-out.qcm.io/group"), QStringLiteral("g")}}));
    server.reply(1, lease("4", "me"));
    QTRY_VERIFY(update.isFinished());
}

// The caller's own patch of the Lease (an annotation; resourceVersion 9) is what the next
// update writes over, annotation included; the reply to an update sent before it, arriving
// after it, does not replace it; an object of another name is ignored.
void tst_ObjectLock::aPatchIsWhatTheNextUpdateWritesOver()
{
    LockOnHeldServer held;
    HeldServer &server = held.server;
    LeaseLock &lock = held.lock;
    QVERIFY(held.getAnswered("7"));
    QFuture<GetResult> lateRead = lock.get(); // answered after the patch, with an older version
    QTRY_COMPARE(server.requests.size(), 2);

    QFuture<ObjectResult> patched
        = lock.patch(R"({"metadata":{"annotations":{"a":"b"}}})", "application/merge-patch+json");
    QTRY_COMPARE(server.requests.size(), 3);
    QCOMPARE(server.requests[2].method, QByteArray("PATCH"));
    QCOMPARE(server.requests[2].body, QByteArray(R"({"metadata":{"annotations":{"a":"b"}}})"));
    Object annotated(lease("9", "me"));
    annotated.setAnnotations({{QStringLiteral("scale-out.qcm.io/term"), QStringLiteral("ab")}});
    server.reply(2, annotated.json());
    QTRY_VERIFY(patched.isFinished());
    QVERIFY(patched.result());
    QCOMPARE(patched.result()->resourceVersion(), QStringLiteral("9"));
    server.reply(1, lease("8", "me"));
    QTRY_VERIFY(lateRead.isFinished());

    QFuture<WriteResult> next = lock.update(mine());
    QTRY_COMPARE(server.requests.size(), 4);
    const Object written(QJsonDocument::fromJson(server.requests[3].body).object());
    QCOMPARE(written.resourceVersion(), QStringLiteral("9"));
    QCOMPARE(
        written.annotations().value(QStringLiteral("scale-out.qcm.io/term")), QStringLiteral("ab"));
    server.reply(3, lease("11", "me"));
    QTRY_VERIFY(next.isFinished());
    QVERIFY(!next.result());

    // A failed patch changes nothing: the next update writes over the last update's reply.
    QFuture<ObjectResult> refused = lock.patch("[]", "application/json-patch+json");
    QTRY_COMPARE(server.requests.size(), 5);
    server.replyStatus(4, 422, "Unprocessable Entity");
    QTRY_VERIFY(refused.isFinished());
    QVERIFY(!refused.result());
    QFuture<WriteResult> after = lock.update(mine());
    QTRY_COMPARE(server.requests.size(), 6);
    QCOMPARE(resourceVersionOf(server.requests[5].body), QStringLiteral("11"));
    server.reply(5, lease("12", "me"));
    QTRY_VERIFY(after.isFinished());
}

// A renewal and a patch never cross on the wire, since the PUT would then carry a
// resourceVersion the patch had already replaced (Conflict): a patch waits for the updates in
// flight, and an update asked for meanwhile waits for the patch, and writes over its reply.
void tst_ObjectLock::patchesAndUpdatesTakeTurns()
{
    LockOnHeldServer held;
    HeldServer &server = held.server;
    LeaseLock &lock = held.lock;
    QVERIFY(held.getAnswered("7"));
    QFuture<WriteResult> renewal = lock.update(mine());
    QTRY_COMPARE(server.requests.size(), 2);
    QFuture<ObjectResult> patched = lock.patch("{}", "application/merge-patch+json");
    QFuture<WriteResult> nextRenewal = lock.update(mine());
    QTest::qWait(100);
    QCOMPARE(server.requests.size(), 2); // both wait for the renewal's answer

    server.reply(1, lease("8", "me"));
    QTRY_VERIFY(renewal.isFinished());
    QTRY_COMPARE(server.requests.size(), 3);
    QCOMPARE(server.requests[2].method, QByteArray("PATCH"));
    QTest::qWait(100);
    QCOMPARE(server.requests.size(), 3); // the next renewal waits for the patch's answer

    server.reply(2, lease("9", "me"));
    QTRY_VERIFY(patched.isFinished());
    QTRY_COMPARE(server.requests.size(), 4);
    QCOMPARE(server.requests[3].method, QByteArray("PUT"));
    QCOMPARE(resourceVersionOf(server.requests[3].body), QStringLiteral("9"));
    server.reply(3, lease("10", "me"));
    QTRY_VERIFY(nextRenewal.isFinished());
    QVERIFY(!nextRenewal.result());

    // Updates alone still overlap, as the elector's calls may (resourcelock.h).
    QFuture<WriteResult> first = lock.update(mine());
    QFuture<WriteResult> second = lock.update(mine());
    QTRY_COMPARE(server.requests.size(), 6);
    server.reply(5, lease("12", "me"));
    server.reply(4, lease("11", "me"));
    QTRY_VERIFY(first.isFinished() && second.isFinished());
}

QTEST_GUILESS_MAIN(tst_ObjectLock)
#include "tst_objectlock.moc"
