// SPDX-License-Identifier: Apache-2.0
// X509Authenticator: authenticates a request by the client certificate it presented in the TLS
// handshake, as k8s.io/apiserver's x509 authenticator with CommonNameUserConversion: the chain
// must verify against the client CA bundle (--client-ca-file, or the client-ca-file of
// kube-system/extension-apiserver-authentication) for the purpose of TLS client
// authentication, at the current time; the user is the certificate's Common Name and its
// groups are its Organizations.
//
// Thread safety: setClientCa() and authenticate() on one thread (the host's main thread).
#pragma once

#include "auth/userinfo.h"

#include <qcm/result.h>

#include <QtNetwork/QSslCertificate>

#include <memory>

namespace qcm::host {

class X509Authenticator
{
public:
    X509Authenticator();
    ~X509Authenticator();

    // Replaces the CA bundle (PEM, one or more certificates); `source` names it in errors.
    // An empty bundle turns client certificates off.
    std::optional<Error> setClientCa(const QByteArray &pem, const QString &source);
    bool hasClientCa() const;
    // The bundle in force, as given.
    QByteArray clientCaPem() const { return m_pem; }

    // The user of `chain` (the peer's certificate first, then what it sent with it), or why it
    // is not one.
    Result<UserInfo> authenticate(const QList<QSslCertificate> &chain) const;

private:
    struct Store;
    std::unique_ptr<Store> m_store;
    QByteArray m_pem;
};

} // namespace qcm::host
