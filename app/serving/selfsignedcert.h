// SPDX-License-Identifier: Apache-2.0
// The serving certificate qcm makes itself when it is given none, as kube-controller-manager
// does (k8s.io/apiserver's SecureServingOptions.MaybeDefaultWithSelfSignedCerts):
//
//   * with --cert-dir, the pair lives in <dir>/qcm.crt and <dir>/qcm.key: made and written
//     (the key mode 0600, the directory 0700) on the first start, read on every later one, and
//     reloaded when it changes on disk like any --tls-cert-file;
//   * without, it is made at each start and held in memory only.
//
// The certificate is self-signed, valid for one year, ECDSA P-256, for localhost, 127.0.0.1,
// ::1 and the machine's host name, with the extended key usage serverAuth. It is its own CA
// (CA:TRUE, pathlen 0, keyCertSign), as Go's httptest certificate, so that strict verifiers
// (OpenSSL's X509_check_issued, Python's VERIFY_X509_STRICT) take it as a trust anchor. A
// client trusts it by taking the .crt file as its CA (curl --cacert), or skips verification
// (curl -k).
//
// Thread safety: pure functions; safe from any thread.
#pragma once

#include <qcm/result.h>

#include <QtCore/QByteArray>
#include <QtCore/QStringList>

namespace qcm::host {

struct PemPair
{
    QByteArray certificate;
    QByteArray privateKey; // PKCS#8, unencrypted
};

// A new self-signed pair whose subject is CN=<commonName> and whose subjectAltNames are
// `dnsNames` and `ipAddresses`.
Result<PemPair> generateSelfSignedCertificate(
    const QString &commonName, const QStringList &dnsNames, const QStringList &ipAddresses);

// qcm's pair as above: localhost, 127.0.0.1, ::1 and the host name.
Result<PemPair> generateServingCertificate();

struct CertificateFiles
{
    QString certFile;
    QString keyFile;
    bool generated = false; // made now, rather than found
};

// The pair in `certDir` (qcm.crt, qcm.key): found if both exist, made and written if neither
// does. One without the other, a directory that cannot be made or a file that cannot be
// written is an Error naming --cert-dir.
Result<CertificateFiles> ensureServingCertificateIn(const QString &certDir);

} // namespace qcm::host
