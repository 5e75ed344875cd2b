// SPDX-License-Identifier: Apache-2.0
// e2e: Events recorded through EventBroadcaster and RestEventSink on the real API server,
// checked with kubectl: an Event with every field the legacy recorder sets, identical Events
// counted into one, similar Events aggregated, the spam filter's 25, an Event deleted on the
// server created again with its count, and cluster-scoped objects' Events in "default".
#include "../e2esupport.h"

#include <qcm/record/eventbroadcaster.h>
#include <qcm/record/resteventsink.h>

#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QProcess>
#include <QtCore/QThread>
#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::client;
using namespace qcm::e2e;
using namespace qcm::record;

class tst_RecordE2e : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void eventIsCreatedWithItsFields();
    void identicalEventsAreCountedInOneEvent();
    void similarEventsAreAggregated();
    void spamFilterStopsAt25EventsPerObject();
    void deletedEventIsCreatedAgain();
    void clusterScopedObjectsEventsGoToDefault();

private:
    Object createConfigMap(const QString &name);
    // The core/v1 Events of `ns` about `object` (and, if set, with `reason`), as kubectl lists
    // them.
    QList<QJsonObject> events(
        const QString &ns, const QString &object, const QString &reason = {}) const;
    // Waits until `done` holds for events(); returns the last list seen.
    QList<QJsonObject> waitForEvents(const QString &ns, const QString &object,
        const QString &reason, const std::function<bool(const QList<QJsonObject> &)> &done) const;
    // Records a marker Event and waits for it: everything recorded before has been written.
    void flush();
    QByteArray kubectl(const QStringList &arguments) const;

    std::unique_ptr<RestClient> m_client;
    std::unique_ptr<EventBroadcaster> m_broadcaster;
    std::shared_ptr<EventRecorder> m_recorder;
    QString m_ns;
    QString m_kubectl;
    int m_markers = 0;
};

namespace {
const EventSource Source {QStringLiteral("qcm-e2e-record"), QStringLiteral("e2e-host")};
}

QByteArray tst_RecordE2e::kubectl(const QStringList &arguments) const
{
    QProcess process;
    process.start(m_kubectl,
        QStringList {
            QStringLiteral("--kubeconfig"), clusterDir() + QStringLiteral("/admin.kubeconfig")}
            + arguments);
    if (!process.waitForFinished(60000) || process.exitStatus() != QProcess::NormalExit
        || process.exitCode() != 0) {
        qWarning("kubectl %s failed: %s", qPrintable(arguments.join(QLatin1Char(' '))),
            process.readAllStandardError().constData());
        return {};
    }
    return process.readAllStandardOutput();
}

void tst_RecordE2e::initTestCase()
{
    QFile cluster(clusterDir() + QStringLiteral("/cluster.json"));
    QVERIFY(cluster.open(QIODevice::ReadOnly));
    m_kubectl = QJsonDocument::fromJson(cluster.readAll())
                    .object()
                    .value(QStringLiteral("kubectl"))
                    .toString();
    QVERIFY2(m_kubectl.contains(QLatin1String("kubectl-v1.36.3")), qPrintable(m_kubectl));

    m_client = std::make_unique<RestClient>(clusterConfig(QStringLiteral("admin")));
    m_ns = createNamespace(*m_client, QStringLiteral("record"));
    m_broadcaster = std::make_unique<EventBroadcaster>();
    m_broadcaster->startStructuredLogging();
    m_broadcaster->startRecordingToSink(std::make_shared<RestEventSink>(m_client.get()));
    m_recorder = m_broadcaster->newRecorder(Source);
}

void tst_RecordE2e::cleanupTestCase()
{
    m_broadcaster.reset();
    if (m_client && !m_ns.isEmpty())
        m_client->remove(Namespaces, {}, m_ns);
}

