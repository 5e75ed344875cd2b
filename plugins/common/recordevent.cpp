// SPDX-License-Identifier: Apache-2.0
#include "recordevent.h"

#include <qcm/record/eventrecorder.h>

#include <stdexcept>

namespace qcm::samples {

RecordEvent eventRecorderFor(const ControllerContext &context)
{
    std::shared_ptr<record::EventRecorder> recorder = context.eventRecorder();
    if (!recorder)
        throw std::invalid_argument("this controller records Events, and its context has no "
                                    "event recorder (ControllerContext::eventRecorder())");
    return [recorder](const client::Object &object, const QString &type, const QString &reason,
               const QString &message) { recorder->event(object, type, reason, message); };
}

} // namespace qcm::samples
