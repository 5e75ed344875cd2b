// SPDX-License-Identifier: Apache-2.0
// le_candidate: one leader-election candidate for the e2e tests and the failover measurement.
//
// Runs a LeaderElector against the cluster and logs, one line each, to stdout:
//   <t> READY id=<identity>
//   <t> STARTED term=<n>
//   <t> WORK term=<n> at=<t0>       a worker thread's leader work, every --work-ms while the
//                                   term's token is valid; t0 is read before the check
//   <t> STOPPED term=<n> end=<t1>   t1: when the term really ended (LeaderToken::endedAt)
//   <t> NEWLEADER id=<identity>
//   <t> FINISHED
// Every <t> is CLOCK_MONOTONIC in nanoseconds (steady_clock), the same on every process of
// the machine, so the test can compare the logs of several candidates and its own clock.
// SIGTERM stops the elector (releasing the lock with --release) and exits 0 once finished.
//
//   le_candidate --kubeconfig F [--server URL] --namespace NS --name N [--lock leases]
//                [--identity ID] [--lease 15] [--renew 10] [--retry 2] [--release]
//                [--mode runordie|rejoin] [--no-watch] [--work-ms 50]
#include <qcm/client/kubeconfig.h>
#include <qcm/client/restclient.h>
#include <qcm/leaderelection/leaderelector.h>
#include <qcm/leaderelection/newresourcelock.h>

#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>
#include <QtCore/QSocketNotifier>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace qcm;
using namespace qcm::leaderelection;
using namespace std::chrono;

