// SPDX-License-Identifier: Apache-2.0
// The host's logging categories: qcm.host (configuration, clients, signals, shutdown),
// qcm.plugin (every plugin's discovery, state transitions and errors) and qcm.events (every
// Event the host's EventBroadcaster records, as client-go's StartStructuredLogging). Plugins
// log under qcm.controller.<name> (ControllerContext::logCategory()).
#pragma once

#include <QtCore/QLoggingCategory>

namespace qcm::host {

Q_DECLARE_LOGGING_CATEGORY(lcHost)
Q_DECLARE_LOGGING_CATEGORY(lcPlugin)
Q_DECLARE_LOGGING_CATEGORY(lcEvents)

} // namespace qcm::host
