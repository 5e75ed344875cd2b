// SPDX-License-Identifier: Apache-2.0
#include "reload/reloadstep.h"

namespace qcm::host {

ReloadStep nextStep(const PluginView &p)
{
    using S = PluginState;
    if (!p.enabled) {
        switch (p.state) {
        case S::Running:
            return ReloadStep::Stop;
        case S::Loaded:
        case S::Configured:
        case S::Stopped:
            return ReloadStep::Unload;
        default:
            return ReloadStep::None;
        }
    }
    switch (p.state) {
    case S::Running:
        // Not the leader any more: stopping it is the leader election's business.
        return p.stale && p.mayRun ? ReloadStep::Stop : ReloadStep::None;
    case S::Discovered:
    case S::Unloaded:
        if (p.fileChanged)
            return ReloadStep::None;
        return p.mayRun ? ReloadStep::Start : ReloadStep::Load;
    case S::Loaded:
    case S::Stopped:
        return p.mayRun ? ReloadStep::Start : ReloadStep::None;
    case S::Failed:
        if (p.retry && p.mayRun && !p.fileChanged
            && (p.error == PluginError::Kind::FactoryFailed
                || p.error == PluginError::Kind::StartFailed))
            return ReloadStep::Retry;
        return ReloadStep::None;
    case S::Configured: // only ever between two steps of one start
        return ReloadStep::None;
    case S::Quarantined: // until the next start (watchdog/crashrecords.h)
        return ReloadStep::None;
    }
    return ReloadStep::None;
}

QString stepName(ReloadStep step)
{
    switch (step) {
    case ReloadStep::None:
        return QStringLiteral("none");
    case ReloadStep::Start:
        return QStringLiteral("start");
    case ReloadStep::Load:
        return QStringLiteral("load");
    case ReloadStep::Stop:
        return QStringLiteral("stop");
    case ReloadStep::Unload:
        return QStringLiteral("unload");
    case ReloadStep::Retry:
        return QStringLiteral("retry");
    }
    return QStringLiteral("unknown");
}

} // namespace qcm::host
