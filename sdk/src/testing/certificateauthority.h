// SPDX-License-Identifier: Apache-2.0
// The TestEnvironment's certificates, made with the openssl command: a CA, and certificates
// it signs (the apiserver's serving certificate, client certificates of users). Private to
// the SDK. Thread safety: none needed (each call works on files in one directory).
#pragma once

#include <qcm/error.h>
#include <qcm/result.h>

#include <QtCore/QStringList>

#include <optional>

namespace qcm::testing::detail {

// Makes ca.crt and ca.key in `directory` (RSA 2048, ten years).
std::optional<Error> makeCertificateAuthority(const QString &directory, const QString &commonName);

// Makes <name>.key and <name>.crt in `directory`, signed by its ca.crt and ca.key.
// `subject` is openssl's form ("/O=system:masters/CN=admin"); `extensions` are lines of an
// openssl extension file ("extendedKeyUsage=clientAuth").
std::optional<Error> issueCertificate(const QString &directory, const QString &name,
    const QString &subject, const QString &extensions);

// Makes an RSA private key at `path` (the service-account signing key).
std::optional<Error> makePrivateKey(const QString &path);

// The subject of a client certificate for a Kubernetes user: CN is the user name, each O a
// group. Names and groups hold only letters, digits and ":._@-" (openssl's -subj reads '/'
// and '+' as separators and '\\' as an escape, so anything more could name another user).
Result<QString> userSubject(const QString &name, const QStringList &groups);

// A user name that also names files of the environment (<name>.crt, .key, .kubeconfig): the
// characters above, and not one the environment uses itself (admin, ca, serving, sa, tokens).
std::optional<Error> checkUserName(const QString &name);

} // namespace qcm::testing::detail
