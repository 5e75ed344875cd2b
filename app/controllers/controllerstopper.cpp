// SPDX-License-Identifier: Apache-2.0
#include "controllers/controllerstopper.h"

namespace qcm::host {

ControllerStopper::ControllerStopper(QObject *parent) : QObject(parent)
{
    m_timer.setInterval(std::chrono::duration_cast<std::chrono::milliseconds>(PollInterval));
    connect(&m_timer, &QTimer::timeout, this, &ControllerStopper::poll);
}

ControllerStopper::~ControllerStopper()
{
    finishNow();
}

void ControllerStopper::stop(PluginSpec *plugin, Duration timeout, std::function<void()> done)
{
    Q_ASSERT(plugin && plugin->state() == PluginState::Running && plugin->controller());
    plugin->controller()->shutDown(); // no new work; the queue drains on the workers
    m_stops.push_back({plugin, std::chrono::steady_clock::now() + timeout, std::move(done)});
    if (!m_timer.isActive())
        m_timer.start();
}

bool ControllerStopper::isStopping(const PluginSpec *plugin) const
{
    return std::any_of(
        m_stops.cbegin(), m_stops.cend(), [plugin](const Stop &s) { return s.plugin == plugin; });
}

void ControllerStopper::finish(Stop &stop)
{
    if (!stop.plugin || stop.plugin->state() != PluginState::Running)
        return; // stopped meanwhile by someone else
    const Duration left
        = std::max<Duration>(Duration::zero(), stop.deadline - std::chrono::steady_clock::now());
    stop.plugin->stop(left);
}

void ControllerStopper::poll()
{
    const auto now = std::chrono::steady_clock::now();
    std::vector<std::function<void()>> done;
    for (auto it = m_stops.begin(); it != m_stops.end();) {
        PluginSpec *plugin = it->plugin;
        Controller *controller = plugin ? plugin->controller() : nullptr;
        const bool elsewhere = !plugin || plugin->state() != PluginState::Running || !controller;
        // Drained: nothing queued and nobody in reconcile(), so the workers return at once;
        // or the caches never synced, so no worker was ever started.
        const bool drained = !elsewhere
            && (!controller->hasSynced()
                || (controller->queue().len() == 0 && controller->activeWorkers() == 0));
        if (!elsewhere && !drained && now < it->deadline) {
            ++it;
            continue;
        }
        finish(*it);
        done.push_back(std::move(it->done));
        it = m_stops.erase(it);
    }
    if (m_stops.empty())
        m_timer.stop();
    for (const auto &callback : done) {
        if (callback)
            callback();
    }
}

void ControllerStopper::finishNow()
{
    m_timer.stop();
    std::vector<Stop> stops;
    stops.swap(m_stops);
    for (Stop &stop : stops)
        finish(stop);
}

} // namespace qcm::host
