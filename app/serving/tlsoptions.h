// SPDX-License-Identifier: Apache-2.0
// TlsOptions: the serving certificate and the TLS settings of qcm's endpoint, with
// kube-controller-manager's flags and values: --tls-cert-file and --tls-private-key-file (PEM),
// --tls-min-version (VersionTLS12, VersionTLS13) and --tls-cipher-suites (the IANA names Go's
// crypto/tls uses, for TLS 1.2; TLS 1.3's suites are always on, as in Go).
//
// Thread safety: plain values and pure functions.
#pragma once

#include <qcm/result.h>

#include <QtCore/QStringList>
#include <QtNetwork/QSslConfiguration>

namespace qcm::host {

struct TlsOptions
{
    QString certFile;
    QString keyFile;
    QString minVersion; // empty: VersionTLS12
    QStringList cipherSuites; // empty: the TLS library's defaults
};

// The QSslConfiguration for `options`, with the files read now. Errors name the flag.
Result<QSslConfiguration> loadTlsConfiguration(const TlsOptions &options);
// The same for a pair already in memory (options' files name it in errors, if set).
Result<QSslConfiguration> tlsConfiguration(
    const QByteArray &certPem, const QByteArray &keyPem, const TlsOptions &options);

// Checks the version and suites alone (no files): for the configuration and flags.
std::optional<Error> checkTlsSettings(const QString &minVersion, const QStringList &cipherSuites);

// The IANA names --tls-cipher-suites accepts, in Go's order.
QStringList supportedCipherSuiteNames();

} // namespace qcm::host
