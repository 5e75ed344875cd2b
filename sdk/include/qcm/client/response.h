// SPDX-License-Identifier: Apache-2.0
// Response: what a raw request returned.
//
// Plain value; copy it freely.
#pragma once

#include <qcm/client/status.h>
#include <qcm/global.h>

#include <QtCore/QByteArray>
#include <QtCore/QList>
#include <QtCore/QPair>

namespace qcm::client {

struct QCM_SDK_EXPORT Response
{
    int code = 0; // HTTP status; 0 when the request failed before a response
    QByteArray body;
    QList<QPair<QByteArray, QByteArray>> headers;
    bool http2 = false; // the response came over HTTP/2
    int attempts = 1; // 1 + retries
    std::optional<Status> transportError; // set when code is 0

    bool isSuccess() const { return code >= 200 && code < 300; }
    // The error as a Status: the transport error, or the body of a non-2xx response.
    Status status() const;
    QByteArray header(const QByteArray &name) const;
};

} // namespace qcm::client
