// SPDX-License-Identifier: Apache-2.0
#include "serving/selfsignedcert.h"

#include <QtCore/QDateTime>
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtNetwork/QHostAddress>
#include <QtNetwork/QHostInfo>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace qcm::host {

namespace {

const QString CertDirFlag = QStringLiteral("--cert-dir");
constexpr int ValidDays = 365; // as k8s.io/client-go/util/cert's self-signed serving pair

template<typename T, void (*F)(T *)>
struct Deleter
{
    void operator()(T *p) const { F(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using Cert = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using Bio = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using Bignum = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>>;
using Extension = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION, X509_EXTENSION_free>>;

// The reason OpenSSL gives for the last failure, and clears.
QString openSslReason(const char *what)
{
    const unsigned long code = ERR_get_error();
    ERR_clear_error();
    char text[256] = {};
    if (code != 0)
        ERR_error_string_n(code, text, sizeof text);
    return QStringLiteral("cannot generate the self-signed serving certificate: %1 failed%2")
        .arg(QLatin1String(what),
            code != 0 ? QStringLiteral(" (%1)").arg(QString::fromLatin1(text)) : QString());
}

bool addExtension(X509 *cert, int nid, const QByteArray &value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
    const Extension ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.constData()));
    return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

QByteArray drain(BIO *bio)
{
    char *data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    return QByteArray(data, int(size));
}

} // namespace

Result<PemPair> generateSelfSignedCertificate(
    const QString &commonName, const QStringList &dnsNames, const QStringList &ipAddresses)
{
    const Key key(EVP_EC_gen("P-256"));
    if (!key)
        return Error {{}, CertDirFlag, openSslReason("EVP_EC_gen")};
    const Cert cert(X509_new());
    if (!cert || X509_set_version(cert.get(), 2) != 1)
        return Error {{}, CertDirFlag, openSslReason("X509_new")};
    // A random 127-bit serial: positive, and never repeated across restarts.
    const Bignum serial(BN_new());
    if (!serial || BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1
        || !BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())))
        return Error {{}, CertDirFlag, openSslReason("BN_rand")};
    if (!X509_gmtime_adj(X509_getm_notBefore(cert.get()), 0)
        || !X509_gmtime_adj(X509_getm_notAfter(cert.get()), long(ValidDays) * 24 * 3600))
        return Error {{}, CertDirFlag, openSslReason("X509_gmtime_adj")};
    X509_NAME *name = X509_get_subject_name(cert.get());
    const QByteArray cn = commonName.toUtf8();
    if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
            reinterpret_cast<const unsigned char *>(cn.constData()), int(cn.size()), -1, 0)
            != 1
        || X509_set_issuer_name(cert.get(), name) != 1
        || X509_set_pubkey(cert.get(), key.get()) != 1)
        return Error {{}, CertDirFlag, openSslReason("X509_set_subject")};
    QStringList altNames;
    for (const QString &dns : dnsNames)
        altNames << QStringLiteral("DNS:") + dns;
    for (const QString &ip : ipAddresses)
        altNames << QStringLiteral("IP:") + ip;
    if (!addExtension(cert.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0")
        || !addExtension(cert.get(), NID_key_usage, "critical,digitalSignature,keyCertSign")
        || !addExtension(cert.get(), NID_ext_key_usage, "serverAuth")
        || !addExtension(cert.get(), NID_subject_key_identifier, "hash")
        || (!altNames.isEmpty()
            && !addExtension(
                cert.get(), NID_subject_alt_name, altNames.join(QLatin1Char(',')).toUtf8())))
        return Error {{}, CertDirFlag, openSslReason("X509V3_EXT_conf_nid")};
    if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0)
        return Error {{}, CertDirFlag, openSslReason("X509_sign")};

    const Bio certBio(BIO_new(BIO_s_mem()));
    const Bio keyBio(BIO_new(BIO_s_mem()));
    if (!certBio || !keyBio || PEM_write_bio_X509(certBio.get(), cert.get()) != 1
        || PEM_write_bio_PrivateKey(keyBio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr)
            != 1)
        return Error {{}, CertDirFlag, openSslReason("PEM_write_bio")};
    return PemPair {drain(certBio.get()), drain(keyBio.get())};
}

Result<PemPair> generateServingCertificate()
{
    QStringList dns {QStringLiteral("localhost")};
    const QString host = QHostInfo::localHostName();
    // A host name that is itself an address, or that is not a DNS name, is left out.
    if (!host.isEmpty() && host != QLatin1String("localhost") && QHostAddress(host).isNull()
        && !host.contains(QLatin1Char(',')) && !host.contains(QLatin1Char(':')))
        dns << host;
    // k8s names its pair host@timestamp, so that two generations never look alike.
    return generateSelfSignedCertificate(
        QStringLiteral("localhost@%1").arg(QDateTime::currentSecsSinceEpoch()), dns,
        {QStringLiteral("127.0.0.1"), QStringLiteral("::1")});
}

Result<CertificateFiles> ensureServingCertificateIn(const QString &certDir)
{
    const QDir dir(certDir);
    CertificateFiles files {dir.absoluteFilePath(QStringLiteral("qcm.crt")),
        dir.absoluteFilePath(QStringLiteral("qcm.key")), false};
    const bool haveCert = QFileInfo::exists(files.certFile);
    const bool haveKey = QFileInfo::exists(files.keyFile);
    if (haveCert && haveKey)
        return files;
    if (haveCert != haveKey)
        return Error {haveCert ? files.keyFile : files.certFile, CertDirFlag,
            QStringLiteral("is missing while %1 exists; remove both to have a new pair made, or "
                           "restore it")
                .arg(haveCert ? files.certFile : files.keyFile)};
    if (!QDir().mkpath(dir.absolutePath()))
        return Error {dir.absolutePath(), CertDirFlag, QStringLiteral("cannot be created")};
    QFile::setPermissions(dir.absolutePath(),
        QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    const Result<PemPair> pair = generateServingCertificate();
    if (!pair)
        return pair.error();
    // The key first; the certificate last, so that a start cut short leaves a key without a
    // certificate, which the next start names.
    const auto write = [](const QString &path, const QByteArray &data,
                           QFileDevice::Permissions mode) -> std::optional<Error> {
        QFile file(path);
        // Created with its mode, so no byte of the key is ever readable by others.
        if (!file.open(QIODevice::WriteOnly | QIODevice::NewOnly, mode)
            || file.write(data) != data.size() || !file.flush())
            return Error {
                path, CertDirFlag, QStringLiteral("cannot be written: %1").arg(file.errorString())};
        return std::nullopt;
    };
    if (auto e
        = write(files.keyFile, pair->privateKey, QFileDevice::ReadOwner | QFileDevice::WriteOwner))
        return *e;
    if (auto e = write(files.certFile, pair->certificate,
            QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup
                | QFileDevice::ReadOther))
        return *e;
    files.generated = true;
    return files;
}

} // namespace qcm::host
