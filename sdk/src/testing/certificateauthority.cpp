// SPDX-License-Identifier: Apache-2.0
#include "certificateauthority.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QRegularExpression>

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
    // openssl keeps the mode of a file it overwrites: a new file is 0600.
    QFile::remove(QDir(directory).filePath(QStringLiteral("ca.key")));
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
    QFile::remove(dir.filePath(name + QStringLiteral(".key"))); // a new file is 0600
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
    QFile::remove(path); // a new file is 0600
    return openssl(info.absolutePath(),
        {QStringLiteral("genrsa"), QStringLiteral("-out"), info.fileName(),
            QStringLiteral("2048")});
}

namespace {

bool plainName(const QString &s)
{
    static const QRegularExpression allowed(QStringLiteral("^[A-Za-z0-9:._@-]+$"));
    return allowed.match(s).hasMatch();
}

} // namespace

Result<QString> userSubject(const QString &name, const QStringList &groups)
{
    if (!plainName(name))
        return Error {QStringLiteral("TestEnvironment"), QStringLiteral("addUser"),
            QStringLiteral("user name '%1' is empty or holds a character other than letters, "
                           "digits and \":._@-\"")
                .arg(name)};
    QString subject;
    for (const QString &group : groups) {
        if (!plainName(group))
            return Error {QStringLiteral("TestEnvironment"), QStringLiteral("addUser"),
                QStringLiteral("group '%1' of user %2 is empty or holds a character other than "
                               "letters, digits and \":._@-\"")
                    .arg(group, name)};
        subject += QStringLiteral("/O=") + group;
    }
    return subject + QStringLiteral("/CN=") + name;
}

std::optional<Error> checkUserName(const QString &name)
{
    static const QStringList reserved {QStringLiteral("admin"), QStringLiteral("ca"),
        QStringLiteral("serving"), QStringLiteral("sa"), QStringLiteral("tokens")};
    if (reserved.contains(name))
        return Error {QStringLiteral("TestEnvironment"), QStringLiteral("user"),
            QStringLiteral("'%1' is the environment's own (admin, ca, serving, sa and tokens "
                           "are)")
                .arg(name)};
    if (auto subject = userSubject(name, {}); !subject)
        return subject.error();
    return std::nullopt;
}

} // namespace qcm::testing::detail