Object tst_RecordE2e::createConfigMap(const QString &name)
{
    const ObjectResult created = m_client->create(ConfigMaps, m_ns, configMap(m_ns, name));
    if (!created)
        qFatal("cannot create ConfigMap %s: %s", qPrintable(name),
            qPrintable(created.error().toString()));
    return *created;
}

QList<QJsonObject> tst_RecordE2e::events(
    const QString &ns, const QString &object, const QString &reason) const
{
    const QJsonArray items = QJsonDocument::fromJson(
        kubectl({QStringLiteral("get"), QStringLiteral("events"), QStringLiteral("-n"), ns,
            QStringLiteral("-o"), QStringLiteral("json")}))
                                 .object()
                                 .value(QStringLiteral("items"))
                                 .toArray();
    QList<QJsonObject> out;
    for (const QJsonValue &item : items) {
        const QJsonObject e = item.toObject();
        if (e.value(QStringLiteral("involvedObject")).toObject().value(QStringLiteral("name"))
                != object
            || (!reason.isEmpty() && e.value(QStringLiteral("reason")).toString() != reason))
            continue;
        out << e;
    }
    return out;
}

QList<QJsonObject> tst_RecordE2e::waitForEvents(const QString &ns, const QString &object,
    const QString &reason, const std::function<bool(const QList<QJsonObject> &)> &done) const
{
    QElapsedTimer timer;
    timer.start();
    QList<QJsonObject> list;
    do {
        list = events(ns, object, reason);
        if (done(list))
            break;
        QThread::msleep(200);
    } while (timer.elapsed() < 30000);
    return list;
}

void tst_RecordE2e::flush()
{
    const QString reason = QStringLiteral("Marker%1").arg(++m_markers);
    ObjectReference marker;
    marker.kind = QStringLiteral("ConfigMap");
    marker.apiVersion = QStringLiteral("v1");
    marker.namespaceName = m_ns;
    marker.name = QStringLiteral("marker");
    m_recorder->event(marker, EventTypeNormal, reason, QStringLiteral("flush"));
    const auto seen = waitForEvents(
        m_ns, marker.name, reason, [](const QList<QJsonObject> &l) { return !l.isEmpty(); });
    QVERIFY2(!seen.isEmpty(), "the marker event never arrived");
}

void tst_RecordE2e::eventIsCreatedWithItsFields()
{
    const Object cm = createConfigMap(QStringLiteral("fields"));
    m_recorder->annotatedEventf(cm, {{QStringLiteral("qcm.io/note"), QStringLiteral("e2e")}},
        EventTypeWarning, QStringLiteral("FailedSync"),
        QStringLiteral("sync of %1 failed %2 times"), cm.name(), 1);
    const auto list = waitForEvents(m_ns, cm.name(), QStringLiteral("FailedSync"),
        [](const QList<QJsonObject> &l) { return !l.isEmpty(); });
    QCOMPARE(list.size(), 1);
    const QJsonObject e = list.first();
    const QJsonObject metadata = e.value(QStringLiteral("metadata")).toObject();
    // "<object name>.<hex unix nanos>"
    QVERIFY2(QRegularExpression(QStringLiteral("^fields\\.[0-9a-f]{16}$"))
                 .match(metadata.value(QStringLiteral("name")).toString())
                 .hasMatch(),
        qPrintable(metadata.value(QStringLiteral("name")).toString()));
    QCOMPARE(metadata.value(QStringLiteral("namespace")).toString(), m_ns);
    QCOMPARE(metadata.value(QStringLiteral("annotations"))
                 .toObject()
                 .value(QStringLiteral("qcm.io/note"))
                 .toString(),
        QStringLiteral("e2e"));
    const QJsonObject involved = e.value(QStringLiteral("involvedObject")).toObject();
    QCOMPARE(involved.value(QStringLiteral("kind")).toString(), QStringLiteral("ConfigMap"));
    QCOMPARE(involved.value(QStringLiteral("apiVersion")).toString(), QStringLiteral("v1"));
    QCOMPARE(involved.value(QStringLiteral("namespace")).toString(), m_ns);
    QCOMPARE(involved.value(QStringLiteral("name")).toString(), cm.name());
    QCOMPARE(involved.value(QStringLiteral("uid")).toString(), cm.uid());
    QCOMPARE(involved.value(QStringLiteral("resourceVersion")).toString(), cm.resourceVersion());
    QCOMPARE(e.value(QStringLiteral("reason")).toString(), QStringLiteral("FailedSync"));
    QCOMPARE(e.value(QStringLiteral("message")).toString(),
        QStringLiteral("sync of fields failed 1 times"));
    QCOMPARE(e.value(QStringLiteral("type")).toString(), QStringLiteral("Warning"));
    QCOMPARE(e.value(QStringLiteral("count")).toInt(), 1);
    const QJsonObject source = e.value(QStringLiteral("source")).toObject();
    QCOMPARE(source.value(QStringLiteral("component")).toString(), Source.component);
    QCOMPARE(source.value(QStringLiteral("host")).toString(), Source.host);
    QCOMPARE(e.value(QStringLiteral("reportingComponent")).toString(), Source.component);
    QCOMPARE(e.value(QStringLiteral("reportingInstance")).toString(), Source.host);
    const QString first = e.value(QStringLiteral("firstTimestamp")).toString();
    QVERIFY(!first.isEmpty());
    QCOMPARE(e.value(QStringLiteral("lastTimestamp")).toString(), first);
    // Close to now: real wall-clock time.
    const QDateTime when = QDateTime::fromString(first, Qt::ISODate);
    QVERIFY2(qAbs(when.secsTo(QDateTime::currentDateTimeUtc())) < 120, qPrintable(first));
}

