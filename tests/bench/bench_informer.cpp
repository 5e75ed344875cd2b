// SPDX-License-Identifier: Apache-2.0
// qcm's side of the informer benchmarks against a real apiserver, beside
// go/informerbench (client-go). run_bench.py --qcm-informer runs both, each in its own
// process, and prints the ratios.
//
//   qcm_bench_informer sync    --kubeconfig K --namespace NS --resource configmaps|pods
//                              --expect N [--settle S]
//       Cold sync: one informer from the SharedInformerFactory with one handler (on the main
//       thread's event loop). Prints JSON: syncMs (start() until hasSynced), handlerSyncMs
//       (until the handler has seen every initial add), rssStartKiB, rssKiB, peakRssKiB
//       (VmHWM, the process's peak), cpuSeconds, and with --settle S rssSteadyKiB: the RSS
//       after S more seconds with the informer running and nothing changing.
//   qcm_bench_informer latency --kubeconfig K --namespace NS --expect N --updates M
//       Syncs a ConfigMap informer, prints READY, then its update handler records
//       now - data.ts (the Unix ns at which `informerbench update` sent the patch) for M
//       updates. Prints JSON: p50Ms, p90Ms, p99Ms, maxMs, cpuSeconds, peakRssKiB. With
//       --stages, a transform (which runs where the event is stored: the REST client's I/O
//       thread) also records now - data.ts: storeP50Ms, storeP99Ms, the part of the latency
//       before the last hop to the handler's thread (it reads data.ts, so it costs a little).
//   qcm_bench_informer latency-floor --kubeconfig K --namespace NS --expect N --updates M
//       The lower bound of the latency for any informer that keeps qcm's handler contract on
//       Qt: no informer, no decoding. A QSslSocket on a thread of its own reads the JSON watch
//       (HTTP/1.1, as the dedicated transport: a list of one for the version, then the watch
//       from it, as informerbench's -client raw) and finds each MODIFIED line's data.ts by a
//       byte search; each read's timestamps go to the main thread's event loop in one queued
//       call, where now - data.ts is recorded. So an event wakes the reading thread and the
//       receiver, the two wakes the contract needs, and nothing else runs. Prints latency's
//       JSON.
//
// The RestClient has no client-side rate limit (qps 0), as on the client-go side (QPS -1).
// It decodes with the default codec (LazyJsonCodec), or with QtJsonCodec when
// QCM_BENCH_CODEC=qtjson (to compare the two; run_bench.py does not set it). Its watches take
// the default transport (a dedicated HTTP/1.1 connection each), or the requests' HTTP/2
// connection when QCM_BENCH_WATCH_TRANSPORT=shared (RESULTS.md run 24 compares the two).
#include <qcm/api/core/v1.h>
#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/client/kubeconfig.h>

#include "../../sdk/src/client/http1response_p.h"

#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>
#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QThread>
#include <QtCore/QTimer>
#include <QtCore/QUrlQuery>
#include <QtNetwork/QSslCertificate>
#include <QtNetwork/QSslConfiguration>
#include <QtNetwork/QSslSocket>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <optional>

using namespace qcm;
using namespace qcm::cache;
using namespace qcm::client;

namespace {

[[noreturn]] void fail(const QString &message)
{
    std::fprintf(stderr, "qcm_bench_informer: %s\n", qPrintable(message));
    std::fflush(stderr);
    std::_Exit(1);
}

struct Memory
{
    qint64 rssKiB = 0;
    qint64 peakKiB = 0;
};

// VmRSS and VmHWM from /proc/self/status, as the Go side reads them.
Memory memory()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        fail(QStringLiteral("cannot read /proc/self/status"));
    Memory m;
    for (const QByteArray &line : status.readAll().split('\n')) {
        const QList<QByteArray> fields = line.simplified().split(' ');
        if (fields.size() < 2)
            continue;
        if (fields[0] == "VmRSS:")
            m.rssKiB = fields[1].toLongLong();
        else if (fields[0] == "VmHWM:")
            m.peakKiB = fields[1].toLongLong();
    }
    return m;
}

double cpuSeconds()
{
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

double msSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

void printJson(const QJsonObject &object)
{
    std::printf("%s\n", QJsonDocument(object).toJson(QJsonDocument::Compact).constData());
    std::fflush(stdout);
}

qint64 nowUnixNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::system_clock::now().time_since_epoch())
        .count();
}

