// SPDX-License-Identifier: Apache-2.0
// PathWatcher: reports that something on disk changed, once it has stopped changing. It
// watches files and directories with QFileSystemWatcher and, on any event, waits `settle`
// and takes a snapshot (a function of the caller's: a file's contents, a directory's
// listing); when two snapshots `settle` apart are equal and differ from the last one
// reported, it emits changed(). So a burst of events (an editor's write, rename and chmod; a
// `cp` still writing) gives one changed(), after the writer is done, and an event that left
// the snapshot as it was (a touched directory, a file written back unchanged) gives none.
//
// Watches the platform drops are added again: inotify forgets a file that is replaced by a
// rename (vim, `kubectl cp`, the ..data symlink swap of a ConfigMap volume) or deleted, and
// a directory that is removed. Each look re-adds every path that exists again; watching a
// file's directory as well (the caller passes both) sees the new file arrive.
//
// Thread safety: the thread it lives in (the host's main thread).
#pragma once

#include <qcm/clock.h>

#include <QtCore/QFileSystemWatcher>
#include <QtCore/QObject>
#include <QtCore/QTimer>

#include <functional>

namespace qcm::host {

class PathWatcher : public QObject
{
    Q_OBJECT

public:
    using Snapshot = std::function<QByteArray()>;

    // Takes the first snapshot now: changed() means "different from now".
    PathWatcher(
        const QStringList &paths, Snapshot snapshot, Duration settle, QObject *parent = nullptr);

    // Adds the watch of every path that exists and is not watched (after a rename, or a
    // directory created since).
    void ensureWatched();
    QStringList watchedPaths() const;

signals:
    void changed();

private:
    void look();

    const QStringList m_paths;
    const Snapshot m_snapshot;
    QFileSystemWatcher m_watcher;
    QTimer m_timer;
    QByteArray m_reported; // the snapshot changed() was last emitted for (or the first one)
    QByteArray m_lastLook;
};

} // namespace qcm::host
