#include "recordevent.h"

#include <qcm/record/eventbroadcaster.h>
#include <qcm/record/resteventsink.h>

namespace qcm::samples {

namespace {
// The broadcaster and recorder of one controller whose host hands out no recorder. The
// broadcaster is shut down (its threads joined) before the context, whose log category it logs
// on, goes.
struct ControllerEvents
{
    explicit ControllerEvents(const ControllerContext &controllerContext)
        : context(controllerContext), broadcaster(std::make_shared<record::EventBroadcaster>())
    {
        broadcaster->startStructuredLogging(&context.logCategory());
        if (context.restClient())
            broadcaster->startRecordingToSink(
                std::make_shared<record::RestEventSink>(context.restClient()));
        recorder = broadcaster->newRecorder({context.controllerName(), {}});
    }
    ~ControllerEvents() { broadcaster->shutdown(); }
    ControllerEvents(const ControllerEvents &) = delete;
    ControllerEvents &operator=(const ControllerEvents &) = delete;

    const ControllerContext context;
    const std::shared_ptr<record::EventBroadcaster> broadcaster;
    std::shared_ptr<record::EventRecorder> recorder;
};
} // namespace

RecordEvent eventRecorderFor(const ControllerContext &context)
{
    if (std::shared_ptr<record::EventRecorder> recorder = context.eventRecorder()) {
        return [recorder](const client::Object &object, const QString &type, const QString &reason,
                   const QString &message) { recorder->event(object, type, reason, message); };
    }
    auto events = std::make_shared<ControllerEvents>(context);
    return [events](const client::Object &object, const QString &type, const QString &reason,
               const QString &message) { events->recorder->event(object, type, reason, message); };
}

} // namespace qcm::samples