namespace {

std::mutex logMutex;
int signalPipe[2];

qint64 monoNs()
{
    return duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
}

void logLine(const QString &line)
{
    std::lock_guard lock(logMutex);
    std::printf("%lld %s\n", static_cast<long long>(monoNs()), qPrintable(line));
    std::fflush(stdout);
}

[[noreturn]] void fail(const QString &message)
{
    std::fprintf(stderr, "le_candidate: %s\n", qPrintable(message));
    std::exit(2);
}

Duration secondsOption(const QString &value, const char *option)
{
    bool ok = false;
    const double s = value.toDouble(&ok);
    if (!ok || s <= 0)
        fail(QStringLiteral("--%1: not a positive number of seconds: %2")
                 .arg(QLatin1String(option), value));
    return duration_cast<Duration>(duration<double>(s));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    const QList<QCommandLineOption> options {
        {QStringLiteral("kubeconfig"), QStringLiteral("Kubeconfig file."), QStringLiteral("file")},
        {QStringLiteral("server"), QStringLiteral("Override the server URL."),
            QStringLiteral("url")},
        {QStringLiteral("namespace"), QStringLiteral("Lock namespace."), QStringLiteral("ns")},
        {QStringLiteral("name"), QStringLiteral("Lock name."), QStringLiteral("name")},
        {QStringLiteral("lock"), QStringLiteral("Lock type."), QStringLiteral("type"),
            QStringLiteral("leases")},
        {QStringLiteral("identity"), QStringLiteral("Identity."), QStringLiteral("id")},
        {QStringLiteral("lease"), QStringLiteral("leaseDuration, s."), QStringLiteral("s"),
            QStringLiteral("15")},
        {QStringLiteral("renew"), QStringLiteral("renewDeadline, s."), QStringLiteral("s"),
            QStringLiteral("10")},
        {QStringLiteral("retry"), QStringLiteral("retryPeriod, s."), QStringLiteral("s"),
            QStringLiteral("2")},
        {QStringLiteral("release"), QStringLiteral("releaseOnCancel.")},
        {QStringLiteral("mode"), QStringLiteral("runordie or rejoin."), QStringLiteral("mode"),
            QStringLiteral("runordie")},
        {QStringLiteral("no-watch"), QStringLiteral("Poll only, as client-go.")},
        {QStringLiteral("work-ms"), QStringLiteral("Leader work interval."), QStringLiteral("ms"),
            QStringLiteral("50")},
    };
    parser.addOptions(options);
    parser.process(app);
    for (const char *required : {"kubeconfig", "namespace", "name"}) {
        if (!parser.isSet(QString::fromLatin1(required)))
            fail(QStringLiteral("--%1 is required").arg(QLatin1String(required)));
    }

    auto kubeconfig = client::KubeConfig::loadFile(parser.value(QStringLiteral("kubeconfig")));
    if (!kubeconfig)
        fail(kubeconfig.error().toString());
    auto restConfig = kubeconfig->restConfig();
    if (!restConfig)
        fail(restConfig.error().toString());
    if (parser.isSet(QStringLiteral("server")))
        restConfig->server = QUrl(parser.value(QStringLiteral("server")));
    const Duration renew = secondsOption(parser.value(QStringLiteral("renew")), "renew");
    // As client-go's NewFromKubeconfig: requests of the elector time out at renewDeadline / 2.
    restConfig->timeout = std::max<Duration>(renew / 2, 1s);
    restConfig->qps = 50;
    restConfig->burst = 100;
    client::RestClient client(*restConfig);

    ResourceLockConfig lockConfig;
    lockConfig.identity = parser.value(QStringLiteral("identity"));
    auto lock = newResourceLock(parser.value(QStringLiteral("lock")),
        parser.value(QStringLiteral("namespace")), parser.value(QStringLiteral("name")), &client,
        lockConfig);
    if (!lock)
        fail(lock.error().toString());

    LeaderElectionConfig config;
    config.lock = std::shared_ptr<ResourceLock>(std::move(*lock));
    config.leaseDuration = secondsOption(parser.value(QStringLiteral("lease")), "lease");
    config.renewDeadline = renew;
    config.retryPeriod = secondsOption(parser.value(QStringLiteral("retry")), "retry");
    config.releaseOnCancel = parser.isSet(QStringLiteral("release"));
    config.watchLock = !parser.isSet(QStringLiteral("no-watch"));
    config.name = parser.value(QStringLiteral("name"));
    const QString mode = parser.value(QStringLiteral("mode"));
    if (mode == QLatin1String("rejoin"))
        config.mode = LeaderElectionConfig::Mode::Rejoin;
    else if (mode != QLatin1String("runordie"))
        fail(QStringLiteral("--mode: runordie or rejoin, not %1").arg(mode));
    auto elector = LeaderElector::create(config);
    if (!elector)
        fail(elector.error().toString());
    LeaderElector *le = elector->get();

    std::atomic<int> term {0};
    LeaderToken current;
    QObject::connect(le, &LeaderElector::startedLeading, [&](const LeaderToken &token) {
        current = token;
        logLine(QStringLiteral("STARTED term=%1").arg(++term));
    });
    QObject::connect(le, &LeaderElector::stoppedLeading, [&] {
        if (!current.deadline().time_since_epoch().count()) // a run that never led
            return;
        logLine(QStringLiteral("STOPPED term=%1 end=%2")
                    .arg(term.load())
                    .arg(duration_cast<nanoseconds>(current.endedAt().time_since_epoch()).count()));
        current = LeaderToken();
    });
    QObject::connect(le, &LeaderElector::newLeader,
        [](const QString &id) { logLine(QStringLiteral("NEWLEADER id=%1").arg(id)); });
    QObject::connect(le, &LeaderElector::finished, &app, [] {
        logLine(QStringLiteral("FINISHED"));
        QCoreApplication::quit();
    });

    // The leader's work: a worker thread that checks the token before each piece.
    std::atomic<bool> quitting {false};
    const int workMs = parser.value(QStringLiteral("work-ms")).toInt();
    std::thread worker([&] {
        while (!quitting) {
            const qint64 at = monoNs(); // before the check: see the header
            if (le->token().isValid())
                logLine(QStringLiteral("WORK term=%1 at=%2").arg(term.load()).arg(at));
            std::this_thread::sleep_for(milliseconds(workMs));
        }
    });

    if (::pipe(signalPipe) != 0)
        fail(QStringLiteral("pipe failed"));
    std::signal(SIGTERM, [](int) {
        const char c = 't';
        (void)!::write(signalPipe[1], &c, 1);
    });
    QSocketNotifier notifier(signalPipe[0], QSocketNotifier::Read);
    QObject::connect(&notifier, &QSocketNotifier::activated, le, [le] {
        char c;
        (void)!::read(signalPipe[0], &c, 1);
        logLine(QStringLiteral("SIGTERM"));
        le->stop();
    });

    logLine(QStringLiteral("READY id=%1").arg(le->identity()));
    le->run();
    const int status = app.exec();
    quitting = true;
    worker.join();
    return status;
}