double percentile(const std::vector<qint64> &sorted, double p)
{
    if (sorted.empty())
        return 0;
    return double(sorted[size_t(p * double(sorted.size() - 1) + 0.5)]) / 1e6;
}

struct Setup
{
    QString kubeconfig;
    QString namespaceName;
    QString resource;
    int expect = 0;
    int updates = 0;
    int timeoutSeconds = 300;
    int settleSeconds = 0;
    bool stages = false;
};

void useBenchCodec(RestClient &client)
{
    static const QtJsonCodec qtJson;
    if (qgetenv("QCM_BENCH_CODEC") == "qtjson")
        client.setCodec(&qtJson);
}

RestConfig restConfig(const QString &path)
{
    auto kubeconfig = KubeConfig::loadFile(path);
    if (!kubeconfig)
        fail(kubeconfig.error().toString());
    auto config = kubeconfig->restConfig();
    if (!config)
        fail(config.error().toString());
    config->qps = 0; // no client-side rate limit
    if (qgetenv("QCM_BENCH_WATCH_TRANSPORT") == "shared")
        config->watchTransport = RestConfig::WatchTransport::Shared;
    return *config;
}

GroupVersionResource resourceOf(const QString &name)
{
    if (name != QLatin1String("configmaps") && name != QLatin1String("pods"))
        fail(QStringLiteral("--resource: configmaps or pods, not \"%1\"").arg(name));
    return {QString(), QStringLiteral("v1"), name};
}

// Fails the run if nothing happened in time.
void armTimeout(int seconds, const char *what)
{
    auto *timer = new QTimer(QCoreApplication::instance());
    timer->setSingleShot(true);
    QObject::connect(timer, &QTimer::timeout, [what, seconds] {
        fail(QStringLiteral("%1 not done after %2 s").arg(QLatin1String(what)).arg(seconds));
    });
    timer->start(seconds * 1000);
}

int runSync(const Setup &setup)
{
    const Memory atStart = memory();
    RestClient client(restConfig(setup.kubeconfig));
    useBenchCodec(client);
    SharedInformerFactory factory(&client, Duration::zero());
    SharedIndexInformer *informer
        = factory.informerFor(resourceOf(setup.resource), {setup.namespaceName, {}, {}, false});

    // Done when the informer has synced (synced(), from its reflector thread) and the
    // handler has seen every initial add (on this thread), in whichever order they come.
    QObject receiver;
    int adds = 0;
    std::chrono::steady_clock::time_point began;
    std::atomic<double> syncMs {-1};
    double handlerSyncMs = -1;
    auto quitWhenDone = [&] {
        if (syncMs.load() >= 0 && handlerSyncMs >= 0)
            QCoreApplication::quit();
    };
    QObject::connect(
        informer, &SharedIndexInformer::synced, informer,
        [&] {
            syncMs = msSince(began);
            QMetaObject::invokeMethod(&receiver, quitWhenDone, Qt::QueuedConnection);
        },
        Qt::DirectConnection);
    informer->addEventHandler(&receiver,
        {[&](const Object &, bool) {
             if (++adds == setup.expect) {
                 handlerSyncMs = msSince(began);
                 quitWhenDone();
             }
         },
            {}, {}});
    armTimeout(setup.timeoutSeconds, "the sync");
    began = std::chrono::steady_clock::now();
    factory.start();
    QCoreApplication::exec();
    const Memory after = memory();
    const double cpu = cpuSeconds();
    qint64 steadyKiB = -1;
    if (setup.settleSeconds > 0) {
        QTimer::singleShot(setup.settleSeconds * 1000, qApp, &QCoreApplication::quit);
        QCoreApplication::exec();
        steadyKiB = memory().rssKiB;
    }
    if (informer->indexer().size() != setup.expect)
        fail(QStringLiteral("the cache holds %1 objects, expected %2")
                 .arg(informer->indexer().size())
                 .arg(setup.expect));
    printJson({{QStringLiteral("syncMs"), syncMs.load()},
        {QStringLiteral("handlerSyncMs"), handlerSyncMs}, {QStringLiteral("objects"), setup.expect},
        {QStringLiteral("rssStartKiB"), atStart.rssKiB}, {QStringLiteral("rssKiB"), after.rssKiB},
        {QStringLiteral("peakRssKiB"), after.peakKiB}, {QStringLiteral("cpuSeconds"), cpu},
        {QStringLiteral("rssSteadyKiB"), steadyKiB}});
    factory.shutdown();
    return 0;
}

