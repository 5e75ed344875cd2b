// SPDX-License-Identifier: Apache-2.0
// readAtMost: the contents of an open file, refused when longer than a limit, so that a file
// given to qcm (a kubeconfig, the files it names, a token file, controller-manager.yaml) cannot
// make it hold more than that. Special files whose size is unknown (a pipe, /dev/zero) are read
// up to the limit and no further. Not plugin API.
//
// Thread safety: reentrant (one QFile per call).
#pragma once

#include <qcm/result.h>

#include <QtCore/QFile>

namespace qcm::detail {

// Limits on files (docs/security.md, "Limits on inputs").
constexpr qint64 MaxKubeconfigBytes = 16 * 1024 * 1024; // a kubeconfig and every file it names
constexpr qint64 MaxConfigBytes = 4 * 1024 * 1024; // controller-manager.yaml
constexpr qint64 MaxTokenFileBytes = 1024 * 1024; // a bearer token file
constexpr qint64 MaxCertificateFileBytes = 16 * 1024 * 1024; // a serving certificate or key

// The reason is "<what> is larger than <limit> bytes, the limit for <what>"; the caller adds
// the file and field.
inline Result<QByteArray> readAtMost(QFile &file, qint64 maxBytes, const QString &what)
{
    const QByteArray data = file.read(maxBytes + 1);
    if (data.size() > maxBytes || file.size() > maxBytes)
        return Error {file.fileName(), {},
            QStringLiteral("%1 is larger than %2 bytes, the limit").arg(what).arg(maxBytes)};
    return data;
}

} // namespace qcm::detail
