// SPDX-License-Identifier: Apache-2.0
#include "serving/tlsoptions.h"

#include <qcm/detail/readatmost.h>

#include <QtCore/QFile>
#include <QtNetwork/QSslCipher>
#include <QtNetwork/QSslKey>

namespace qcm::host {

namespace {

const QString CertFlag = QStringLiteral("--tls-cert-file");
const QString KeyFlag = QStringLiteral("--tls-private-key-file");
const QString VersionFlag = QStringLiteral("--tls-min-version");
const QString SuitesFlag = QStringLiteral("--tls-cipher-suites");

// Go's crypto/tls suites for TLS 1.0-1.2 (tls.CipherSuites() and InsecureCipherSuites() that
// OpenSSL has): the IANA name Go and kube-controller-manager take, and OpenSSL's.
struct Suite
{
    const char *iana;
    const char *openssl;
};
constexpr Suite Suites[] = {
    {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256"},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA-AES256-GCM-SHA384"},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA-CHACHA20-POLY1305"},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "ECDHE-ECDSA-CHACHA20-POLY1305"},
    {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-GCM-SHA256"},
    {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA-AES256-GCM-SHA384"},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA-CHACHA20-POLY1305"},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "ECDHE-RSA-CHACHA20-POLY1305"},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA-AES128-SHA"},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA-AES256-SHA"},
    {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA-AES128-SHA"},
    {"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA-AES256-SHA"},
    {"TLS_RSA_WITH_AES_128_GCM_SHA256", "AES128-GCM-SHA256"},
    {"TLS_RSA_WITH_AES_256_GCM_SHA384", "AES256-GCM-SHA384"},
    {"TLS_RSA_WITH_AES_128_CBC_SHA", "AES128-SHA"},
    {"TLS_RSA_WITH_AES_256_CBC_SHA", "AES256-SHA"},
};

Result<QSsl::SslProtocol> minVersion(const QString &name)
{
    if (name.isEmpty() || name == QLatin1String("VersionTLS12"))
        return QSsl::TlsV1_2OrLater;
    if (name == QLatin1String("VersionTLS13"))
        return QSsl::TlsV1_3OrLater;
    if (name == QLatin1String("VersionTLS10") || name == QLatin1String("VersionTLS11"))
        return Error {{}, VersionFlag,
            QStringLiteral("%1 is not offered: TLS 1.0 and 1.1 are deprecated (RFC 8996); use "
                           "VersionTLS12 or VersionTLS13")
                .arg(name)};
    return Error {{}, VersionFlag,
        QStringLiteral("must be VersionTLS12 or VersionTLS13, not \"%1\"").arg(name)};
}

Result<QList<QSslCipher>> ciphers(const QStringList &names)
{
    QList<QSslCipher> out;
    for (const QString &name : names) {
        const Suite *found = nullptr;
        for (const Suite &s : Suites)
            if (name == QLatin1String(s.iana))
                found = &s;
        if (!found)
            return Error {{}, SuitesFlag,
                QStringLiteral("unknown cipher suite \"%1\"; the suites are %2")
                    .arg(name, supportedCipherSuiteNames().join(QStringLiteral(", ")))};
        const QSslCipher cipher(QLatin1String(found->openssl));
        if (cipher.isNull())
            return Error {{}, SuitesFlag,
                QStringLiteral("cipher suite %1 (%2) is not available in this TLS library")
                    .arg(name, QLatin1String(found->openssl))};
        if (!out.contains(cipher))
            out << cipher;
    }
    // TLS 1.3's suites stay on: Go does not let them be configured either.
    for (const QSslCipher &c : QSslConfiguration::supportedCiphers())
        if (c.protocol() == QSsl::TlsV1_3 && !out.contains(c))
            out << c;
    return out;
}

// A PEM private key of any of the algorithms Qt reads.
std::optional<QSslKey> readKey(const QByteArray &pem)
{
    for (const QSsl::KeyAlgorithm algorithm : {QSsl::Rsa, QSsl::Ec, QSsl::Dsa}) {
        QSslKey key(pem, algorithm, QSsl::Pem, QSsl::PrivateKey);
        if (!key.isNull())
            return key;
    }
    return std::nullopt;
}

} // namespace

QStringList supportedCipherSuiteNames()
{
    QStringList names;
    for (const Suite &s : Suites)
        names << QLatin1String(s.iana);
    return names;
}

std::optional<Error> checkTlsSettings(const QString &version, const QStringList &cipherSuites)
{
    if (const auto v = minVersion(version); !v)
        return v.error();
    if (const auto c = ciphers(cipherSuites); !c)
        return c.error();
    return std::nullopt;
}

Result<QSslConfiguration> tlsConfiguration(
    const QByteArray &certPem, const QByteArray &keyPem, const TlsOptions &options)
{
    const Result<QSsl::SslProtocol> protocol = minVersion(options.minVersion);
    if (!protocol)
        return protocol.error();
    const QList<QSslCertificate> chain = QSslCertificate::fromData(certPem, QSsl::Pem);
    if (chain.isEmpty() || chain.constFirst().isNull())
        return Error {options.certFile, CertFlag, QStringLiteral("holds no PEM certificate")};
    const std::optional<QSslKey> key = readKey(keyPem);
    if (!key)
        return Error {options.keyFile, KeyFlag,
            QStringLiteral("holds no unencrypted PEM private key (RSA, EC or DSA)")};
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    tls.setLocalCertificateChain(chain);
    tls.setPrivateKey(*key);
    tls.setProtocol(*protocol);
    if (!options.cipherSuites.isEmpty()) {
        const Result<QList<QSslCipher>> list = ciphers(options.cipherSuites);
        if (!list)
            return list.error();
        tls.setCiphers(*list);
    }
    tls.setPeerVerifyMode(QSslSocket::VerifyNone); // no client certificates are asked for
    return tls;
}

Result<QSslConfiguration> loadTlsConfiguration(const TlsOptions &options)
{
    if (options.certFile.isEmpty())
        return Error {{}, CertFlag, QStringLiteral("is needed with %1").arg(KeyFlag)};
    if (options.keyFile.isEmpty())
        return Error {{}, KeyFlag, QStringLiteral("is needed with %1").arg(CertFlag)};
    if (const auto v = minVersion(options.minVersion); !v)
        return v.error();
    QFile certFile(options.certFile);
    if (!certFile.open(QIODevice::ReadOnly))
        return Error {options.certFile, CertFlag,
            QStringLiteral("cannot read the certificate: %1").arg(certFile.errorString())};
    const Result<QByteArray> certPem
        = detail::readAtMost(certFile, detail::inputLimits().certificateBytes,
            QStringLiteral("the certificate"), QStringLiteral("limits.certificateBytes"));
    if (!certPem)
        return Error {options.certFile, CertFlag, certPem.error().reason};
    QFile keyFile(options.keyFile);
    if (!keyFile.open(QIODevice::ReadOnly))
        return Error {options.keyFile, KeyFlag,
            QStringLiteral("cannot read the private key: %1").arg(keyFile.errorString())};
    const Result<QByteArray> keyPem
        = detail::readAtMost(keyFile, detail::inputLimits().certificateBytes,
            QStringLiteral("the private key"), QStringLiteral("limits.certificateBytes"));
    if (!keyPem)
        return Error {options.keyFile, KeyFlag, keyPem.error().reason};
    return tlsConfiguration(*certPem, *keyPem, options);
}

} // namespace qcm::host
