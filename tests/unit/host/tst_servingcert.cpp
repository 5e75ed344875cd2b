// SPDX-License-Identifier: Apache-2.0
// HTTPS by default, as kube-controller-manager serves: without --tls-cert-file the Server makes
// a self-signed serving pair, in --cert-dir (made once, reused after, the key 0600) or in
// memory; a client that trusts the pair's certificate verifies it for 127.0.0.1 and
// localhost. Plain HTTP is served only with --insecure-plain-http, which cannot be combined
// with a certificate.
#include "httpget.h"
#include "tlstesting.h"

#include "serving/selfsignedcert.h"
#include "serving/server.h"
#include "serving/tlsoptions.h"

#include <QtCore/QDateTime>
#include <QtCore/QFileInfo>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <sys/stat.h>

using namespace qcm;
using namespace qcm::host;
using namespace qcm::host::testing;

class tst_ServingCert : public QObject
{
    Q_OBJECT

private slots:
    void generatedCertificate();
    void certDirMadeOnceThenReused();
    void certDirWithHalfAPair();
    void servesHttpsByDefaultFromMemory();
    void servesTheCertDirPair();
    void plainHttpOnlyWhenAsked();

private:
    std::unique_ptr<Server> makeServer();
};

namespace {

mode_t modeOf(const QString &path)
{
    struct stat st
    { };
    return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

std::unique_ptr<Server> tst_ServingCert::makeServer()
{
    return std::make_unique<Server>(Server::Endpoints {
        {QStringLiteral("healthz"), [] { return QList<HealthCheck> {pingCheck()}; }},
        {QStringLiteral("livez"), [] { return QList<HealthCheck> {pingCheck()}; }},
        {QStringLiteral("readyz"), [] { return QList<HealthCheck> {pingCheck()}; }},
        nullptr,
        {},
        {},
    });
}

void tst_ServingCert::generatedCertificate()
{
    const Result<PemPair> pair = generateServingCertificate();
    QVERIFY2(pair, pair ? "" : qPrintable(pair.error().toString()));
    const QList<QSslCertificate> certs = QSslCertificate::fromData(pair->certificate);
    QCOMPARE(certs.size(), 1);
    const QSslCertificate &cert = certs.constFirst();
    QVERIFY(cert.isSelfSigned());
    QVERIFY(cert.subjectInfo(QSslCertificate::CommonName)
                .constFirst()
                .startsWith(QStringLiteral("localhost@")));
    const auto names = cert.subjectAlternativeNames();
    QVERIFY(names.values(QSsl::DnsEntry).contains(QStringLiteral("localhost")));
    QVERIFY(names.values(QSsl::IpAddressEntry).contains(QStringLiteral("127.0.0.1")));
    QVERIFY(names.values(QSsl::IpAddressEntry).contains(QStringLiteral("::1")));
    // Valid from now, for a year.
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QVERIFY(qAbs(cert.effectiveDate().secsTo(now)) < 300);
    QVERIFY(qAbs(cert.expiryDate().secsTo(now.addDays(365))) < 300);
    QCOMPARE(cert.publicKey().algorithm(), QSsl::Ec);
    // The key is the certificate's: the pair makes a TLS configuration.
    const Result<QSslConfiguration> tls
        = tlsConfiguration(pair->certificate, pair->privateKey, TlsOptions {});
    QVERIFY2(tls, tls ? "" : qPrintable(tls.error().toString()));
    // Two generations never share a serial.
    const Result<PemPair> other = generateServingCertificate();
    QVERIFY(other);
    QVERIFY(QSslCertificate(other->certificate).serialNumber() != cert.serialNumber());
}

void tst_ServingCert::certDirMadeOnceThenReused()
{
    QTemporaryDir root;
    const QString dir = root.filePath(QStringLiteral("certs/serving"));
    const Result<CertificateFiles> first = ensureServingCertificateIn(dir);
    QVERIFY2(first, first ? "" : qPrintable(first.error().toString()));
    QVERIFY(first->generated);
    QCOMPARE(first->certFile, dir + QStringLiteral("/qcm.crt"));
    QCOMPARE(first->keyFile, dir + QStringLiteral("/qcm.key"));
    QCOMPARE(modeOf(dir), mode_t(0700));
    QCOMPARE(modeOf(first->keyFile), mode_t(0600));
    QCOMPARE(modeOf(first->certFile), mode_t(0644));
    const QByteArray cert = readAll(first->certFile);
    const QByteArray key = readAll(first->keyFile);
    QVERIFY(cert.startsWith("-----BEGIN CERTIFICATE-----"));
    QVERIFY(key.startsWith("-----BEGIN PRIVATE KEY-----"));

    const Result<CertificateFiles> second = ensureServingCertificateIn(dir);
    QVERIFY(second);
    QVERIFY(!second->generated);
    QCOMPARE(readAll(second->certFile), cert);
    QCOMPARE(readAll(second->keyFile), key);
}

void tst_ServingCert::certDirWithHalfAPair()
{
    QTemporaryDir dir;
    QVERIFY(ensureServingCertificateIn(dir.path()));
    QVERIFY(QFile::remove(dir.filePath(QStringLiteral("qcm.key"))));
    const Result<CertificateFiles> files = ensureServingCertificateIn(dir.path());
    QVERIFY(!files);
    QCOMPARE(files.error().toString(),
        QStringLiteral("%1/qcm.key: --cert-dir: is missing while %1/qcm.crt exists; remove both "
                       "to have a new pair made, or restore it")
            .arg(dir.path()));
    // Nothing was written over the certificate that is there.
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("qcm.key"))));
}

