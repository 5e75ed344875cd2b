// SPDX-License-Identifier: Apache-2.0
#include "auth/x509authenticator.h"

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

namespace qcm::host {

namespace {

X509 *toX509(const QSslCertificate &certificate)
{
    const QByteArray der = certificate.toDer();
    const auto *data = reinterpret_cast<const unsigned char *>(der.constData());
    return d2i_X509(nullptr, &data, long(der.size()));
}

} // namespace

struct X509Authenticator::Store
{
    X509_STORE *store = X509_STORE_new();
    ~Store() { X509_STORE_free(store); }
};

X509Authenticator::X509Authenticator() = default;
X509Authenticator::~X509Authenticator() = default;

bool X509Authenticator::hasClientCa() const
{
    return m_store != nullptr;
}

std::optional<Error> X509Authenticator::setClientCa(const QByteArray &pem, const QString &source)
{
    if (pem.trimmed().isEmpty()) {
        m_store.reset();
        m_pem.clear();
        return std::nullopt;
    }
    const QList<QSslCertificate> cas = QSslCertificate::fromData(pem, QSsl::Pem);
    if (cas.isEmpty())
        return Error {
            source, QStringLiteral("--client-ca-file"), QStringLiteral("holds no PEM certificate")};
    auto store = std::make_unique<Store>();
    for (const QSslCertificate &ca : cas) {
        X509 *x = toX509(ca);
        if (!x || X509_STORE_add_cert(store->store, x) != 1) {
            X509_free(x);
            return Error {source, QStringLiteral("--client-ca-file"),
                QStringLiteral("holds a certificate OpenSSL cannot use (%1)")
                    .arg(ca.subjectDisplayName())};
        }
        X509_free(x);
    }
    m_store = std::move(store);
    m_pem = pem;
    return std::nullopt;
}

Result<UserInfo> X509Authenticator::authenticate(const QList<QSslCertificate> &chain) const
{
    if (chain.isEmpty() || chain.constFirst().isNull())
        return Error {{}, {}, QStringLiteral("no client certificate")};
    if (!m_store)
        return Error {{}, {}, QStringLiteral("client certificates are not accepted: no client CA")};
    X509 *leaf = toX509(chain.constFirst());
    STACK_OF(X509) *intermediates = sk_X509_new_null();
    for (qsizetype i = 1; i < chain.size(); ++i)
        if (X509 *x = toX509(chain.at(i)))
            sk_X509_push(intermediates, x);
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    QString failure;
    if (!leaf || !intermediates || !ctx
        || X509_STORE_CTX_init(ctx, m_store->store, leaf, intermediates) != 1) {
        failure = QStringLiteral("the certificate cannot be read");
    } else {
        X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_CLIENT);
        if (X509_verify_cert(ctx) != 1)
            failure = QStringLiteral("x509: %1")
                          .arg(QString::fromLatin1(
                              X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx))));
    }
    X509_STORE_CTX_free(ctx);
    sk_X509_pop_free(intermediates, X509_free);
    X509_free(leaf);
    if (!failure.isEmpty())
        return Error {{}, {}, failure};
    const QSslCertificate &cert = chain.constFirst();
    UserInfo user;
    user.name = cert.subjectInfo(QSslCertificate::CommonName).value(0);
    user.groups = cert.subjectInfo(QSslCertificate::Organization);
    if (user.name.isEmpty())
        return Error {{}, {}, QStringLiteral("the client certificate has no Common Name")};
    return user;
}

} // namespace qcm::host
