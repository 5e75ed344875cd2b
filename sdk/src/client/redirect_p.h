// SPDX-License-Identifier: Apache-2.0
// Redirects: the REST client follows none (docs/client.md "Redirects"). A 3xx answer is the
// request's or the watch's result, and its Status says where the server pointed and why the
// client did not go there. Private to the SDK.
//
// Why: Qt's access manager follows redirects by default and sends the request's headers,
// the bearer token's included, to wherever Location points: another host, another port.
// client-go follows up to 10 and adds its token again on every hop. The kube-apiserver itself
// redirects no API request (it rejects aggregated servers' redirects by default,
// --aggregator-reject-forwarding-redirect), so not following costs nothing against it, and a
// redirecting server or proxy cannot take the client's credentials elsewhere.
//
// Thread safety: pure functions.
#pragma once

#include <qcm/client/status.h>

#include <QtCore/QByteArray>
#include <QtCore/QString>

#include <utility>

namespace qcm::client::detail {

inline bool isRedirect(int httpCode)
{
    return httpCode >= 300 && httpCode < 400;
}

// `status` (Status::fromResponse of a 3xx answer) with a message naming the Location (its
// first 512 bytes; control characters as '?').
inline Status redirectNotFollowed(Status status, QByteArray location)
{
    constexpr qsizetype MaxShown = 512;
    const bool cut = location.size() > MaxShown;
    location.truncate(MaxShown);
    for (char &c : location)
        if (uchar(c) < 0x20 || c == 0x7f)
            c = '?';
    QString shown
        = location.isEmpty() ? QStringLiteral("no Location") : QString::fromUtf8(location);
    if (cut)
        shown += QStringLiteral("...");
    status.message = QStringLiteral("the server answered %1 and redirected to %2; the client "
                                    "follows no redirect, so that its credentials reach the "
                                    "configured server only (docs/client.md, \"Redirects\")")
                         .arg(status.code)
                         .arg(shown);
    return status;
}

// The Status of an HTTP answer `code` with `body`: Status::fromResponse, with a redirect's
// message naming its `location` (what Response::status() and a watch's refusal both give).
inline Status answerStatus(int code, const QByteArray &body, const QByteArray &location)
{
    Status status = Status::fromResponse(code, body);
    return isRedirect(code) ? redirectNotFollowed(std::move(status), location) : status;
}

} // namespace qcm::client::detail
