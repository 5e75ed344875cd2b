// SPDX-License-Identifier: Apache-2.0
#include "reload/pathwatcher.h"

#include <QtCore/QFileInfo>

namespace qcm::host {

PathWatcher::PathWatcher(
    const QStringList &paths, Snapshot snapshot, Duration settle, QObject *parent)
    : QObject(parent), m_paths(paths), m_snapshot(std::move(snapshot)), m_watcher(this)
{
    m_timer.setSingleShot(true);
    m_timer.setInterval(std::chrono::duration_cast<std::chrono::milliseconds>(settle));
    connect(&m_timer, &QTimer::timeout, this, &PathWatcher::look);
    // Every event restarts the wait: a burst is looked at once it is over.
    auto restart = [this] { m_timer.start(); };
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, restart);
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this, restart);
    ensureWatched();
    m_reported = m_lastLook = m_snapshot();
}

void PathWatcher::ensureWatched()
{
    const QStringList files = m_watcher.files();
    const QStringList directories = m_watcher.directories();
    for (const QString &path : m_paths) {
        if (files.contains(path) || directories.contains(path) || !QFileInfo::exists(path))
            continue;
        m_watcher.addPath(path);
    }
}

QStringList PathWatcher::watchedPaths() const
{
    return m_watcher.files() + m_watcher.directories();
}

void PathWatcher::look()
{
    ensureWatched();
    const QByteArray now = m_snapshot();
    if (now != m_lastLook) {
        // Still changing (or changed since the last look): look again once it has settled.
        m_lastLook = now;
        m_timer.start();
        return;
    }
    if (now == m_reported)
        return;
    m_reported = now;
    emit changed();
}

} // namespace qcm::host
