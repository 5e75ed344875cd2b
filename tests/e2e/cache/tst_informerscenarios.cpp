// SPDX-License-Identifier: Apache-2.0
// e2e: informers under load and under failure, on a real apiserver and etcd of their own
// (fixture e2e_cluster_disruptive: these tests restart and compact the cluster).
//
//   * 2000 ConfigMaps: after sync the cache equals `kubectl get`; then 1000 random creates,
//     updates and deletes from four writers: the cache converges to the server, and every
//     handler saw a consistent history per key (versions increase, only a re-create follows
//     a delete, no delete missed);
//   * kube-apiserver restarted during watches: the informer recovers and converges;
//   * etcd compacted while the watch is down: the watch gets 410, the informer relists and
//     emits tombstone deletes for exactly the objects removed meanwhile;
//   * WatchList streaming: the informer syncs from one watch, without a list;
//   * etcd stopped for 20 s, and the apiserver restarted meanwhile: the reflectors back off,
//     nothing crashes, and the informers converge afterwards.
#include <qcm/cache/sharedindexinformer.h>

#include "../e2esupport.h"

#include <QtCore/QProcess>
#include <QtCore/QRandomGenerator>
#include <QtTest/QtTest>

#include <condition_variable>
#include <thread>

using namespace qcm::cache;
using namespace qcm::client;
using namespace qcm::e2e;
using namespace std::chrono_literals;

namespace {

const GroupVersionResource PodTemplates {
    QString(), QStringLiteral("v1"), QStringLiteral("podtemplates")};

// Runs tests/e2e/cluster/cluster.py on the fixture's cluster; fails the test on error.
bool clusterCommand(const QStringList &arguments, int timeoutMs = 180000)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    process.start(QStringLiteral(QCM_PYTHON),
        QStringList {QStringLiteral(QCM_CLUSTER_PY)} + arguments
            + QStringList {QStringLiteral("--dir"), clusterDir()});
    if (!process.waitForFinished(timeoutMs) || process.exitCode() != 0) {
        qWarning("cluster.py %s failed: %s", qPrintable(arguments.join(QLatin1Char(' '))),
            qPrintable(process.errorString()));
        return false;
    }
    return true;
}

// name -> resourceVersion, as `kubectl get <resource> -n <ns> -o json` reports them.
QMap<QString, QString> kubectlGet(const QString &resource, const QString &ns)
{
    const QJsonObject cluster = QJsonDocument::fromJson([] {
        QFile f(clusterDir() + QStringLiteral("/cluster.json"));
        f.open(QIODevice::ReadOnly);
        return f.readAll();
    }())
                                    .object();
    QProcess kubectl;
    kubectl.start(cluster.value(QStringLiteral("kubectl")).toString(),
        {QStringLiteral("--kubeconfig"), clusterDir() + QStringLiteral("/admin.kubeconfig"),
            QStringLiteral("get"), resource, QStringLiteral("-n"), ns, QStringLiteral("-o"),
            QStringLiteral("json")});
    if (!kubectl.waitForFinished(60000) || kubectl.exitCode() != 0)
        qFatal("kubectl get %s failed: %s", qPrintable(resource),
            kubectl.readAllStandardError().constData());
    QMap<QString, QString> out;
    const QJsonArray items = QJsonDocument::fromJson(kubectl.readAllStandardOutput())
                                 .object()
                                 .value(u"items")
                                 .toArray();
    for (const QJsonValue &item : items) {
        const QJsonObject metadata = item.toObject().value(u"metadata").toObject();
        out.insert(
            metadata.value(u"name").toString(), metadata.value(u"resourceVersion").toString());
    }
    return out;
}

std::optional<QMap<QString, QString>> serverState(
    RestClient &client, const GroupVersionResource &resource, const QString &ns)
{
    QMap<QString, QString> out;
    auto list = client.list(resource, ns);
    if (!list)
        return std::nullopt;
    for (const Object &o : list->items)
        out.insert(o.name(), o.resourceVersion());
    return out;
}

