// SPDX-License-Identifier: Apache-2.0
#include "reload/signalwatcher.h"

#include "logging.h"

#include <QtCore/QSocketNotifier>

#include <atomic>
#include <cerrno>
#include <csignal>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace qcm::host {

namespace {

int g_pipe[2] = {-1, -1};
std::atomic<int> g_shutdownSignals {0};

extern "C" void onShutdownSignal(int signal)
{
    if (g_shutdownSignals.fetch_add(1) >= 1)
        _exit(1); // the second signal: exit at once
    const char number = char(signal);
    const ssize_t written = ::write(g_pipe[1], &number, 1);
    (void)written;
}

extern "C" void onReloadSignal(int signal)
{
    const int saved = errno;
    const char number = char(signal);
    const ssize_t written = ::write(g_pipe[1], &number, 1); // full pipe: one is pending anyway
    (void)written;
    errno = saved;
}

} // namespace

SignalWatcher::SignalWatcher(QObject *parent) : QObject(parent)
{
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, g_pipe) != 0) {
        qCCritical(lcHost) << "cannot create the signal pipe:" << strerror(errno);
        return;
    }
    ::fcntl(g_pipe[1], F_SETFL, O_NONBLOCK);
    m_notifier = new QSocketNotifier(g_pipe[0], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &SignalWatcher::readSignals);
    struct sigaction action = {};
    action.sa_handler = onShutdownSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGINT, &action, nullptr);
    action.sa_handler = onReloadSignal;
    sigaction(SIGHUP, &action, nullptr);
}

SignalWatcher::~SignalWatcher()
{
    struct sigaction action = {};
    action.sa_handler = SIG_DFL;
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGHUP, &action, nullptr);
    delete m_notifier;
    for (int &fd : g_pipe) {
        if (fd >= 0)
            ::close(fd);
        fd = -1;
    }
}

void SignalWatcher::readSignals()
{
    char number = 0;
    while (::read(g_pipe[0], &number, 1) == 1) {
        if (number == SIGHUP) {
            qCInfo(lcHost).noquote()
                << QStringLiteral("received %1; reloading").arg(QLatin1String(strsignal(number)));
            emit reloadRequested();
            break;
        }
        qCInfo(lcHost).noquote() << QStringLiteral("received %1; shutting down (a second signal "
                                                   "exits at once)")
                                        .arg(QLatin1String(strsignal(number)));
        emit shutdownRequested(number);
        break;
    }
}

} // namespace qcm::host
