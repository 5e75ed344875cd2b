// SPDX-License-Identifier: Apache-2.0
#include "watchdog/watchdog.h"

#include "config/duration.h"
#include "logging.h"

#include <qcm/detail/activitytracker.h>
#include <qcm/metrics/registry.h>

namespace qcm::host {

namespace {

using Tracker = detail::ActivityTracker;

QString describe(const Tracker::Activity &a)
{
    switch (a.kind) {
    case Tracker::Kind::Reconcile:
        return QStringLiteral("reconcile of \"%1\"").arg(a.what);
    case Tracker::Kind::Handler:
        return QStringLiteral("%1 handler").arg(a.what);
    case Tracker::Kind::Create:
        return QStringLiteral("factory");
    }
    return {};
}

QString seconds(Duration d)
{
    return QString::number(std::chrono::duration<double>(d).count(), 'f', 1) + QLatin1Char('s');
}

metrics::Gauge &stalledGauge(metrics::Registry &registry, const QString &controller)
{
    return registry
        .add<metrics::Gauge>(QStringLiteral("qcm_controller_stalled"),
            QStringLiteral("1 while a controller's handler, reconcile or factory has run for "
                           "longer than the watchdog's stall timeout."))
        .add({{QStringLiteral("controller"), controller}});
}

} // namespace

Watchdog::Watchdog(Duration stallTimeout, metrics::Registry *registry, QObject *parent)
    : QObject(parent), m_stallTimeout(stallTimeout), m_registry(registry)
{ }

Watchdog::~Watchdog()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

void Watchdog::start()
{
    if (m_stallTimeout <= Duration::zero() || m_thread.joinable())
        return;
    // Beats several times per timeout, so that a late beat is never mistaken for a block.
    const auto beat = std::max<Duration>(m_stallTimeout / 8, std::chrono::milliseconds(20));
    m_heartbeat.setInterval(std::chrono::duration_cast<std::chrono::milliseconds>(beat));
    connect(&m_heartbeat, &QTimer::timeout, this,
        [this] { m_lastBeat.store(Clock::system()->now().time_since_epoch().count()); });
    m_lastBeat.store(Clock::system()->now().time_since_epoch().count());
    m_heartbeat.start();
    m_thread = std::thread([this] { run(); });
}

void Watchdog::run()
{
    const auto period = std::clamp<Duration>(
        m_stallTimeout / 4, std::chrono::milliseconds(10), std::chrono::seconds(1));
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        lock.unlock();
        checkOnce(Clock::system()->now());
        lock.lock();
        m_wake.wait_for(lock, period, [this] { return m_stopping; });
    }
}

void Watchdog::checkOnce(TimePoint now)
{
    const QList<Tracker::Activity> activities = Tracker::snapshot();
    QHash<QString, Stall> stalled;
    QString onMainThread;
    for (const Tracker::Activity &a : activities) {
        if (a.onMainThread)
            onMainThread = QStringLiteral("%1's %2").arg(a.controller, describe(a));
        if (now - a.since > m_stallTimeout && !stalled.contains(a.controller))
            stalled.insert(a.controller, {describe(a), Tracker::kindName(a.kind), a.since});
    }
    const TimePoint lastBeat {Duration(m_lastBeat.load())};
    const bool loopBlocked = now - lastBeat > m_stallTimeout;

    std::lock_guard lock(m_mutex);
    for (auto it = stalled.cbegin(); it != stalled.cend(); ++it) {
        if (m_stalled.contains(it.key()))
            continue;
        qCWarning(lcHost).noquote()
            << QStringLiteral("watchdog: controller %1 has made no progress for %2 in its %3 "
                              "(stall timeout %4)")
                   .arg(it.key(), seconds(now - it->since), it->activity,
                       formatDuration(m_stallTimeout));
        if (m_registry) {
            stalledGauge(*m_registry, it.key()).set(1);
            m_registry
                ->add<metrics::Counter>(QStringLiteral("qcm_controller_stalls_total"),
                    QStringLiteral("Times a controller's handler, reconcile or factory was seen "
                                   "running for longer than the watchdog's stall timeout."))
                .add({{QStringLiteral("controller"), it.key()},
                    {QStringLiteral("activity"), it->kind}})
                .increment();
        }
    }
    for (auto it = m_stalled.cbegin(); it != m_stalled.cend(); ++it) {
        if (stalled.contains(it.key()))
            continue;
        qCInfo(lcHost).noquote() << QStringLiteral(
            "watchdog: controller %1 made progress again, after %2 in its %3")
                                        .arg(it.key(), seconds(now - it->since), it->activity);
        if (m_registry)
            stalledGauge(*m_registry, it.key()).set(0);
    }
    m_stalled = stalled;

    if (loopBlocked && !m_loopBlockedSince) {
        m_loopBlockedSince = lastBeat;
        m_loopBlockedBy = onMainThread;
        qCWarning(lcHost).noquote()
            << QStringLiteral("watchdog: the event loop has made no progress for %1 (stall "
                              "timeout %2); %3: /livez fails")
                   .arg(seconds(now - lastBeat), formatDuration(m_stallTimeout),
                       onMainThread.isEmpty() ? QStringLiteral("no plugin code is running on it")
                                              : QStringLiteral("it runs ") + onMainThread);
    } else if (!loopBlocked && m_loopBlockedSince) {
        m_lastBlock = lastBeat - *m_loopBlockedSince;
        m_loopUnblockedAt = lastBeat;
        m_loopBlockedSince.reset();
        qCInfo(lcHost).noquote() << QStringLiteral(
            "watchdog: the event loop runs again, after %1 blocked")
                                        .arg(seconds(m_lastBlock));
    }
}

std::optional<QString> Watchdog::controllerStall(const QString &controller) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_stalled.constFind(controller);
    if (it == m_stalled.cend())
        return std::nullopt;
    return QStringLiteral("stalled: no progress for %1 in its %2 (stall timeout %3)")
        .arg(seconds(Clock::system()->now() - it->since), it->activity,
            formatDuration(m_stallTimeout));
}

HealthCheck Watchdog::eventLoopCheck() const
{
    return {QStringLiteral("event-loop"), [this]() -> std::optional<QString> {
                std::lock_guard lock(m_mutex);
                const TimePoint now = Clock::system()->now();
                if (m_loopBlockedSince)
                    return QStringLiteral("blocked for %1%2")
                        .arg(seconds(now - *m_loopBlockedSince),
                            m_loopBlockedBy.isEmpty() ? QString()
                                                      : QStringLiteral(" by ") + m_loopBlockedBy);
                if (m_loopUnblockedAt && now - *m_loopUnblockedAt < m_stallTimeout)
                    return QStringLiteral("was blocked for %1%2, until %3 ago")
                        .arg(seconds(m_lastBlock),
                            m_loopBlockedBy.isEmpty() ? QString()
                                                      : QStringLiteral(" by ") + m_loopBlockedBy,
                            seconds(now - *m_loopUnblockedAt));
                return std::nullopt;
            }};
}

} // namespace qcm::host
