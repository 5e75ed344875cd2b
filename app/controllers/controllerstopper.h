// SPDX-License-Identifier: Apache-2.0
// ControllerStopper: stops running controllers without blocking the event loop, for reloads.
//
// At shutdown the host may block its main thread while the controllers drain, but during a
// reload the other controllers' event handlers, the leader elector's renewals and the HTTP
// server all run on that thread: a controller that takes controllerShutdownTimeout to drain
// must not stall them (a leader would lose its lease). So stop() only calls
// Controller::shutDown() (the queue drains on the controller's own threads) and then looks,
// every PollInterval, whether the queue is empty and no worker is in reconcile(). Then, or
// at the deadline, it finishes with PluginSpec::stop() and what is left of the timeout,
// which is Stopped, or Failed (StopTimedOut) as at shutdown; and it calls `done`.
//
// If the plugin meanwhile stopped some other way (a shutdown, a lost leadership), or was
// destroyed, `done` is called as soon as that is seen; `done` is never called after
// finishNow() or the stopper's destruction.
//
// Thread safety: the host's main thread only.
#pragma once

#include "plugins/pluginspec.h"

#include <QtCore/QPointer>
#include <QtCore/QTimer>

#include <functional>

namespace qcm::host {

class ControllerStopper : public QObject
{
    Q_OBJECT

public:
    static constexpr Duration PollInterval = std::chrono::milliseconds(20);

    explicit ControllerStopper(QObject *parent = nullptr);
    ~ControllerStopper() override;

    // `plugin` must be Running. `done` runs on the main thread, from the event loop.
    void stop(PluginSpec *plugin, Duration timeout, std::function<void()> done);
    bool isStopping(const PluginSpec *plugin) const;
    int pending() const { return int(m_stops.size()); }
    // Finishes every stop in progress now, each within what is left of its timeout (the
    // caller is about to shut down); no `done` is called.
    void finishNow();

private:
    struct Stop
    {
        QPointer<PluginSpec> plugin;
        std::chrono::steady_clock::time_point deadline;
        std::function<void()> done;
    };
    void poll();
    static void finish(Stop &stop);

    std::vector<Stop> m_stops;
    QTimer m_timer;
};

} // namespace qcm::host
