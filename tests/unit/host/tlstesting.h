// SPDX-License-Identifier: Apache-2.0
// TLS helpers for the serving tests: a certificate made by openssl, and a handshake with the
// in-process server that reports what it got.
#pragma once

#include <QtCore/QEventLoop>
#include <QtCore/QProcess>
#include <QtCore/QTimer>
#include <QtNetwork/QSslCipher>
#include <QtNetwork/QSslConfiguration>
#include <QtNetwork/QSslKey>
#include <QtNetwork/QSslSocket>

namespace qcm::host::testing {

// Runs openssl to make a self-signed certificate and key for 127.0.0.1 in `dir` (tls.crt,
// tls.key).
inline bool makeCertificate(const QString &dir)
{
    QProcess openssl;
    openssl.start(QStringLiteral("openssl"),
        {QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"),
            QStringLiteral("rsa:2048"), QStringLiteral("-nodes"), QStringLiteral("-days"),
            QStringLiteral("1"), QStringLiteral("-subj"), QStringLiteral("/CN=127.0.0.1"),
            QStringLiteral("-keyout"), dir + QStringLiteral("/tls.key"), QStringLiteral("-out"),
            dir + QStringLiteral("/tls.crt")});
    return openssl.waitForFinished(60000) && openssl.exitStatus() == QProcess::NormalExit
        && openssl.exitCode() == 0;
}

// A TLS handshake with `host`:port, offering only `protocol` (and `ciphers`, if any): the
// session's cipher and the server's certificate, or nothing if the handshake failed.
struct Handshake
{
    bool ok = false;
    QSslCipher cipher;
    QSslCertificate certificate;
    QList<QSslError> errors; // with a CA to verify against
};

struct HandshakeOptions
{
    QSsl::SslProtocol protocol = QSsl::TlsV1_2OrLater;
    QList<QSslCipher> ciphers;
    QString host = QStringLiteral("127.0.0.1");
    QList<QSslCertificate> caCertificates; // empty: no verification
    QSslCertificate clientCertificate;
    QSslKey clientKey;
};

inline Handshake handshake(quint16 port, const HandshakeOptions &o)
{
    QSslSocket socket;
    QSslConfiguration tls = socket.sslConfiguration();
    tls.setProtocol(o.protocol);
    if (o.caCertificates.isEmpty()) {
        tls.setPeerVerifyMode(QSslSocket::VerifyNone);
    } else {
        tls.setCaCertificates(o.caCertificates);
        tls.setPeerVerifyMode(QSslSocket::VerifyPeer);
    }
    if (!o.ciphers.isEmpty())
        tls.setCiphers(o.ciphers);
    if (!o.clientCertificate.isNull()) {
        tls.setLocalCertificate(o.clientCertificate);
        tls.setPrivateKey(o.clientKey);
    }
    socket.setSslConfiguration(tls);
    Handshake h;
    // The server answers on this thread's event loop: wait in one, not in waitForEncrypted().
    QEventLoop loop;
    QObject::connect(&socket, &QSslSocket::encrypted, &loop, &QEventLoop::quit);
    QObject::connect(&socket, &QSslSocket::errorOccurred, &loop, &QEventLoop::quit);
    QObject::connect(&socket, &QSslSocket::disconnected, &loop, &QEventLoop::quit);
    QObject::connect(&socket, &QSslSocket::sslErrors, &loop,
        [&h](const QList<QSslError> &errors) { h.errors = errors; });
    QTimer::singleShot(10000, &loop, &QEventLoop::quit);
    socket.connectToHostEncrypted(o.host, port);
    loop.exec();
    h.ok = socket.isEncrypted();
    if (h.ok) {
        h.cipher = socket.sessionCipher();
        h.certificate = socket.peerCertificate();
    }
    return h;
}

inline Handshake handshake(
    quint16 port, QSsl::SslProtocol protocol, const QList<QSslCipher> &ciphers = {})
{
    HandshakeOptions o;
    o.protocol = protocol;
    o.ciphers = ciphers;
    return handshake(port, o);
}

} // namespace qcm::host::testing