QMap<QString, QString> cacheState(const SharedIndexInformer &informer)
{
    QMap<QString, QString> out;
    for (const Object &o : informer.indexer().list())
        out.insert(o.name(), o.resourceVersion());
    return out;
}

// Waits, delivering handler notifications, until the cache equals the server.
bool converges(RestClient &client, const SharedIndexInformer &informer,
    const GroupVersionResource &resource, const QString &ns, std::chrono::seconds timeout = 90s)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        const auto server = serverState(client, resource, ns);
        QTest::qWait(250); // deliver the handlers' notifications meanwhile
        if (server && cacheState(informer) == *server)
            return true;
    }
    return false;
}

// What one handler saw, per key: the history checked for consistency.
class History : public QObject
{
public:
    struct Event
    {
        char type; // 'A'dd, 'U'pdate, 'D'elete
        qint64 oldVersion; // updates: the old object's version
        qint64 version;
        bool tombstone;
    };

    ResourceEventHandler handler()
    {
        return {[this](const Object &o, bool) {
                    events[o.name()].append({'A', 0, version(o), false});
                },
            [this](const Object &old, const Object &o) {
                events[o.name()].append({'U', version(old), version(o), false});
            },
            [this](const Object &o, bool tombstone) {
                events[o.name()].append({'D', 0, version(o), tombstone});
            }};
    }

    // Every inconsistency, given what the server holds at the end.
    QStringList violations(const QMap<QString, QString> &server) const
    {
        QStringList out;
        for (auto it = events.begin(); it != events.end(); ++it) {
            const QString &key = it.key();
            bool live = false;
            qint64 last = 0;
            for (const Event &e : it.value()) {
                const QString where
                    = QStringLiteral("%1: %2@%3").arg(key).arg(e.type).arg(e.version);
                switch (e.type) {
                case 'A':
                    if (live)
                        out << where + QStringLiteral(" add of a live object");
                    if (e.version <= last)
                        out << where + QStringLiteral(" version did not increase");
                    live = true;
                    break;
                case 'U':
                    if (!live)
                        out << where + QStringLiteral(" update without a live object");
                    if (e.oldVersion != last)
                        out << where
                                + QStringLiteral(" old version %1 is not the last seen %2")
                                      .arg(e.oldVersion)
                                      .arg(last);
                    if (e.version <= last)
                        out << where + QStringLiteral(" version did not increase");
                    break;
                case 'D':
                    if (!live)
                        out << where + QStringLiteral(" delete without a live object");
                    if (e.version < last)
                        out << where + QStringLiteral(" delete older than the last version");
                    live = false;
                    break;
                }
                last = std::max(last, e.version);
            }
            const auto onServer = server.constFind(key);
            if (onServer == server.constEnd()) {
                if (live)
                    out << key + QStringLiteral(": deleted on the server, no delete seen");
            } else if (!live || it.value().last().version != onServer->toLongLong()) {
                out << key
                        + QStringLiteral(": server has %1, handler last saw %2")
                              .arg(*onServer)
                              .arg(it.value().last().version);
            }
        }
        for (auto it = server.begin(); it != server.end(); ++it)
            if (!events.contains(it.key()))
                out << it.key() + QStringLiteral(": on the server, never seen");
        return out;
    }

    int tombstones(QStringList *keys = nullptr) const
    {
        int n = 0;
        for (auto it = events.begin(); it != events.end(); ++it)
            for (const Event &e : it.value())
                if (e.type == 'D' && e.tombstone) {
                    ++n;
                    if (keys)
                        *keys << it.key();
                }
        return n;
    }

    QHash<QString, QList<Event>> events;

private:
    static qint64 version(const Object &o) { return o.resourceVersion().toLongLong(); }
};

// A ListerWatcher in front of the real one that the test can cut off: hold() stops the open
// watch and keeps every later list and watch waiting until release(). It records each call.
class GatedListerWatcher : public ListerWatcher
{
public:
    explicit GatedListerWatcher(ListerWatcher *inner) : m_inner(inner) { }