void tst_RecordE2e::identicalEventsAreCountedInOneEvent()
{
    const Object cm = createConfigMap(QStringLiteral("counted"));
    constexpr int N = 7;
    for (int i = 0; i < N; ++i)
        m_recorder->event(cm, EventTypeNormal, QStringLiteral("Synced"), QStringLiteral("synced"));
    const auto list
        = waitForEvents(m_ns, cm.name(), QStringLiteral("Synced"), [](const QList<QJsonObject> &l) {
              return l.size() == 1 && l.first().value(QStringLiteral("count")).toInt() == N;
          });
    flush();
    const auto settled = events(m_ns, cm.name(), QStringLiteral("Synced"));
    QCOMPARE(settled.size(), 1); // one Event, patched N - 1 times
    QCOMPARE(settled.first().value(QStringLiteral("count")).toInt(), N);
    QCOMPARE(settled.first().value(QStringLiteral("message")).toString(), QStringLiteral("synced"));
    QVERIFY(settled.first().value(QStringLiteral("lastTimestamp")).toString()
        >= settled.first().value(QStringLiteral("firstTimestamp")).toString());
    Q_UNUSED(list);
}

void tst_RecordE2e::similarEventsAreAggregated()
{
    const Object cm = createConfigMap(QStringLiteral("similar"));
    constexpr int N = 12;
    for (int i = 1; i <= N; ++i)
        m_recorder->eventf(cm, EventTypeWarning, QStringLiteral("BackOff"),
            QStringLiteral("attempt %1 failed"), i);
    flush();
    const auto list = events(m_ns, cm.name(), QStringLiteral("BackOff"));
    // Nine Events as recorded; from the tenth distinct message on, one aggregate Event counts
    // the rest (10, 11, 12: count 3) and carries the newest message.
    QList<QJsonObject> single;
    QList<QJsonObject> combined;
    for (const QJsonObject &e : list) {
        if (e.value(QStringLiteral("message"))
                .toString()
                .startsWith(QLatin1String("(combined from similar events): ")))
            combined << e;
        else
            single << e;
    }
    QCOMPARE(single.size(), DefaultAggregateMaxEvents - 1);
    for (const QJsonObject &e : single)
        QCOMPARE(e.value(QStringLiteral("count")).toInt(), 1);
    QCOMPARE(combined.size(), 1);
    QCOMPARE(combined.first().value(QStringLiteral("message")).toString(),
        QStringLiteral("(combined from similar events): attempt %1 failed").arg(N));
    QCOMPARE(
        combined.first().value(QStringLiteral("count")).toInt(), N - DefaultAggregateMaxEvents + 1);
    QCOMPARE(combined.first().value(QStringLiteral("type")).toString(), QStringLiteral("Warning"));
}

