// SPDX-License-Identifier: Apache-2.0
// Watchdog: sees when plugin code or the host's event loop makes no progress, from a thread of
// its own, so that a plugin that blocks is named rather than silently hanging the host:
//
//   * a controller's factory, event handler or reconcile() that has run for longer than the
//     stall timeout (qcm/detail/activitytracker.h says what runs where) makes that controller
//     stalled: a warning names it, what it was doing and the key; the gauge
//     qcm_controller_stalled{controller} is 1 and qcm_controller_stalls_total{controller,
//     activity} counts the stall; /healthz/<controller> fails with the same words, until it
//     returns (then an info line says after how long);
//   * the event loop of the host's main thread, which beats a heartbeat timer, counts as
//     blocked once no beat came for longer than the stall timeout: a warning names the plugin
//     code running on it, if any. The /livez check `event-loop` fails while it is blocked (a
//     probe then gets no answer at all, which the kubelet counts as a failure) and for one
//     stall timeout after, so that the probes queued during the block, answered as soon as it
//     ends, fail too: the kubelet restarts a host whose loop a plugin blocks.
//
// The watchdog watches; it does not interrupt plugin code (nothing in C++ can, safely).
//
// Thread safety: construct, start() and read the checks on the host's main thread; the
// watchdog's own thread only reads the activity tracker and the heartbeat, and writes metrics
// and its state under a mutex.
#pragma once

#include "serving/healthchecks.h"

#include <qcm/clock.h>

#include <QtCore/QHash>
#include <QtCore/QObject>
#include <QtCore/QTimer>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

namespace qcm::metrics {
class Registry;
}

namespace qcm::host {

class Watchdog : public QObject
{
    Q_OBJECT

public:
    // `registry` may be null (no metrics); it outlives the watchdog.
    Watchdog(Duration stallTimeout, metrics::Registry *registry, QObject *parent = nullptr);
    ~Watchdog() override;

    // Starts the heartbeat and the watching thread; a stall timeout of zero watches nothing.
    void start();
    Duration stallTimeout() const { return m_stallTimeout; }

    // Why `controller` is stalled, or nothing.
    std::optional<QString> controllerStall(const QString &controller) const;
    // The /livez check.
    HealthCheck eventLoopCheck() const;

private:
    struct Stall
    {
        QString activity; // "reconcile of \"ns/name\"", "add handler", "factory"
        QString kind; // reconcile, handler, factory: the counter's label
        TimePoint since;
    };
    void run();
    void checkOnce(TimePoint now);

    const Duration m_stallTimeout;
    metrics::Registry *const m_registry;
    QTimer m_heartbeat;
    std::atomic<TimePoint::rep> m_lastBeat {0};

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
    QHash<QString, Stall> m_stalled; // by controller
    std::optional<TimePoint> m_loopBlockedSince;
    QString m_loopBlockedBy;
    std::optional<TimePoint> m_loopUnblockedAt;
    Duration m_lastBlock {0};
    std::thread m_thread;
};

} // namespace qcm::host
