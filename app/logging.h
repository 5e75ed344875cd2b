// The host's logging categories: qcm.host (configuration, clients, signals, shutdown) and
// qcm.plugin (every plugin's discovery, state transitions and errors). Plugins log under
// qcm.controller.<name> (ControllerContext::logCategory()).
#pragma once

#include <QtCore/QLoggingCategory>

namespace qcm::host {

Q_DECLARE_LOGGING_CATEGORY(lcHost)
Q_DECLARE_LOGGING_CATEGORY(lcPlugin)

} // namespace qcm::host
