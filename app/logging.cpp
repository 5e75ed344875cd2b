// SPDX-License-Identifier: Apache-2.0
#include "logging.h"

namespace qcm::host {

Q_LOGGING_CATEGORY(lcHost, "qcm.host")
Q_LOGGING_CATEGORY(lcPlugin, "qcm.plugin")
Q_LOGGING_CATEGORY(lcEvents, "qcm.events")

} // namespace qcm::host
