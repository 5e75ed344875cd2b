// SPDX-License-Identifier: Apache-2.0
// A blocking GET for the serving tests: runs the event loop (where the in-process server
// answers) until the reply is complete.
#pragma once

#include <QtCore/QEventLoop>
#include <QtCore/QTimer>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkReply>
#include <QtNetwork/QSslError>

namespace qcm::host::testing {

struct HttpResult
{
    int status = 0; // 0: no HTTP answer (see error)
    QByteArray body;
    QByteArray contentType;
    QByteArray header(const QByteArray &name) const { return headers.value(name.toLower()); }
    QMap<QByteArray, QByteArray> headers; // lower-case names
    QString error;
};

inline HttpResult httpGet(
    QNetworkAccessManager &nam, const QUrl &url, bool trustAnyCertificate = false)
{
    QNetworkRequest request(url);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    QNetworkReply *reply = nam.get(request);
    if (trustAnyCertificate)
        QObject::connect(reply, &QNetworkReply::sslErrors, reply,
            [reply](const QList<QSslError> &) { reply->ignoreSslErrors(); });
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(10000, &loop, &QEventLoop::quit);
    loop.exec();
    HttpResult r;
    if (!reply->isFinished()) {
        r.error = QStringLiteral("timed out");
        reply->abort();
    }
    r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    r.body = reply->readAll();
    r.contentType = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray();
    for (const auto &pair : reply->rawHeaderPairs())
        r.headers.insert(pair.first.toLower(), pair.second);
    if (r.error.isEmpty() && reply->error() != QNetworkReply::NoError && r.status == 0)
        r.error = reply->errorString();
    reply->deleteLater();
    return r;
}

} // namespace qcm::host::testing
