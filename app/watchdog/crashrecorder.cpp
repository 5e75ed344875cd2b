// SPDX-License-Identifier: Apache-2.0
#include "watchdog/crashrecorder.h"

#include <qcm/detail/activitytracker.h>

#include <QtCore/QDir>
#include <QtCore/QFile>

#include <csignal>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <unistd.h>

namespace qcm::host::CrashRecorder {

namespace {

constexpr int FatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
char g_dir[2048]; // <stateDir>/crashes, NUL-terminated; empty: not installed
char g_altStack[64 * 1024]; // the main thread's, for a stack overflow there

// Appends `text` to buf (capacity cap, always NUL-terminated); async-signal-safe.
void append(char *buf, std::size_t cap, const char *text)
{
    std::size_t n = 0;
    while (n < cap && buf[n])
        ++n;
    for (std::size_t i = 0; text[i] && n + 1 < cap; ++i)
        buf[n++] = text[i];
    buf[n < cap ? n : cap - 1] = '\0';
}

void appendNumber(char *buf, std::size_t cap, long long value)
{
    char digits[24];
    int i = 0;
    const auto magnitude = static_cast<unsigned long long>(value);
    unsigned long long v = value < 0 ? 0ULL - magnitude : magnitude;
    do {
        digits[i++] = char('0' + v % 10);
        v /= 10;
    } while (v && i < 22);
    if (value < 0)
        digits[i++] = '-';
    char out[24];
    for (int j = 0; j < i; ++j)
        out[j] = digits[i - 1 - j];
    out[i] = '\0';
    append(buf, cap, out);
}

void writeAll(int fd, const char *text)
{
    std::size_t left = std::strlen(text);
    while (left > 0) {
        const ssize_t n = ::write(fd, text, left);
        if (n <= 0)
            return;
        text += n;
        left -= std::size_t(n);
    }
}

void onFatalSignal(int sig)
{
    const int savedErrno = errno;
    const char *controller = detail::ActivityTracker::currentControllerForSignal();
    if (controller && g_dir[0]) {
        const long long now = static_cast<long long>(std::time(nullptr));
        const long long pid = static_cast<long long>(::getpid());
        char path[sizeof g_dir + 256] = {};
        append(path, sizeof path, g_dir);
        append(path, sizeof path, "/");
        append(path, sizeof path, controller);
        append(path, sizeof path, ".");
        appendNumber(path, sizeof path, now);
        append(path, sizeof path, ".");
        appendNumber(path, sizeof path, pid);
        char body[512] = {};
        append(body, sizeof body, "controller ");
        append(body, sizeof body, controller);
        append(body, sizeof body, "\nsignal ");
        appendNumber(body, sizeof body, sig);
        append(body, sizeof body, "\ntime ");
        appendNumber(body, sizeof body, now);
        append(body, sizeof body, "\npid ");
        appendNumber(body, sizeof body, pid);
        append(body, sizeof body, "\n");
        const int fd = ::open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0) {
            writeAll(fd, body);
            ::fsync(fd);
            ::close(fd);
        }
        char line[sizeof path + 256] = {};
        append(line, sizeof line, "qcm: fatal signal ");
        appendNumber(line, sizeof line, sig);
        append(line, sizeof line, " in the plugin code of controller ");
        append(line, sizeof line, controller);
        append(line, sizeof line,
            fd >= 0 ? "; crash record " : "; no crash record could be written to ");
        append(line, sizeof line, fd >= 0 ? path : g_dir);
        append(line, sizeof line, "\n");
        writeAll(STDERR_FILENO, line);
    }
    errno = savedErrno;
    // SA_RESETHAND restored the default action: the signal, raised again (or the faulting
    // instruction, run again on return), ends the process as it would have.
    ::raise(sig);
}

} // namespace

QString recordsDir(const QString &stateDir)
{
    return QDir(stateDir).absoluteFilePath(QStringLiteral("crashes"));
}

std::optional<Error> install(const QString &stateDir)
{
    const QString dir = recordsDir(stateDir);
    const QByteArray encoded = QFile::encodeName(dir);
    if (encoded.size() >= qsizetype(sizeof g_dir) - 1)
        return Error {stateDir, QStringLiteral("--state-dir"), QStringLiteral("is too long")};
    if (!QDir().mkpath(dir))
        return Error {dir, QStringLiteral("--state-dir"), QStringLiteral("cannot be created")};
    QFile::setPermissions(
        dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    std::memcpy(g_dir, encoded.constData(), std::size_t(encoded.size()));
    g_dir[encoded.size()] = '\0';

    stack_t altStack {};
    altStack.ss_sp = g_altStack;
    altStack.ss_size = sizeof g_altStack;
    ::sigaltstack(&altStack, nullptr);
    struct sigaction action
    { };
    action.sa_handler = onFatalSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND | SA_ONSTACK;
    for (const int sig : FatalSignals)
        ::sigaction(sig, &action, nullptr);
    return std::nullopt;
}

} // namespace qcm::host::CrashRecorder
