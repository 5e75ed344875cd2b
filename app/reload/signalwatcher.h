// SPDX-License-Identifier: Apache-2.0
// SignalWatcher: Unix signals delivered as a Qt signal in the watcher's thread, through a
// self-pipe (the handler only writes the signal's number; a QSocketNotifier reads it).
//
// Shutdown signals (SIGTERM, SIGINT) follow Kubernetes' SetupSignalHandler: the first one is
// delivered as shutdownRequested(); a second one exits the process at once with status 1,
// from the handler itself, since the main thread may be busy shutting down.
//
// SIGHUP is delivered as reloadRequested(), each time (reloader.h); it no longer ends the
// process. It does not count as a shutdown signal.
//
// Thread safety: create one watcher, in the main thread, before other threads start.
#pragma once

#include <QtCore/QObject>

QT_BEGIN_NAMESPACE
class QSocketNotifier;
QT_END_NAMESPACE

namespace qcm::host {

class SignalWatcher : public QObject
{
    Q_OBJECT

public:
    explicit SignalWatcher(QObject *parent = nullptr);
    ~SignalWatcher() override;

signals:
    void shutdownRequested(int signal);
    void reloadRequested();

private:
    void readSignals();

    QSocketNotifier *m_notifier = nullptr;
};

} // namespace qcm::host
