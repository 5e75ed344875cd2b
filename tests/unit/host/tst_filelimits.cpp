// SPDX-License-Identifier: Apache-2.0
// The limits on files (qcm/detail/readatmost.h, docs/security.md): a kubeconfig, a file it
// names, a token file and controller-manager.yaml past their limits are refused with the file
// and the limit named, including special files of unknown size (/dev/zero), which are read no
// further than the limit.
#include "config/config.h"
#include "serving/tlsoptions.h"

#include <qcm/client/filetokensource.h>
#include <qcm/client/kubeconfig.h>
#include <qcm/detail/readatmost.h>

#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace qcm;

class tst_FileLimits : public QObject
{
    Q_OBJECT

private slots:
    void readAtMost();
    void kubeconfigTooLarge();
    void fileNamedByTheKubeconfigTooLarge();
    void tokenFileTooLarge();
    void configTooLarge();
    void servingCertificateTooLarge();

private:
    QString write(const QString &name, qint64 size, char fill = '#');
    QTemporaryDir m_dir;
};

QString tst_FileLimits::write(const QString &name, qint64 size, char fill)
{
    const QString path = m_dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    const QByteArray block(1024 * 1024, fill);
    for (qint64 left = size; left > 0; left -= block.size())
        f.write(block.constData(), qMin<qint64>(left, block.size()));
    return path;
}

void tst_FileLimits::readAtMost()
{
    QFile exact(write(QStringLiteral("exact"), 1000));
    QVERIFY(exact.open(QIODevice::ReadOnly));
    QCOMPARE(detail::readAtMost(exact, 1000, QStringLiteral("x"))->size(), 1000);
    QFile over(write(QStringLiteral("over"), 1001));
    QVERIFY(over.open(QIODevice::ReadOnly));
    const auto refused = detail::readAtMost(over, 1000, QStringLiteral("the thing"));
    QVERIFY(!refused);
    QCOMPARE(refused.error().toString(),
        m_dir.filePath(QStringLiteral("over"))
            + QStringLiteral(": the thing is larger than 1000 bytes, the limit"));
    QFile zero(QStringLiteral("/dev/zero")); // size unknown, endless
    QVERIFY(zero.open(QIODevice::ReadOnly));
    QVERIFY(!detail::readAtMost(zero, 4096, QStringLiteral("zeros")));
}

void tst_FileLimits::kubeconfigTooLarge()
{
    const QString path = write(QStringLiteral("kubeconfig"), detail::MaxKubeconfigBytes + 1);
    const auto config = client::KubeConfig::loadFile(path);
    QVERIFY(!config);
    QCOMPARE(config.error().toString(),
        path + QStringLiteral(": the kubeconfig is larger than 16777216 bytes, the limit"));
}

void tst_FileLimits::fileNamedByTheKubeconfigTooLarge()
{
    const QByteArray yaml = "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                            "clusters: [{name: k, cluster: {server: 'https://127.0.0.1:6443', "
                            "certificate-authority: /dev/zero}}]\n"
                            "users: [{name: u, user: {token: t}}]\n"
                            "contexts: [{name: c, context: {cluster: k, user: u}}]\n";
    const QString path = m_dir.filePath(QStringLiteral("named"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(yaml);
    f.close();
    const auto config = client::KubeConfig::loadFile(path);
    QVERIFY(config);
    const auto rest = config->restConfig();
    QVERIFY(!rest);
    QVERIFY2(rest.error().toString().contains(
                 QStringLiteral("/dev/zero is larger than 16777216 bytes, the limit")),
        qPrintable(rest.error().toString()));
}

void tst_FileLimits::tokenFileTooLarge()
{
    const QString path = write(QStringLiteral("token"), detail::MaxTokenFileBytes + 1, 'a');
    client::FileTokenSource source(path);
    const auto token = source.token();
    QVERIFY(!token);
    QCOMPARE(token.error().toString(),
        path + QStringLiteral(": the token file is larger than 1048576 bytes, the limit"));
}

void tst_FileLimits::configTooLarge()
{
    const QString path = write(QStringLiteral("cm.yaml"), detail::MaxConfigBytes + 1);
    const auto config = host::loadConfig(path);
    QVERIFY(!config);
    QCOMPARE(config.error().toString(),
        path + QStringLiteral(": the configuration is larger than 4194304 bytes, the limit"));
}

void tst_FileLimits::servingCertificateTooLarge()
{
    const QString cert = write(QStringLiteral("tls.crt"), detail::MaxCertificateFileBytes + 1);
    const QString key = write(QStringLiteral("tls.key"), 10);
    const auto tls = host::loadTlsConfiguration({cert, key, {}, {}});
    QVERIFY(!tls);
    QCOMPARE(tls.error().toString(),
        cert
            + QStringLiteral(
                ": --tls-cert-file: the certificate is larger than 16777216 bytes, the limit"));
}

QTEST_GUILESS_MAIN(tst_FileLimits)
#include "tst_filelimits.moc"
