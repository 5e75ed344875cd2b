// SPDX-License-Identifier: Apache-2.0
// ReloadStep: the next thing a reload does to one plugin, from where the plugin is and where
// the configuration wants it (a level-triggered reconcile, as controllers do: the Reloader
// asks again after every step, so a stop that finishes, a lost leadership or a plugin that
// fails in between are all taken into account).
//
//   enabled, may run here         Discovered/Unloaded -> Start (load, create, start)
//                                 Loaded/Stopped      -> Start (create, start)
//                                 Running, stale      -> Stop, then Start again
//                                 Failed at create or start, retry asked -> Retry
//   enabled, waits for leadership Discovered/Unloaded -> Load (standby, as at start-up)
//   disabled                      Running             -> Stop
//                                 Loaded/Configured/Stopped -> Unload
//   a file removed or replaced    nothing is loaded from it again (no Start, Load, Retry)
//
// "Stale": the running Controller was created with another ControllerSpec than the
// configuration gives now (configdiff.h). "Retry": the reload changed the plugin's spec or
// enabled it again. A plugin that failed because of its file (metadata, loading) is read
// again when the file changes, not here; one whose stop timed out is never touched.
//
// Thread safety: reentrant.
#pragma once

#include "plugins/pluginerror.h"
#include "plugins/pluginstate.h"

namespace qcm::host {

enum class ReloadStep { None, Start, Load, Stop, Unload, Retry };

struct PluginView
{
    PluginState state = PluginState::Discovered;
    PluginError::Kind error = PluginError::Kind::None;
    bool enabled = false;
    bool mayRun = true; // false: it needs leader election and this replica does not lead
    bool fileChanged = false; // its file was removed or replaced since it was read
    bool stale = false; // Running with another spec than the configuration's
    bool retry = false; // a Failed plugin the reload asks to try again
};

ReloadStep nextStep(const PluginView &plugin);
// "start", "load", ...
QString stepName(ReloadStep step);

} // namespace qcm::host
