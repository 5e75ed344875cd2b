// SPDX-License-Identifier: Apache-2.0
// FileIdentity: which file a path named when it was looked at (device, inode, size and
// modification time), to tell a file that was replaced (a new inode, as `install`, `mv` and
// package managers do), rewritten (same inode, new size or time) or removed from the one that
// was read. The plugin directories' watch compares identities; nothing here reads contents.
//
// Thread safety: a plain value; of() is reentrant.
#pragma once

#include <QtCore/QString>
#include <QtCore/QtGlobal>

namespace qcm::host {

struct FileIdentity
{
    bool exists = false;
    quint64 device = 0;
    quint64 inode = 0;
    qint64 size = 0;
    qint64 modifiedNs = 0; // st_mtim, in nanoseconds

    // stat(2) of the path, following symlinks; `exists` is false if it cannot be stat'ed.
    static FileIdentity of(const QString &path);
    // "inode 1234, 5678 bytes, modified 2024-05-01T10:00:00.123": for log lines.
    QString toString() const;

    friend bool operator==(const FileIdentity &a, const FileIdentity &b)
    {
        return a.exists == b.exists && a.device == b.device && a.inode == b.inode
            && a.size == b.size && a.modifiedNs == b.modifiedNs;
    }
    friend bool operator!=(const FileIdentity &a, const FileIdentity &b) { return !(a == b); }
};

} // namespace qcm::host
