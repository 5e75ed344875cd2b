// SPDX-License-Identifier: Apache-2.0
// FileTokenSource (rotating token files) and ExecCredentialProvider (exec plugins), with
// shell scripts as the plugins.
#include <qcm/client/execcredentialprovider.h>
#include <qcm/client/filetokensource.h>
#include <qcm/fakeclock.h>

#include <QtCore/QDir>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace qcm::client;
using namespace std::chrono_literals;

class tst_Credentials : public QObject
{
    Q_OBJECT

private slots:
    void tokenFileIsReReadWhenItChanges();
    void tokenFileKeepsTheLastGoodToken();
    void tokenFileMissing();
    void execToken();
    void execCachesUntilExpiry();
    void execClientCertificate();
    void execFailures_data();
    void execFailures();

private:
    QString script(const QString &name, const QByteArray &body);
    void writeFile(const QString &path, const QByteArray &content);
    // Rewrites a file with a modification time `seconds` from now.
    void rewrite(const QString &path, const QByteArray &content, int seconds);
    QTemporaryDir m_dir;
};

void tst_Credentials::writeFile(const QString &path, const QByteArray &content)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(content);
}

void tst_Credentials::rewrite(const QString &path, const QByteArray &content, int seconds)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(content);
    f.flush();
    QVERIFY(f.setFileTime(
        QDateTime::currentDateTime().addSecs(seconds), QFileDevice::FileModificationTime));
}

QString tst_Credentials::script(const QString &name, const QByteArray &body)
{
    const QString path = m_dir.filePath(name);
    writeFile(path, "#!/bin/sh\n" + body);
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

void tst_Credentials::tokenFileIsReReadWhenItChanges()
{
    const QString path = m_dir.filePath(QStringLiteral("token"));
    writeFile(path, "first\n");
    qcm::FakeClock clock;
    FileTokenSource source(path, 1min, &clock);
    QCOMPARE(*source.token(), QStringLiteral("first"));
    // A different modification time is noticed after the stat interval...
    rewrite(path, "second", 10);
    QCOMPARE(*source.token(), QStringLiteral("first"));
    clock.step(1s);
    QCOMPARE(*source.token(), QStringLiteral("second"));
    // ...and the period re-reads regardless.
    rewrite(path, "third", 10); // the same modification time as "second"
    clock.step(1min);
    QCOMPARE(*source.token(), QStringLiteral("third"));
}

void tst_Credentials::tokenFileKeepsTheLastGoodToken()
{
    const QString path = m_dir.filePath(QStringLiteral("rotating"));
    writeFile(path, "good");
    qcm::FakeClock clock;
    FileTokenSource source(path, 1min, &clock);
    QCOMPARE(*source.token(), QStringLiteral("good"));
    QFile::remove(path);
    clock.step(2min);
    auto token = source.token();
    QVERIFY(token);
    QCOMPARE(*token, QStringLiteral("good"));
}

void tst_Credentials::tokenFileMissing()
{
    FileTokenSource source(m_dir.filePath(QStringLiteral("absent")));
    auto token = source.token();
    QVERIFY(!token);
    QVERIFY(token.error().toString().contains(QStringLiteral("cannot read the token file")));
}

void tst_Credentials::execToken()
{
    // The plugin echoes what it was told, so the test sees KUBERNETES_EXEC_INFO and env.
    const QString plugin = script(QStringLiteral("token-plugin"), R"(
case "$KUBERNETES_EXEC_INFO" in *'"interactive":false'*) ;; *) echo "bad info: $KUBERNETES_EXEC_INFO" >&2; exit 3;; esac
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"tok-%s-%s"}}' "$MODE" "$1"
)");
    ExecConfig config;
    config.command = plugin;
    config.args = {QStringLiteral("a1")};
    config.env = {{QStringLiteral("MODE"), QStringLiteral("m")}};
    config.apiVersion = QStringLiteral("client.authentication.k8s.io/v1");
    ExecCredentialProvider provider(config);
    auto credential = provider.credential();
    QVERIFY2(credential, qPrintable(credential ? QString() : credential.error().toString()));
    QCOMPARE(credential->token, QStringLiteral("tok-m-a1"));
    QVERIFY(!credential->expiration.isValid());
}

