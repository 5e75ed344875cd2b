// SPDX-License-Identifier: Apache-2.0
// The limits on inputs (qcm/detail/inputlimits.h, docs/security.md): a kubeconfig, a file it
// names, a token file and controller-manager.yaml past their limits are refused with the file
// and the limit named, including special files of unknown size (/dev/zero), which are read no
// further than the limit. Each limit is configurable (controller-manager.yaml's limits,
// --max-config-bytes): lowered, each one refuses what it let through before, naming itself.
#include "config/config.h"
#include "config/options.h"
#include "plugins/pluginmetadata.h"
#include "serving/tlsoptions.h"

#include <qcm/client/codec.h>
#include <qcm/client/execcredentialprovider.h>

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
    void limitsAreConfigurable();

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
    // A small file under a large limit holds its size, not the limit.
    QFile small(write(QStringLiteral("small"), 100));
    QVERIFY(small.open(QIODevice::ReadOnly));
    const auto read = detail::readAtMost(small, 16 * 1024 * 1024, QStringLiteral("small"));
    QVERIFY(read);
    QCOMPARE(read->size(), 100);
    QVERIFY2(read->capacity() < 4096, qPrintable(QString::number(read->capacity())));
}

void tst_FileLimits::kubeconfigTooLarge()
{
    const QString path
        = write(QStringLiteral("kubeconfig"), detail::inputLimits().kubeconfigBytes + 1);
    const auto config = client::KubeConfig::loadFile(path);
    QVERIFY(!config);
    QCOMPARE(config.error().toString(),
        path
            + QStringLiteral(": the kubeconfig is larger than 16777216 bytes, the limit "
                             "(limits.kubeconfigBytes)"));
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
    QVERIFY2(rest.error().toString().contains(QStringLiteral(
                 "/dev/zero is larger than 16777216 bytes, the limit (limits.kubeconfigBytes)")),
        qPrintable(rest.error().toString()));
}

void tst_FileLimits::tokenFileTooLarge()
{
    const QString path
        = write(QStringLiteral("token"), detail::inputLimits().tokenFileBytes + 1, 'a');
    client::FileTokenSource source(path);
    const auto token = source.token();
    QVERIFY(!token);
    QCOMPARE(token.error().toString(),
        path
            + QStringLiteral(": the token file is larger than 1048576 bytes, the limit "
                             "(limits.tokenFileBytes)"));
}

void tst_FileLimits::configTooLarge()
{
    const QString path = write(QStringLiteral("cm.yaml"), detail::inputLimits().configBytes + 1);
    const auto config = host::loadConfig(path);
    QVERIFY(!config);
    QCOMPARE(config.error().toString(),
        path
            + QStringLiteral(": the configuration is larger than 4194304 bytes, the limit "
                             "(--max-config-bytes)"));
}

void tst_FileLimits::servingCertificateTooLarge()
{
    const QString cert
        = write(QStringLiteral("tls.crt"), detail::inputLimits().certificateBytes + 1);
    const QString key = write(QStringLiteral("tls.key"), 10);
    const auto tls = host::loadTlsConfiguration({cert, key, {}, {}});
    QVERIFY(!tls);
    QCOMPARE(tls.error().toString(),
        cert
            + QStringLiteral(
                ": --tls-cert-file: the certificate is larger than 16777216 bytes, the limit "
                "(limits.certificateBytes)"));
}

void tst_FileLimits::limitsAreConfigurable()
{
    const detail::InputLimits defaults = detail::inputLimits();
    const auto config = host::parseConfig("limits:\n"
                                          "  kubeconfigBytes: 2048\n"
                                          "  tokenFileBytes: 100\n"
                                          "  certificateBytes: 4096\n"
                                          "  execCredentialBytes: 1024\n"
                                          "  pluginMetadataBytes: 1024\n"
                                          "  jsonDepth: 16\n",
        QStringLiteral("cm.yaml"));
    QVERIFY2(config, config ? "" : qPrintable(config.error().toString()));
    host::ControllerManagerConfig applied = *config;
    const auto flags
        = host::parseOptions({QStringLiteral("qcm"), QStringLiteral("--max-config-bytes=2048")});
    QVERIFY(flags);
    flags->applyTo(applied);
    QCOMPARE(applied.limits.configBytes, 2048);
    detail::setInputLimits(applied.limits);

    const auto kubeconfig = client::KubeConfig::loadFile(write(QStringLiteral("kc"), 2049));
    QVERIFY(!kubeconfig);
    QVERIFY2(kubeconfig.error().reason.endsWith(
                 QStringLiteral("larger than 2048 bytes, the limit (limits.kubeconfigBytes)")),
        qPrintable(kubeconfig.error().toString()));
    QVERIFY(!client::FileTokenSource(write(QStringLiteral("t"), 101, 'a')).token());
    QVERIFY(!host::loadConfig(write(QStringLiteral("big.yaml"), 2049)));
    QVERIFY(!host::loadTlsConfiguration(
        {write(QStringLiteral("c.crt"), 4097), write(QStringLiteral("c.key"), 10), {}, {}}));
    const auto exec = client::ExecCredentialProvider::parseOutput(
        QByteArray(1025, ' '), QStringLiteral("client.authentication.k8s.io/v1"));
    QVERIFY(!exec);
    QVERIFY2(exec.error().reason.contains(QStringLiteral("(limits.execCredentialBytes)")),
        qPrintable(exec.error().reason));
    const QJsonObject metadata {
        {QStringLiteral("IID"), QStringLiteral("io.qcm.ControllerPlugin/1")},
        {QStringLiteral("MetaData"),
            QJsonObject {{QStringLiteral("description"), QString(2000, QLatin1Char('x'))}}}};
    const auto plugin = host::readPluginMetaData(metadata, QStringLiteral("0.1.0"), 1);
    QVERIFY(!plugin);
    QVERIFY2(plugin.error().message.endsWith(QStringLiteral("more than the limit of 1024 "
                                                            "(limits.pluginMetadataBytes)")),
        qPrintable(plugin.error().message));
    const client::LazyJsonCodec codec;
    const auto deep
        = codec.decodeObject("{\"a\":" + QByteArray(20, '[') + QByteArray(20, ']') + "}");
    QVERIFY(!deep);
    QVERIFY2(
        deep.error().reason.endsWith(QStringLiteral("nested deeper than 16 (limits.jsonDepth)")),
        qPrintable(deep.error().reason));
    QVERIFY(codec.decodeObject("{\"a\":" + QByteArray(10, '[') + QByteArray(10, ']') + "}"));

    detail::setInputLimits(defaults);
    QVERIFY(codec.decodeObject("{\"a\":" + QByteArray(20, '[') + QByteArray(20, ']') + "}"));
    const auto again = client::KubeConfig::loadFile(write(QStringLiteral("kc"), 2049));
    QVERIFY(again || !again.error().reason.contains(QStringLiteral("the limit")));
}

QTEST_GUILESS_MAIN(tst_FileLimits)
#include "tst_filelimits.moc"
