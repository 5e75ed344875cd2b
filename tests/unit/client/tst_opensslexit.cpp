// SPDX-License-Identifier: Apache-2.0
// libqcm-sdk initialises OpenSSL without its atexit() cleanup (sdk/src/client/opensslinit.cpp):
// a process that uses TLS through Qt, as a RestClient does, exits without OPENSSL_cleanup(),
// which would race with the REST client's threads still ending (a double free, RESULTS.md
// run 18).
#include <QtCore/QProcess>
#include <QtTest/QtTest>

class tst_OpenSslExit : public QObject
{
    Q_OBJECT

private slots:
    void exitRunsNoOpenSslCleanup();
};

void tst_OpenSslExit::exitRunsNoOpenSslCleanup()
{
    QProcess child;
    child.start(QStringLiteral(QCM_OPENSSLEXIT_CHILD), {});
    QVERIFY2(child.waitForFinished(60000), qPrintable(child.errorString()));
    const QByteArray out = child.readAllStandardOutput();
    const QByteArray err = child.readAllStandardError();
    QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0,
        qPrintable(QStringLiteral("exit %1: %2%3")
                       .arg(child.exitCode())
                       .arg(QString::fromUtf8(out), QString::fromUtf8(err))));
    QVERIFY2(out.contains("TLS backend openssl loaded"), out.constData());
    QVERIFY2(!out.contains("OPENSSL_cleanup ran"), out.constData());
}

QTEST_GUILESS_MAIN(tst_OpenSslExit)
#include "tst_opensslexit.moc"