void tst_RecordE2e::spamFilterStopsAt25EventsPerObject()
{
    const Object cm = createConfigMap(QStringLiteral("spam"));
    for (int i = 0; i < 30; ++i)
        m_recorder->event(cm, EventTypeNormal, QStringLiteral("Spam"), QStringLiteral("again"));
    flush();
    const auto list = events(m_ns, cm.name(), QStringLiteral("Spam"));
    QCOMPARE(list.size(), 1);
    // 25 tokens, refilled one per 5 minutes: the last five are filtered out.
    QCOMPARE(list.first().value(QStringLiteral("count")).toInt(), DefaultSpamBurst);
}

void tst_RecordE2e::deletedEventIsCreatedAgain()
{
    const Object cm = createConfigMap(QStringLiteral("deleted"));
    for (int i = 0; i < 2; ++i)
        m_recorder->event(cm, EventTypeNormal, QStringLiteral("Again"), QStringLiteral("again"));
    auto list = waitForEvents(m_ns, cm.name(), QStringLiteral("Again"), [](const auto &l) {
        return l.size() == 1 && l.first().value(QStringLiteral("count")).toInt() == 2;
    });
    QCOMPARE(list.size(), 1);
    const QString name = list.first()
                             .value(QStringLiteral("metadata"))
                             .toObject()
                             .value(QStringLiteral("name"))
                             .toString();
    QVERIFY(!kubectl(
        {QStringLiteral("delete"), QStringLiteral("event"), QStringLiteral("-n"), m_ns, name})
                 .isEmpty());
    // The next occurrence's patch gets NotFound: the Event is created again, same name, count 3.
    m_recorder->event(cm, EventTypeNormal, QStringLiteral("Again"), QStringLiteral("again"));
    list = waitForEvents(
        m_ns, cm.name(), QStringLiteral("Again"), [](const auto &l) { return !l.isEmpty(); });
    QCOMPARE(list.size(), 1);
    QCOMPARE(list.first()
                 .value(QStringLiteral("metadata"))
                 .toObject()
                 .value(QStringLiteral("name"))
                 .toString(),
        name);
    QCOMPARE(list.first().value(QStringLiteral("count")).toInt(), 3);
}

void tst_RecordE2e::clusterScopedObjectsEventsGoToDefault()
{
    const ObjectResult ns = m_client->get(Namespaces, {}, m_ns);
    QVERIFY(ns);
    m_recorder->event(*ns, EventTypeNormal, QStringLiteral("Observed"), QStringLiteral("seen"));
    const auto list = waitForEvents(QStringLiteral("default"), m_ns, QStringLiteral("Observed"),
        [](const QList<QJsonObject> &l) { return !l.isEmpty(); });
    QCOMPARE(list.size(), 1);
    const QJsonObject involved = list.first().value(QStringLiteral("involvedObject")).toObject();
    QCOMPARE(involved.value(QStringLiteral("kind")).toString(), QStringLiteral("Namespace"));
    QVERIFY(!involved.contains(QStringLiteral("namespace")));
    kubectl({QStringLiteral("delete"), QStringLiteral("event"), QStringLiteral("-n"),
        QStringLiteral("default"),
        list.first()
            .value(QStringLiteral("metadata"))
            .toObject()
            .value(QStringLiteral("name"))
            .toString()});
}

QTEST_GUILESS_MAIN(tst_RecordE2e)
#include "tst_record.moc"
