// SPDX-License-Identifier: Apache-2.0
#include "plugins/pluginstate.h"

namespace qcm::host {

bool isTransitionAllowed(PluginState from, PluginState to)
{
    using S = PluginState;
    switch (from) {
    case S::Discovered:
        return to == S::Loaded || to == S::Failed || to == S::Quarantined;
    case S::Loaded:
        return to == S::Configured || to == S::Failed || to == S::Unloaded;
    case S::Configured:
        return to == S::Running || to == S::Failed || to == S::Unloaded;
    case S::Running:
        return to == S::Stopped || to == S::Failed;
    case S::Stopped:
        return to == S::Configured || to == S::Unloaded;
    case S::Unloaded:
        return to == S::Loaded;
    case S::Failed:
        return to == S::Unloaded;
    case S::Quarantined:
        return false;
    }
    return false;
}

QString stateName(PluginState state)
{
    switch (state) {
    case PluginState::Discovered:
        return QStringLiteral("discovered");
    case PluginState::Loaded:
        return QStringLiteral("loaded");
    case PluginState::Configured:
        return QStringLiteral("configured");
    case PluginState::Running:
        return QStringLiteral("running");
    case PluginState::Stopped:
        return QStringLiteral("stopped");
    case PluginState::Unloaded:
        return QStringLiteral("unloaded");
    case PluginState::Failed:
        return QStringLiteral("failed");
    case PluginState::Quarantined:
        return QStringLiteral("quarantined");
    }
    return QStringLiteral("unknown");
}

} // namespace qcm::host