int runLatency(const Setup &setup)
{
    RestClient client(restConfig(setup.kubeconfig));
    useBenchCodec(client);
    SharedInformerFactory factory(&client, Duration::zero());
    SharedIndexInformer *informer = factory.informerFor(
        resourceOf(QStringLiteral("configmaps")), {setup.namespaceName, {}, {}, false});

    QObject receiver;
    std::vector<qint64> samples;
    samples.reserve(size_t(setup.updates));
    std::atomic<qint64> readyAt = std::numeric_limits<qint64>::max();
    // When the update was sent (data.ts, Unix ns), if it was sent after READY. Read through
    // the typed view, as docs/typed-objects.md tells a controller to (the bytes are walked;
    // no tree is built, none is kept in the cached object), where client-go's handler reads
    // cm.Data["ts"] from its decoded struct.
    auto sentAfterReady = [&](const Object &object) -> std::optional<qint64> {
        bool ok = false;
        const qint64 sent = api::core::v1::ConfigMap(object)
                                .data()
                                .value(QLatin1StringView("ts"))
                                .value_or(QString())
                                .toLongLong(&ok);
        return ok && sent >= readyAt.load() ? std::optional(sent) : std::nullopt;
    };
    std::mutex storedMutex;
    std::vector<qint64> stored; // guarded by storedMutex
    if (setup.stages) {
        informer->setTransform([&](Object object) -> Result<Object> {
            const qint64 now = nowUnixNs();
            if (const auto sent = sentAfterReady(object)) {
                std::lock_guard lock(storedMutex);
                stored.push_back(now - *sent);
            }
            return object;
        });
    }
    auto registration = informer->addEventHandler(&receiver,
        {{},
            [&](const Object &, const Object &newObject) {
                const qint64 now = nowUnixNs();
                const auto sent = sentAfterReady(newObject);
                if (!sent || int(samples.size()) >= setup.updates)
                    return;
                samples.push_back(now - *sent);
                if (int(samples.size()) == setup.updates)
                    QCoreApplication::quit();
            },
            {}});
    factory.start();
    if (!factory.waitForCacheSync(std::chrono::seconds(setup.timeoutSeconds)))
        fail(QStringLiteral("no sync"));
    while (!registration->hasSynced())
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    if (informer->indexer().size() != setup.expect)
        fail(QStringLiteral("the cache holds %1 objects, expected %2")
                 .arg(informer->indexer().size())
                 .arg(setup.expect));
    readyAt = nowUnixNs();
    const double cpuBefore = cpuSeconds();
    std::printf("READY\n");
    std::fflush(stdout);
    armTimeout(setup.timeoutSeconds, "the updates");
    QCoreApplication::exec();
    const double cpu = cpuSeconds() - cpuBefore;
    std::sort(samples.begin(), samples.end());
    {
        std::lock_guard lock(storedMutex);
        std::sort(stored.begin(), stored.end());
    }
    printJson({{QStringLiteral("count"), qint64(samples.size())},
        {QStringLiteral("storeP50Ms"), setup.stages ? percentile(stored, 0.50) : -1.0},
        {QStringLiteral("storeP99Ms"), setup.stages ? percentile(stored, 0.99) : -1.0},
        {QStringLiteral("p50Ms"), percentile(samples, 0.50)},
        {QStringLiteral("p90Ms"), percentile(samples, 0.90)},
        {QStringLiteral("p99Ms"), percentile(samples, 0.99)},
        {QStringLiteral("maxMs"), percentile(samples, 1.0)}, {QStringLiteral("cpuSeconds"), cpu},
        {QStringLiteral("peakRssKiB"), memory().peakKiB}});
    factory.shutdown();
    return 0;
}

// The reading side of latency-floor: on its own thread, one HTTP/1.1 watch.
class FloorReader : public QObject
{
public:
    FloorReader(RestConfig config, QString target, QObject *receiver,
        std::function<void(std::vector<qint64>)> deliver)
        : m_config(std::move(config))
        , m_target(std::move(target))
        , m_receiver(receiver)
        , m_deliver(std::move(deliver))
    { }

    std::atomic<bool> watching {false}; // its 200 came

