// SPDX-License-Identifier: Apache-2.0
#include <qcm/client/execcredentialprovider.h>
#include <qcm/detail/inputlimits.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QProcessEnvironment>

namespace qcm::client {

ExecCredentialProvider::ExecCredentialProvider(
    ExecConfig config, QUrl server, QByteArray caData, Duration timeout)
    : m_config(std::move(config))
    , m_server(std::move(server))
    , m_caData(std::move(caData))
    , m_timeout(timeout)
{ }

Result<ExecCredentialProvider::Credential> ExecCredentialProvider::credential()
{
    std::lock_guard lock(m_mutex);
    if (m_cached
        && (!m_cached->expiration.isValid()
            || m_cached->expiration > QDateTime::currentDateTimeUtc()))
        return *m_cached;
    auto fresh = run();
    if (fresh)
        m_cached = *fresh;
    else
        m_cached.reset();
    return fresh;
}

void ExecCredentialProvider::invalidate()
{
    std::lock_guard lock(m_mutex);
    m_cached.reset();
}

Result<ExecCredentialProvider::Credential> ExecCredentialProvider::run()
{
    const QString apiVersion = m_config.apiVersion.isEmpty()
        ? QStringLiteral("client.authentication.k8s.io/v1")
        : m_config.apiVersion;
    const QString what = QStringLiteral("exec credential plugin \"%1\"").arg(m_config.command);
    auto fail = [&](const QString &reason) {
        QString message = reason;
        if (!m_config.installHint.isEmpty())
            message += QStringLiteral("\n") + m_config.installHint;
        return Error {{}, what, message};
    };

    QJsonObject spec {{QStringLiteral("interactive"), false}};
    if (m_config.provideClusterInfo) {
        spec.insert(QStringLiteral("cluster"),
            QJsonObject {{QStringLiteral("server"), m_server.toString()},
                {QStringLiteral("certificate-authority-data"),
                    QString::fromLatin1(m_caData.toBase64())}});
    }
    const QJsonObject info {{QStringLiteral("apiVersion"), apiVersion},
        {QStringLiteral("kind"), QStringLiteral("ExecCredential")}, {QStringLiteral("spec"), spec}};

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const auto &[name, value] : m_config.env)
        env.insert(name, value);
    env.insert(QStringLiteral("KUBERNETES_EXEC_INFO"),
        QString::fromUtf8(QJsonDocument(info).toJson(QJsonDocument::Compact)));

    QProcess process;
    process.setProcessEnvironment(env);
    process.setProgram(m_config.command);
    process.setArguments(m_config.args);
    process.start(QIODevice::ReadOnly);
    const int timeoutMs
        = int(std::chrono::duration_cast<std::chrono::milliseconds>(m_timeout).count());
    if (!process.waitForStarted(timeoutMs))
        return fail(QStringLiteral("cannot start: %1").arg(process.errorString()));
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(1000);
        return fail(QStringLiteral("did not finish within %1 ms").arg(timeoutMs));
    }
    const QString stderrText
        = QString::fromUtf8(process.readAllStandardError()).trimmed().left(2000);
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
        return fail(QStringLiteral("exited with code %1%2")
                        .arg(process.exitCode())
                        .arg(stderrText.isEmpty() ? QString() : QStringLiteral(": ") + stderrText));

    const QByteArray output = process.read(detail::inputLimits().execCredentialBytes + 1);
    Result<Credential> credential = parseOutput(output, apiVersion);
    if (!credential)
        return fail(credential.error().reason);
    return credential;
}

Result<ExecCredentialProvider::Credential> ExecCredentialProvider::parseOutput(
    const QByteArray &output, const QString &apiVersion)
{
    auto fail = [](const QString &reason) { return Error {{}, {}, reason}; };
    const qint64 limit = detail::inputLimits().execCredentialBytes;
    if (output.size() > limit)
        return fail(QStringLiteral("printed more than %1 bytes, the limit for an ExecCredential "
                                   "(limits.execCredentialBytes)")
                        .arg(limit));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(output, &parseError);
    if (!doc.isObject())
        return fail(QStringLiteral("did not print a JSON ExecCredential: %1")
                        .arg(parseError.errorString()));
    const QJsonObject out = doc.object();
    if (out.value(QStringLiteral("kind")).toString() != QLatin1String("ExecCredential"))
        return fail(QStringLiteral("printed kind \"%1\", not ExecCredential")
                        .arg(out.value(QStringLiteral("kind")).toString()));
    if (out.value(QStringLiteral("apiVersion")).toString() != apiVersion)
        return fail(QStringLiteral("printed apiVersion \"%1\", but the kubeconfig asks for %2")
                        .arg(out.value(QStringLiteral("apiVersion")).toString(), apiVersion));
    const QJsonObject status = out.value(QStringLiteral("status")).toObject();
    Credential credential;
    credential.token = status.value(QStringLiteral("token")).toString();
    credential.clientCertificateData
        = status.value(QStringLiteral("clientCertificateData")).toString().toUtf8();
    credential.clientKeyData = status.value(QStringLiteral("clientKeyData")).toString().toUtf8();
    if (credential.token.isEmpty() && credential.clientCertificateData.isEmpty())
        return fail(QStringLiteral("printed an ExecCredential with neither status.token nor "
                                   "status.clientCertificateData"));
    if (credential.clientCertificateData.isEmpty() != credential.clientKeyData.isEmpty())
        return fail(QStringLiteral("printed a client certificate without its key, or a key without "
                                   "its certificate"));
    const QString expiration = status.value(QStringLiteral("expirationTimestamp")).toString();
    if (!expiration.isEmpty()) {
        credential.expiration = QDateTime::fromString(expiration, Qt::ISODate);
        if (!credential.expiration.isValid())
            return fail(
                QStringLiteral("printed an invalid expirationTimestamp \"%1\"").arg(expiration));
    }
    return credential;
}

} // namespace qcm::client
