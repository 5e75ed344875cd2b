// SPDX-License-Identifier: Apache-2.0
#include "certificateauthority.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QProcess>

namespace qcm::testing::detail {

namespace {

std::optional<Error> openssl(const QString &directory, const QStringList &args)
{
    QProcess p;
    p.setWorkingDirectory(directory);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QStringLiteral("openssl"), args);
    if (!p.waitForStarted(10000))
        return Error {QStringLiteral("TestEnvironment"), QStringLiteral("openssl"),
            QStringLiteral("cannot run openssl (is it installed?): %1").arg(p.errorString())};
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return Error {QStringLiteral("TestEnvironment"), QStringLiteral("openssl"),
            QStringLiteral("openssl %1 failed: %2")
                .arg(args.value(0), QString::fromUtf8(p.readAll()).trimmed())};
    return std::nullopt;
}

} // namespace

std::optional<Error> makeCertificateAuthority(const QString &directory, const QString &commonName)
{
    return openssl(directory,
        {QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"),
            QStringLiteral("rsa:2048"), QStringLiteral("-nodes"), QStringLiteral("-keyout"),
            QStringLiteral("ca.key"), QStringLiteral("-out"), QStringLiteral("ca.crt"),
            QStringLiteral("-days"), QStringLiteral("3650"), QStringLiteral("-subj"),
            QStringLiteral("/CN=") + commonName});
}

std::optional<Error> issueCertificate(const QString &directory, const QString &name,
    const QString &subject, const QString &extensions)
{
    const QDir dir(directory);
    QFile ext(dir.filePath(name + QStringLiteral(".ext")));
    if (!ext.open(QIODevice::WriteOnly | QIODevice::Truncate)
        || ext.write(extensions.toUtf8() + '\n') < 0)
        return Error {ext.fileName(), {}, ext.errorString()};
    ext.close();
    if (auto e = openssl(directory,
            {QStringLiteral("req"), QStringLiteral("-newkey"), QStringLiteral("rsa:2048"),
                QStringLiteral("-nodes"), QStringLiteral("-keyout"), name + QStringLiteral(".key"),
                QStringLiteral("-out"), name + QStringLiteral(".csr"), QStringLiteral("-subj"),
                subject}))
        return e;
    return openssl(directory,
        {QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"),
            name + QStringLiteral(".csr"), QStringLiteral("-CA"), QStringLiteral("ca.crt"),
            QStringLiteral("-CAkey"), QStringLiteral("ca.key"), QStringLiteral("-CAcreateserial"),
            QStringLiteral("-out"), name + QStringLiteral(".crt"), QStringLiteral("-days"),
            QStringLiteral("3650"), QStringLiteral("-extfile"), ext.fileName()});
}

std::optional<Error> makePrivateKey(const QString &path)
{
    const QFileInfo info(path);
    return openssl(info.absolutePath(),
        {QStringLiteral("genrsa"), QStringLiteral("-out"), info.fileName(),
            QStringLiteral("2048")});
}

Result<QString> userSubject(const QString &name, const QStringList &groups)
{
    // openssl's -subj separates attributes by '/' and reads '\' as an escape; a file name
    // cannot hold '/' either.
    const auto invalid = [](const QString &s) {
        return s.isEmpty() || s.contains(QLatin1Char('/')) || s.contains(QLatin1Char('\\'));
    };
    if (invalid(name))
        return Error {QStringLiteral("TestEnvironment"), QStringLiteral("addUser"),
            QStringLiteral("user name '%1' is empty or holds '/' or '\\'").arg(name)};
    QString subject;
    for (const QString &group : groups) {
        if (invalid(group))
            return Error {QStringLiteral("TestEnvironment"), QStringLiteral("addUser"),
                QStringLiteral("group '%1' of user %2 is empty or holds '/' or '\\'")
                    .arg(group, name)};
        subject += QStringLiteral("/O=") + group;
    }
    return subject + QStringLiteral("/CN=") + name;
}

} // namespace qcm::testing::detail