    void start()
    {
        m_socket = new QSslSocket(this);
        QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
        if (!m_config.caData.isEmpty())
            ssl.setCaCertificates(QSslCertificate::fromData(m_config.caData, QSsl::Pem));
        ssl.setAllowedNextProtocols({QSslConfiguration::NextProtocolHttp1_1});
        m_socket->setSslConfiguration(ssl);
        QObject::connect(m_socket, &QSslSocket::encrypted, this, [this] {
            m_socket->write("GET " + m_target.toLatin1()
                + " HTTP/1.1\r\nHost: " + m_config.server.authority().toLatin1()
                + "\r\nAuthorization: Bearer " + m_config.bearerToken.toLatin1()
                + "\r\nAccept: application/json\r\nConnection: close\r\n\r\n");
        });
        QObject::connect(m_socket, &QSslSocket::readyRead, this, [this] { read(); });
        QObject::connect(m_socket, &QAbstractSocket::errorOccurred, this,
            [this] { fail(QStringLiteral("latency-floor: ") + m_socket->errorString()); });
        m_socket->connectToHostEncrypted(
            m_config.server.host(), quint16(m_config.server.port(443)));
    }

private:
    void read()
    {
        m_parser.feed(m_socket->readAll(), m_lines);
        if (m_parser.state() == Http1ResponseParser::State::Failed)
            fail(QStringLiteral("latency-floor: ") + m_parser.error());
        if (m_parser.headComplete() && m_parser.statusCode() != 200)
            fail(QStringLiteral("latency-floor: the watch answered %1").arg(m_parser.statusCode()));
        if (m_parser.headComplete())
            watching = true;
        std::vector<qint64> sent;
        qsizetype from = 0;
        for (qsizetype end; (end = m_lines.indexOf('\n', from)) >= 0; from = end + 1) {
            const QByteArrayView line = QByteArrayView(m_lines).sliced(from, end - from);
            if (!line.contains(R"("type":"MODIFIED")"))
                continue;
            const qsizetype at = line.indexOf(R"("ts":")");
            if (at < 0)
                continue;
            qint64 v = 0;
            for (qsizetype i = at + 6; i < line.size() && line.at(i) >= '0' && line.at(i) <= '9';
                 ++i)
                v = v * 10 + (line.at(i) - '0');
            sent.push_back(v);
        }
        m_lines.remove(0, from);
        if (!sent.empty())
            QMetaObject::invokeMethod(
                m_receiver,
                [this, sent = std::move(sent)]() mutable { m_deliver(std::move(sent)); },
                Qt::QueuedConnection);
    }

    RestConfig m_config;
    QString m_target;
    QObject *m_receiver;
    std::function<void(std::vector<qint64>)> m_deliver;
    QSslSocket *m_socket = nullptr;
    Http1ResponseParser m_parser;
    QByteArray m_lines;
};