void tst_ServingCert::servesHttpsByDefaultFromMemory()
{
    auto server = makeServer();
    Server::Options options;
    options.bindAddress = QStringLiteral("127.0.0.1");
    QVERIFY(!server->listen(options));
    QVERIFY(server->isTls());
    const Handshake h = handshake(server->port(), QSsl::TlsV1_2OrLater);
    QVERIFY(h.ok);
    QVERIFY(h.certificate.isSelfSigned());
    // A client that trusts that certificate verifies it, by address and by name.
    for (const QString &host : {QStringLiteral("127.0.0.1"), QStringLiteral("localhost")}) {
        HandshakeOptions o;
        o.host = host;
        o.caCertificates = {h.certificate};
        const Handshake verified = handshake(server->port(), o);
        QVERIFY2(verified.ok && verified.errors.isEmpty(), qPrintable(host));
    }
    // Another start makes another pair.
    auto again = makeServer();
    QVERIFY(!again->listen(options));
    QVERIFY(handshake(again->port(), QSsl::TlsV1_2OrLater).certificate != h.certificate);
}

void tst_ServingCert::servesTheCertDirPair()
{
    QTemporaryDir dir;
    Server::Options options;
    options.bindAddress = QStringLiteral("127.0.0.1");
    options.certDir = dir.path();
    auto server = makeServer();
    QVERIFY(!server->listen(options));
    const QSslCertificate onDisk
        = QSslCertificate::fromPath(dir.filePath(QStringLiteral("qcm.crt"))).value(0);
    QVERIFY(!onDisk.isNull());
    HandshakeOptions o;
    o.caCertificates = {onDisk};
    const Handshake h = handshake(server->port(), o);
    QVERIFY(h.ok);
    QCOMPARE(h.certificate, onDisk);
    // A restart serves the same pair.
    server.reset();
    auto restarted = makeServer();
    QVERIFY(!restarted->listen(options));
    QCOMPARE(handshake(restarted->port(), o).certificate, onDisk);
    // --tls-cert-file wins over --cert-dir.
    QTemporaryDir given;
    QVERIFY(makeCertificate(given.path()));
    options.tlsCertFile = given.filePath(QStringLiteral("tls.crt"));
    options.tlsPrivateKeyFile = given.filePath(QStringLiteral("tls.key"));
    auto withFiles = makeServer();
    QVERIFY(!withFiles->listen(options));
    QCOMPARE(handshake(withFiles->port(), QSsl::TlsV1_2OrLater).certificate,
        QSslCertificate::fromPath(options.tlsCertFile).value(0));
}

void tst_ServingCert::plainHttpOnlyWhenAsked()
{
    QNetworkAccessManager nam;
    Server::Options options;
    options.bindAddress = QStringLiteral("127.0.0.1");
    auto https = makeServer();
    QVERIFY(!https->listen(options));
    // The default port answers no plain HTTP.
    QCOMPARE(
        httpGet(nam, QUrl(QStringLiteral("http://127.0.0.1:%1/livez").arg(https->port()))).status,
        0);

    options.insecurePlainHttp = true;
    auto plain = makeServer();
    QTest::ignoreMessage(QtWarningMsg,
        "--insecure-plain-http: serving plain HTTP, without TLS; whoever can reach the port can "
        "read and change what passes on it (docs/security.md)");
    QVERIFY(!plain->listen(options));
    QVERIFY(!plain->isTls());
    QCOMPARE(
        httpGet(nam, QUrl(QStringLiteral("http://127.0.0.1:%1/livez").arg(plain->port()))).status,
        200);

    options.tlsCertFile = QStringLiteral("/etc/qcm/tls.crt");
    auto both = makeServer();
    const std::optional<Error> error = both->listen(options);
    QVERIFY(error);
    QCOMPARE(error->toString(),
        QStringLiteral("--insecure-plain-http: cannot be used with --tls-cert-file or "
                       "--tls-private-key-file"));
}

QTEST_GUILESS_MAIN(tst_ServingCert)
#include "tst_servingcert.moc"