    qcm::Result<ObjectList, Status> list(const ListOptions &options) override
    {
        pass(QStringLiteral("list rv=") + options.resourceVersion);
        return m_inner->list(options);
    }
    qcm::Result<std::shared_ptr<WatchStream>, Status> watch(const ListOptions &options) override
    {
        pass((options.sendInitialEvents ? QStringLiteral("watchlist rv=")
                                        : QStringLiteral("watch rv="))
            + options.resourceVersion);
        auto opened = m_inner->watch(options);
        std::lock_guard lock(m_mutex);
        if (opened)
            m_current = *opened;
        return opened;
    }
    void hold()
    {
        std::shared_ptr<WatchStream> current;
        {
            std::lock_guard lock(m_mutex);
            m_held = true;
            current = m_current;
        }
        if (current)
            current->stop();
    }
    void release()
    {
        std::lock_guard lock(m_mutex);
        m_held = false;
        m_changed.notify_all();
    }
    QStringList calls() const
    {
        std::lock_guard lock(m_mutex);
        return m_calls;
    }
    int waiting() const
    {
        std::lock_guard lock(m_mutex);
        return m_waiting;
    }

private:
    void pass(const QString &call)
    {
        std::unique_lock lock(m_mutex);
        m_calls << call;
        ++m_waiting;
        m_changed.wait(lock, [&] { return !m_held; });
        --m_waiting;
    }

    ListerWatcher *const m_inner;
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_held = false;
    int m_waiting = 0;
    QStringList m_calls;
    std::shared_ptr<WatchStream> m_current;
};

Object podTemplate(const QString &ns, const QString &name)
{
    Object o;
    o.setApiVersion(QStringLiteral("v1"));
    o.setKind(QStringLiteral("PodTemplate"));
    o.setNamespaceName(ns);
    o.setName(name);
    o.json().insert(QStringLiteral("template"),
        QJsonObject {{QStringLiteral("spec"),
            QJsonObject {{QStringLiteral("containers"),
                QJsonArray {QJsonObject {{QStringLiteral("name"), QStringLiteral("c")},
                    {QStringLiteral("image"), QStringLiteral("busybox")}}}}}}});
    return o;
}

// Runs `perThread(index)` on `threads` threads at once and joins them.
void inParallel(int threads, const std::function<void(int)> &perThread)
{
    std::vector<std::thread> running;
    for (int t = 0; t < threads; ++t)
        running.emplace_back(perThread, t);
    for (auto &t : running)
        t.join();
}

} // namespace

class tst_InformerScenarios : public QObject
{
    Q_OBJECT

private slots:
    void concurrentWritersConverge();
    void apiserverRestart();
    void compactionRelistEmitsTombstones();
    void etcdOutage();
    void watchListStreaming();
};

