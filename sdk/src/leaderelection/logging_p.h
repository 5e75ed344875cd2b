// SPDX-License-Identifier: Apache-2.0
// The logging category of the leader-election package: qcm.leaderelection.
#pragma once

#include <QtCore/QLoggingCategory>

namespace qcm::leaderelection {
Q_DECLARE_LOGGING_CATEGORY(lcLeaderElection)
}
