// SPDX-License-Identifier: Apache-2.0
#include "reload/fileidentity.h"

#include <QtCore/QDateTime>
#include <QtCore/QFile>

#include <sys/stat.h>

namespace qcm::host {

FileIdentity FileIdentity::of(const QString &path)
{
    struct stat st = {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return {};
    FileIdentity id;
    id.exists = true;
    id.device = quint64(st.st_dev);
    id.inode = quint64(st.st_ino);
    id.size = qint64(st.st_size);
    id.modifiedNs = qint64(st.st_mtim.tv_sec) * 1000000000 + qint64(st.st_mtim.tv_nsec);
    return id;
}

QString FileIdentity::toString() const
{
    if (!exists)
        return QStringLiteral("missing");
    return QStringLiteral("inode %1, %2 bytes, modified %3")
        .arg(inode)
        .arg(size)
        .arg(QDateTime::fromMSecsSinceEpoch(modifiedNs / 1000000, Qt::UTC)
                 .toString(Qt::ISODateWithMs));
}

} // namespace qcm::host