int runLatencyFloor(const Setup &setup)
{
    const RestConfig config = restConfig(setup.kubeconfig);
    if (config.bearerToken.isEmpty() || config.server.scheme() != QLatin1String("https"))
        fail(QStringLiteral("latency-floor needs an https server and a bearer token"));
    RestClient client(config);
    const QString path
        = QStringLiteral("/api/v1/namespaces/%1/configmaps").arg(setup.namespaceName);
    QUrlQuery one;
    one.addQueryItem(QStringLiteral("limit"), QStringLiteral("1"));
    const Response list = client.request("GET", path, one);
    if (!list.isSuccess())
        fail(QStringLiteral("latency-floor: the list answered %1").arg(list.code));
    const QJsonObject answer = QJsonDocument::fromJson(list.body).object();
    const QJsonObject metadata = answer.value(QStringLiteral("metadata")).toObject();
    const int count = answer.value(QStringLiteral("items")).toArray().size()
        + metadata.value(QStringLiteral("remainingItemCount")).toInt();
    if (count != setup.expect)
        fail(QStringLiteral("the namespace holds %1 objects, expected %2")
                 .arg(count)
                 .arg(setup.expect));
    const QString target = path
        + QStringLiteral("?watch=1&resourceVersion=%1&timeoutSeconds=3600")
              .arg(metadata.value(QStringLiteral("resourceVersion")).toString());

    QObject receiver;
    std::vector<qint64> samples;
    samples.reserve(size_t(setup.updates));
    const qint64 readyAt = nowUnixNs();
    QThread thread;
    FloorReader reader(config, target, &receiver, [&](std::vector<qint64> sent) {
        const qint64 now = nowUnixNs();
        for (const qint64 s : sent) {
            if (s < readyAt || int(samples.size()) >= setup.updates)
                continue;
            samples.push_back(now - s);
            if (int(samples.size()) == setup.updates)
                QCoreApplication::quit();
        }
    });
    reader.moveToThread(&thread);
    thread.start();
    QMetaObject::invokeMethod(&reader, [&reader] { reader.start(); });
    armTimeout(setup.timeoutSeconds, "the watch");
    while (!reader.watching)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    const double cpuBefore = cpuSeconds();
    std::printf("READY\n");
    std::fflush(stdout);
    QCoreApplication::exec();
    const double cpu = cpuSeconds() - cpuBefore;
    std::sort(samples.begin(), samples.end());
    printJson({{QStringLiteral("count"), qint64(samples.size())},
        {QStringLiteral("p50Ms"), percentile(samples, 0.50)},
        {QStringLiteral("p90Ms"), percentile(samples, 0.90)},
        {QStringLiteral("p99Ms"), percentile(samples, 0.99)},
        {QStringLiteral("maxMs"), percentile(samples, 1.0)}, {QStringLiteral("cpuSeconds"), cpu},
        {QStringLiteral("peakRssKiB"), memory().peakKiB}});
    std::_Exit(0); // the reader's thread still holds its watch
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("qcm informer benchmarks (sync, latency)"));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("mode"), QStringLiteral("sync or latency"));
    const QCommandLineOption kubeconfig(
        QStringLiteral("kubeconfig"), QStringLiteral("kubeconfig file"), QStringLiteral("file"));
    const QCommandLineOption ns(
        QStringLiteral("namespace"), QStringLiteral("namespace"), QStringLiteral("name"));
    const QCommandLineOption resource(QStringLiteral("resource"),
        QStringLiteral("configmaps or pods"), QStringLiteral("name"), QStringLiteral("configmaps"));
    const QCommandLineOption expect(
        QStringLiteral("expect"), QStringLiteral("objects in the namespace"), QStringLiteral("n"));
    const QCommandLineOption updates(QStringLiteral("updates"),
        QStringLiteral("updates to wait for (latency)"), QStringLiteral("n"), QStringLiteral("0"));
    const QCommandLineOption timeout(QStringLiteral("timeout"), QStringLiteral("give up after (s)"),
        QStringLiteral("s"), QStringLiteral("300"));
    const QCommandLineOption settle(QStringLiteral("settle"),
        QStringLiteral("sync: measure the RSS again after s idle seconds"), QStringLiteral("s"),
        QStringLiteral("0"));
    const QCommandLineOption stages(QStringLiteral("stages"),
        QStringLiteral("latency: also record when each event is stored (I/O thread)"));
    parser.addOptions({kubeconfig, ns, resource, expect, updates, timeout, settle, stages});
    parser.process(app);

    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1 || !parser.isSet(kubeconfig) || !parser.isSet(ns)
        || !parser.isSet(expect))
        fail(QStringLiteral("usage: qcm_bench_informer sync|latency --kubeconfig K --namespace NS "
                            "--expect N [--resource R] [--updates M]"));
    Setup setup;
    setup.kubeconfig = parser.value(kubeconfig);
    setup.namespaceName = parser.value(ns);
    setup.resource = parser.value(resource);
    setup.expect = parser.value(expect).toInt();
    setup.updates = parser.value(updates).toInt();
    setup.timeoutSeconds = parser.value(timeout).toInt();
    setup.settleSeconds = parser.value(settle).toInt();
    setup.stages = parser.isSet(stages);
    if (positional[0] == QLatin1String("sync"))
        return runSync(setup);
    if (positional[0] == QLatin1String("latency")) {
        if (setup.updates <= 0)
            fail(QStringLiteral("latency needs --updates > 0"));
        return runLatency(setup);
    }
    if (positional[0] == QLatin1String("latency-floor")) {
        if (setup.updates <= 0)
            fail(QStringLiteral("latency-floor needs --updates > 0"));
        return runLatencyFloor(setup);
    }
    fail(QStringLiteral("unknown mode \"%1\"").arg(positional[0]));
}
