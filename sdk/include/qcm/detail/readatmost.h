// SPDX-License-Identifier: Apache-2.0
// readAtMost: the contents of an open file, refused when longer than a limit, so that a file
// given to qcm (a kubeconfig, the files it names, a token file, controller-manager.yaml) cannot
// make it hold more than that. Special files whose size is unknown (a pipe, /dev/zero) are read
// up to the limit and no further. Not plugin API.
//
// Thread safety: reentrant (one QFile per call).
#pragma once

#include <qcm/detail/inputlimits.h>
#include <qcm/result.h>

#include <QtCore/QFile>

namespace qcm::detail {

// The limits themselves are InputLimits (inputlimits.h), configurable.
//
// The reason is "<what> is larger than <limit> bytes, the limit (<limitName>)"; the caller adds
// the file and field.
inline Result<QByteArray> readAtMost(
    QFile &file, qint64 maxBytes, const QString &what, const QString &limitName = {})
{
    QByteArray data = file.read(maxBytes + 1);
    if (data.size() > maxBytes || file.size() > maxBytes)
        return Error {file.fileName(), {},
            QStringLiteral("%1 is larger than %2 bytes, the limit%3")
                .arg(what)
                .arg(maxBytes)
                .arg(limitName.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(limitName))};
    // QIODevice::read(n) allocates n bytes before it reads: keep only what the file held (a
    // kubeconfig's certificate otherwise keeps a limit-sized buffer as long as it is kept).
    data.squeeze();
    return data;
}

} // namespace qcm::detail
