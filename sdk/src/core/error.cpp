// SPDX-License-Identifier: Apache-2.0
#include <qcm/error.h>

#include <QtCore/QStringList>

namespace qcm {

QString Error::toString() const
{
    QStringList parts;
    if (!file.isEmpty())
        parts << file;
    if (!field.isEmpty())
        parts << field;
    parts << (reason.isEmpty() ? QStringLiteral("unknown error") : reason);
    return parts.join(QStringLiteral(": "));
}

} // namespace qcm
