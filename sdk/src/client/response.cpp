// SPDX-License-Identifier: Apache-2.0
// Response: a finished request's status and headers.
#include <qcm/client/response.h>
#include <qcm/client/status.h>

#include "redirect_p.h"

namespace qcm::client {

Status Response::status() const
{
    if (transportError)
        return *transportError;
    return detail::answerStatus(code, body, header("Location"));
}

QByteArray Response::header(const QByteArray &name) const
{
    for (const auto &[key, value] : headers)
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    return {};
}

} // namespace qcm::client
