#include "logging.h"

namespace qcm::host {

Q_LOGGING_CATEGORY(lcHost, "qcm.host")
Q_LOGGING_CATEGORY(lcPlugin, "qcm.plugin")

} // namespace qcm::host
