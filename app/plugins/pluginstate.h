// SPDX-License-Identifier: Apache-2.0
// PluginState: where one plugin is in its life, and which moves are allowed (Qt Creator's
// PluginSpec::State). Every transition is checked against this table; the host never moves a
// plugin any other way.
//
//   Discovered  its metadata was read and is valid; no code of it has run
//   Loaded      the library is loaded and its root object is a qcm::ControllerPlugin
//   Configured  its factory created a Controller from a ControllerContext
//   Running     the Controller was started (workers run once its caches have synced)
//   Stopped     the Controller stopped and drained its queue
//   Unloaded    the Controller was destroyed and the library unloaded
//   Failed      refused or broken, with a PluginError saying why
//   Quarantined its code crashed the host too often (watchdog/crashrecords.h): not loaded,
//               with a PluginError of kind quarantined saying why; lifted at the next start
//
//   Discovered -> Loaded | Failed | Quarantined
//   Loaded     -> Configured | Failed | Unloaded
//   Configured -> Running | Failed | Unloaded
//   Running    -> Stopped | Failed
//   Stopped    -> Configured (created again, on a reload) | Unloaded
//   Unloaded   -> Loaded (enabled again)
//   Failed     -> Unloaded (what was loaded is released)
//
// Thread safety: reentrant.
#pragma once

#include <QtCore/QString>

namespace qcm::host {

enum class PluginState {
    Discovered,
    Loaded,
    Configured,
    Running,
    Stopped,
    Unloaded,
    Failed,
    Quarantined
};

bool isTransitionAllowed(PluginState from, PluginState to);
// "discovered", "loaded", ...
QString stateName(PluginState state);

} // namespace qcm::host
