// SPDX-License-Identifier: Apache-2.0
#include "plugins/plugintrust.h"

#include <QtCore/QDir>
#include <QtCore/QFileInfo>

#include <cerrno>
#include <cstring>
#include <pwd.h>
#include <sys/stat.h>

namespace qcm::host {

namespace {

QString userName(uid_t uid)
{
    if (const passwd *pw = getpwuid(uid))
        return QStringLiteral("%1 (uid %2)").arg(QString::fromLocal8Bit(pw->pw_name)).arg(uid);
    return QStringLiteral("uid %1").arg(uid);
}

QString modeText(mode_t mode)
{
    return QStringLiteral("%1").arg(mode & 07777, 4, 8, QLatin1Char('0'));
}

// The reason one path (the file, or one directory above it) is not trusted.
std::optional<QString> check(const QString &path, uid_t hostUid, bool isFile)
{
    struct stat st
    { };
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return QStringLiteral("%1: cannot stat: %2")
            .arg(path, QString::fromLocal8Bit(std::strerror(errno)));
    const QString what = isFile ? QStringLiteral("the plugin") : QStringLiteral("directory");
    if (st.st_uid != 0 && st.st_uid != hostUid)
        return QStringLiteral("%1 %2 is owned by %3, not by root or %4 (mode %5)")
            .arg(what, path, userName(st.st_uid), userName(hostUid), modeText(st.st_mode));
    const bool sticky = !isFile && (st.st_mode & S_ISVTX);
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !sticky)
        return QStringLiteral("%1 %2 (owner %3, mode %4) is writable by %5")
            .arg(what, path, userName(st.st_uid), modeText(st.st_mode),
                (st.st_mode & S_IWOTH) ? QStringLiteral("everyone") : QStringLiteral("its group"));
    return std::nullopt;
}

} // namespace

Result<PluginTrust> parsePluginTrust(const QString &text)
{
    if (text == QLatin1String("strict"))
        return PluginTrust::Strict;
    if (text == QLatin1String("warn"))
        return PluginTrust::Warn;
    return Error {{}, {}, QStringLiteral("must be strict or warn, not \"%1\"").arg(text)};
}

QString pluginTrustName(PluginTrust trust)
{
    return trust == PluginTrust::Warn ? QStringLiteral("warn") : QStringLiteral("strict");
}

std::optional<QString> untrustedReason(const QString &path, uid_t hostUid)
{
    // The file the loader will open, symlinks resolved, so that a link in a trusted directory
    // to a file in an untrusted one is judged by where the code is; and the directory the
    // plugin was found in, which decides what the name resolves to.
    const QString real = QFileInfo(path).canonicalFilePath();
    if (real.isEmpty())
        return QStringLiteral("%1: does not exist, or a symlink on its path is dangling").arg(path);
    if (std::optional<QString> why = check(real, hostUid, true))
        return why;
    QStringList chains {QFileInfo(real).path()};
    const QString found = QFileInfo(QFileInfo(path).absolutePath()).canonicalFilePath();
    if (found != chains.constFirst()) // without a symlink, the same directories: once
        chains << found;
    for (QString dir : std::as_const(chains)) {
        while (!dir.isEmpty()) {
            if (std::optional<QString> why = check(dir, hostUid, false))
                return why;
            if (dir == QLatin1String("/"))
                break;
            dir = QFileInfo(dir).path();
        }
    }
    return std::nullopt;
}

} // namespace qcm::host