void tst_InformerScenarios::concurrentWritersConverge()
{
    RestClient client(clusterConfig(QStringLiteral("admin"), 2000, 2000));
    const QString ns = createNamespace(client, QStringLiteral("writers"));
    constexpr int initial = 2000;
    std::atomic<int> createFailures {0};
    inParallel(8, [&](int t) {
        for (int i = t; i < initial; i += 8)
            if (!client.create(ConfigMaps, ns,
                    configMap(ns, QStringLiteral("cm-%1").arg(i),
                        {{QStringLiteral("v"), QString::number(i)}})))
                ++createFailures;
    });
    QCOMPARE(createFailures.load(), 0);

    RestListerWatcher lw(&client, ConfigMaps, ns);
    SharedIndexInformer informer(&lw, {});
    History first, second;
    informer.addEventHandler(&first, first.handler());
    informer.addEventHandler(&second, second.handler());
    informer.start();
    QVERIFY(waitForCacheSync({&informer}, 120s));
    QCOMPARE(cacheState(informer), kubectlGet(QStringLiteral("configmaps"), ns));

    // 1000 random writes from four writers over 2500 names: creates, merge patches, deletes.
    std::atomic<int> succeeded {0};
    inParallel(4, [&](int t) {
        QRandomGenerator random(quint32(1000 + t));
        for (int op = 0; op < 250; ++op) {
            const QString name = QStringLiteral("cm-%1").arg(random.bounded(2500));
            const int kind = random.bounded(3);
            bool ok = false;
            if (kind == 0)
                ok = client
                         .create(ConfigMaps, ns,
                             configMap(ns, name,
                                 {{QStringLiteral("v"), QString::number(random.generate())}}))
                         .ok();
            else if (kind == 1)
                ok = client
                         .patch(ConfigMaps, ns, name, PatchType::Merge,
                             QStringLiteral(R"({"data":{"v":"%1"}})")
                                 .arg(random.generate())
                                 .toUtf8())
                         .ok();
            else
                ok = client.remove(ConfigMaps, ns, name).ok();
            if (ok)
                ++succeeded;
        }
    });
    qInfo("%d of 1000 random writes succeeded (the others hit missing or existing names)",
        succeeded.load());
    QVERIFY(succeeded > 300);

    QVERIFY(converges(client, informer, ConfigMaps, ns));
    const QMap<QString, QString> server = kubectlGet(QStringLiteral("configmaps"), ns);
    QCOMPARE(cacheState(informer), server);
    QTRY_VERIFY_WITH_TIMEOUT(first.violations(server).isEmpty(), 30000);
    QVERIFY2(first.violations(server).isEmpty(),
        qPrintable(first.violations(server).mid(0, 20).join(QLatin1Char('\n'))));
    QVERIFY2(second.violations(server).isEmpty(),
        qPrintable(second.violations(server).mid(0, 20).join(QLatin1Char('\n'))));
    QCOMPARE(first.tombstones(), 0); // the watch never broke: every delete is a real one
    informer.stop();
}

void tst_InformerScenarios::apiserverRestart()
{
    RestClient client(clusterConfig(QStringLiteral("admin"), 1000, 1000));
    const QString ns = createNamespace(client, QStringLiteral("restart"));
    for (int i = 0; i < 50; ++i)
        QVERIFY(client.create(ConfigMaps, ns, configMap(ns, QStringLiteral("cm-%1").arg(i))));
    RestListerWatcher lw(&client, ConfigMaps, ns);
    SharedIndexInformer informer(&lw, {});
    History history;
    informer.addEventHandler(&history, history.handler());
    informer.start();
    QVERIFY(waitForCacheSync({&informer}, 60s));

    QVERIFY(clusterCommand({QStringLiteral("restart"), QStringLiteral("--component"),
        QStringLiteral("kube-apiserver")}));
    // Writes after the restart reach the informer through its re-established watch.
    for (int i = 0; i < 10; ++i) {
        QVERIFY(client.remove(ConfigMaps, ns, QStringLiteral("cm-%1").arg(i)));
        QVERIFY(client.patch(ConfigMaps, ns, QStringLiteral("cm-%1").arg(10 + i), PatchType::Merge,
            R"({"data":{"after":"restart"}})"));
        QVERIFY(client.create(ConfigMaps, ns, configMap(ns, QStringLiteral("new-%1").arg(i))));
    }
    QVERIFY(converges(client, informer, ConfigMaps, ns));
    const QMap<QString, QString> server = kubectlGet(QStringLiteral("configmaps"), ns);
    QCOMPARE(cacheState(informer), server);
    QTRY_VERIFY_WITH_TIMEOUT(history.violations(server).isEmpty(), 30000);
    informer.stop();
}