void tst_Credentials::execCachesUntilExpiry()
{
    const QString counter = m_dir.filePath(QStringLiteral("runs"));
    const QString plugin = script(QStringLiteral("counting-plugin"), QByteArray(R"(
echo run >> ")" + counter.toUtf8() + R"("
n=$(wc -l < ")" + counter.toUtf8() + R"(" | tr -d ' ')
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t%s","expirationTimestamp":"%s"}}' "$n" "$EXPIRY"
)"));
    ExecConfig config;
    config.command = plugin;
    config.apiVersion = QStringLiteral("client.authentication.k8s.io/v1");
    config.env = {{QStringLiteral("EXPIRY"),
        QDateTime::currentDateTimeUtc().addSecs(3600).toString(Qt::ISODate)}};
    ExecCredentialProvider provider(config);
    QCOMPARE(provider.credential()->token, QStringLiteral("t1"));
    QCOMPARE(provider.credential()->token, QStringLiteral("t1")); // cached
    provider.invalidate(); // after a 401
    QCOMPARE(provider.credential()->token, QStringLiteral("t2"));

    config.env = {{QStringLiteral("EXPIRY"), QStringLiteral("2001-01-01T00:00:00Z")}};
    ExecCredentialProvider expired(config);
    QCOMPARE(expired.credential()->token, QStringLiteral("t3"));
    QCOMPARE(expired.credential()->token, QStringLiteral("t4")); // already expired: run again
}

void tst_Credentials::execClientCertificate()
{
    const QString plugin = script(QStringLiteral("cert-plugin"), R"(
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientCertificateData":"CERT","clientKeyData":"KEY"}}'
)");
    ExecConfig config;
    config.command = plugin;
    ExecCredentialProvider provider(config);
    auto credential = provider.credential();
    QVERIFY(credential);
    QCOMPARE(credential->clientCertificateData, QByteArray("CERT"));
    QCOMPARE(credential->clientKeyData, QByteArray("KEY"));
}

void tst_Credentials::execFailures_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("expected");
    QTest::newRow("exit code") << QByteArray("echo 'no credentials for you' >&2; exit 7\n")
                               << QStringLiteral("exited with code 7: no credentials for you");
    QTest::newRow("not JSON") << QByteArray("echo hello\n")
                              << QStringLiteral("did not print a JSON ExecCredential");
    QTest::newRow("wrong kind") << QByteArray(
        R"(echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"Pod"}')"
        "\n") << QStringLiteral("printed kind \"Pod\", not ExecCredential");
    QTest::newRow("wrong version") << QByteArray(
        R"(echo '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"x"}}')"
        "\n") << QStringLiteral("printed apiVersion \"client.authentication.k8s.io/v1beta1\"");
    QTest::newRow("empty status") << QByteArray(
        R"(echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{}}')"
        "\n") << QStringLiteral("neither status.token nor status.clientCertificateData");
    QTest::newRow("too much output")
        << QByteArray("head -c 1100000 /dev/zero | tr '\\0' ' '\n")
        << QStringLiteral("printed more than 1048576 bytes, the limit for an ExecCredential "
                          "(limits.execCredentialBytes)");
    QTest::newRow("timeout") << QByteArray("sleep 5\n")
                             << QStringLiteral("did not finish within 300 ms");
}

void tst_Credentials::execFailures()
{
    QFETCH(QByteArray, body);
    QFETCH(QString, expected);
    ExecConfig config;
    config.command = script(QStringLiteral("failing-plugin-%1")
                                .arg(QTest::currentDataTag())
                                .replace(QLatin1Char(' '), QLatin1Char('-')),
        body);
    config.apiVersion = QStringLiteral("client.authentication.k8s.io/v1");
    config.installHint = QStringLiteral("install it with: apt install failing-plugin");
    ExecCredentialProvider provider(config, {}, {}, 300ms);
    auto credential = provider.credential();
    QVERIFY(!credential);
    const QString message = credential.error().toString();
    QVERIFY2(message.contains(expected), qPrintable(message));
    QVERIFY2(message.contains(config.command), qPrintable(message));
    QVERIFY2(message.contains(config.installHint), qPrintable(message));
}

QTEST_GUILESS_MAIN(tst_Credentials)
#include "tst_credentials.moc"
