// SPDX-License-Identifier: Apache-2.0
// The logging category of the events package: qcm.record.
#pragma once

#include <QtCore/QLoggingCategory>

namespace qcm::record {
Q_DECLARE_LOGGING_CATEGORY(lcRecord)
}