void tst_InformerScenarios::compactionRelistEmitsTombstones()
{
    // PodTemplates bypass the apiserver's watch cache in this cluster, so a watch from a
    // compacted version reaches etcd and gets 410 Gone.
    RestClient client(clusterConfig(QStringLiteral("admin"), 1000, 1000));
    const QString ns = createNamespace(client, QStringLiteral("compact"));
    for (int i = 0; i < 10; ++i)
        QVERIFY(client.create(PodTemplates, ns, podTemplate(ns, QStringLiteral("pt-%1").arg(i))));
    RestListerWatcher rest(&client, PodTemplates, ns);
    GatedListerWatcher gate(&rest);
    SharedIndexInformer informer(&gate, {});
    History history;
    informer.addEventHandler(&history, history.handler());
    informer.start();
    QVERIFY(waitForCacheSync({&informer}, 60s));
    QTest::qWait(1500); // a watch that ends within 1 s would count as an error and relist
    const int callsBefore = gate.calls().size();

    gate.hold();
    QTRY_VERIFY_WITH_TIMEOUT(gate.waiting() == 1, 20000); // the reflector re-watches, and waits
    const QString heldCall = gate.calls().last();
    QVERIFY2(heldCall.startsWith(QLatin1String("watch rv=")), qPrintable(heldCall));
    QStringList deleted;
    for (int i = 0; i < 4; ++i) {
        deleted << QStringLiteral("pt-%1").arg(i);
        QVERIFY(client.remove(PodTemplates, ns, deleted.last()));
    }
    QVERIFY(client.create(PodTemplates, ns, podTemplate(ns, QStringLiteral("pt-new-a"))));
    QVERIFY(client.create(PodTemplates, ns, podTemplate(ns, QStringLiteral("pt-new-b"))));
    QVERIFY(clusterCommand({QStringLiteral("compact")}));
    gate.release();

    QVERIFY(converges(client, informer, PodTemplates, ns));
    // The held watch resumed from the old version, got 410, and the informer listed again
    // (a WatchList stream, or a list if the server refused the stream).
    const QStringList after = gate.calls().mid(callsBefore);
    QVERIFY2(after.size() >= 2 && after.at(0).startsWith(QLatin1String("watch rv="))
            && std::any_of(after.begin() + 1, after.end(),
                [](const QString &c) {
                    return c.startsWith(QLatin1String("list"))
                        || c.startsWith(QLatin1String("watchlist"));
                }),
        qPrintable(after.join(QStringLiteral(", "))));
    const QMap<QString, QString> server = kubectlGet(QStringLiteral("podtemplates"), ns);
    QCOMPARE(cacheState(informer), server);
    QTRY_VERIFY_WITH_TIMEOUT(history.violations(server).isEmpty(), 30000);
    // Exactly the objects removed while the watch was down come as tombstones.
    QStringList tombstoned;
    history.tombstones(&tombstoned);
    tombstoned.sort();
    QCOMPARE(tombstoned, deleted);
    QVERIFY(history.events.value(QStringLiteral("pt-new-a")).value(0).type == 'A');
    informer.stop();
}

