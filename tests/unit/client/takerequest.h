// SPDX-License-Identifier: Apache-2.0
// takeRequest: the request reading of the unit tests' HTTP/1.1 stand-in servers
// (fakeserver.h, ../host/fakeapiserver.h). It takes one whole request, its head and the body
// its Content-Length names, off the front of what a connection has sent so far.
//
// Thread safety: a free function over the caller's buffer.
#pragma once

#include <QtCore/QByteArray>
#include <QtCore/QList>
#include <QtCore/QMap>

#include <optional>

namespace qcm::unittest {

struct RawRequest
{
    QByteArray method;
    QByteArray path;
    QMap<QByteArray, QByteArray> headers; // lower-case names
    QByteArray body;
};

// The first whole request in buffer, removed from it; nullopt (buffer untouched) while its
// head or body is still incomplete.
inline std::optional<RawRequest> takeRequest(QByteArray &buffer)
{
    const qsizetype end = buffer.indexOf("\r\n\r\n");
    if (end < 0)
        return std::nullopt;
    RawRequest request;
    const QList<QByteArray> lines = buffer.left(end).split('\n');
    const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
    request.method = first.value(0);
    request.path = first.value(1);
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines[i].indexOf(':');
        if (colon > 0)
            request.headers.insert(
                lines[i].left(colon).trimmed().toLower(), lines[i].mid(colon + 1).trimmed());
    }
    const qsizetype length = request.headers.value("content-length").toLongLong();
    if (buffer.size() < end + 4 + length)
        return std::nullopt;
    request.body = buffer.mid(end + 4, length);
    buffer.remove(0, end + 4 + length);
    return request;
}

} // namespace qcm::unittest