void tst_InformerScenarios::etcdOutage()
{
    // While etcd is down the apiserver keeps open watches open (its etcd client resumes them
    // afterwards), and informers see nothing at all (measured: no error in 20 s, even with
    // their watches cut). So, as in a real control plane whose apiserver fails its liveness
    // check without etcd, the apiserver restarts during the outage too (and keeps exiting
    // until etcd is back): the reflectors meet refused connections and back off.
    RestClient client(clusterConfig(QStringLiteral("admin"), 1000, 1000));
    const QString ns = createNamespace(client, QStringLiteral("outage"));
    for (int i = 0; i < 20; ++i) {
        QVERIFY(client.create(ConfigMaps, ns, configMap(ns, QStringLiteral("cm-%1").arg(i))));
        QVERIFY(client.create(PodTemplates, ns, podTemplate(ns, QStringLiteral("pt-%1").arg(i))));
    }
    RestListerWatcher configMapsLw(&client, ConfigMaps, ns);
    RestListerWatcher podTemplatesLw(&client, PodTemplates, ns);
    SharedIndexInformer configMaps(&configMapsLw, {});
    SharedIndexInformer podTemplates(&podTemplatesLw, {});
    std::atomic<int> watchErrors {0};
    for (SharedIndexInformer *informer : {&configMaps, &podTemplates})
        informer->setWatchErrorHandler([&](const Status &status) {
            ++watchErrors;
            qInfo("list and watch error: %s", qPrintable(status.toString()));
        });
    History configMapHistory, podTemplateHistory;
    configMaps.addEventHandler(&configMapHistory, configMapHistory.handler());
    podTemplates.addEventHandler(&podTemplateHistory, podTemplateHistory.handler());
    configMaps.start();
    podTemplates.start();
    QVERIFY(waitForCacheSync({&configMaps, &podTemplates}, 60s));
    QVERIFY(clusterCommand(
        {QStringLiteral("restart"), QStringLiteral("--component"), QStringLiteral("etcd"),
            QStringLiteral("--down"), QStringLiteral("20"), QStringLiteral("--with-apiserver")}));
    qInfo("%d list-and-watch errors during the outage", watchErrors.load());
    QVERIFY(watchErrors > 0); // the reflector met the outage and backed off
    for (int i = 0; i < 5; ++i) {
        QVERIFY(client.remove(ConfigMaps, ns, QStringLiteral("cm-%1").arg(i)));
        QVERIFY(client.create(ConfigMaps, ns, configMap(ns, QStringLiteral("new-%1").arg(i))));
        QVERIFY(client.remove(PodTemplates, ns, QStringLiteral("pt-%1").arg(i)));
        QVERIFY(client.create(PodTemplates, ns, podTemplate(ns, QStringLiteral("new-%1").arg(i))));
    }
    QVERIFY(converges(client, configMaps, ConfigMaps, ns));
    QVERIFY(converges(client, podTemplates, PodTemplates, ns));
    const QMap<QString, QString> configMapsOnServer = kubectlGet(QStringLiteral("configmaps"), ns);
    const QMap<QString, QString> podTemplatesOnServer
        = kubectlGet(QStringLiteral("podtemplates"), ns);
    QCOMPARE(cacheState(configMaps), configMapsOnServer);
    QCOMPARE(cacheState(podTemplates), podTemplatesOnServer);
    QTRY_VERIFY_WITH_TIMEOUT(configMapHistory.violations(configMapsOnServer).isEmpty()
            && podTemplateHistory.violations(podTemplatesOnServer).isEmpty(),
        30000);
    configMaps.stop();
    podTemplates.stop();
}

// WatchList streaming on the real apiserver, the default (KUBE_FEATURE_WatchListClient
// unset): no list request at all, the cache equals the server, and the stream goes on as the
// watch.
void tst_InformerScenarios::watchListStreaming()
{
    RestClient client(clusterConfig(QStringLiteral("admin"), 1000, 1000));
    const QString ns = createNamespace(client, QStringLiteral("watchlist"));
    for (int i = 0; i < 30; ++i)
        QVERIFY(client.create(ConfigMaps, ns, configMap(ns, QStringLiteral("cm-%1").arg(i))));
    RestListerWatcher rest(&client, ConfigMaps, ns);
    GatedListerWatcher recorded(&rest); // never held: it only records the calls
    const SharedIndexInformer::Options options;
    QVERIFY(options.useWatchList);
    SharedIndexInformer informer(&recorded, options);
    History history;
    informer.addEventHandler(&history, history.handler());
    informer.start();
    QVERIFY(waitForCacheSync({&informer}, 60s));
    QCOMPARE(cacheState(informer), kubectlGet(QStringLiteral("configmaps"), ns));
    QVERIFY(client.remove(ConfigMaps, ns, QStringLiteral("cm-0")));
    QVERIFY(client.create(ConfigMaps, ns, configMap(ns, QStringLiteral("late"))));
    QVERIFY(converges(client, informer, ConfigMaps, ns));
    const QMap<QString, QString> server = kubectlGet(QStringLiteral("configmaps"), ns);
    QTRY_VERIFY_WITH_TIMEOUT(history.violations(server).isEmpty(), 30000);
    const QStringList calls = recorded.calls();
    QVERIFY2(calls.size() == 1 && calls.first() == QLatin1String("watchlist rv="),
        qPrintable(calls.join(QStringLiteral(", "))));
    informer.stop();
}

QTEST_GUILESS_MAIN(tst_InformerScenarios)
#include "tst_informerscenarios.moc"
