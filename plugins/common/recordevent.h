// RecordEvent: how the sample controllers record Kubernetes Events about an object (client-go's
// record.EventRecorder.Event), as one function, so that what records them is chosen in one
// place for all three: eventRecorderFor(context).
//
//     m_recordEvent(foo, record::EventTypeNormal, QStringLiteral("Synced"),
//                   QStringLiteral("Foo synced successfully"));
//
// eventRecorderFor() uses the host's recorder, ControllerContext::eventRecorder(). A host that
// hands out none gets what kube's sample-controller does in NewController: an
// EventBroadcaster of the controller's own, that logs every Event on the controller's
// category (StartStructuredLogging) and writes it to the API server as a core/v1 Event
// (StartRecordingToSink), with a recorder whose source component is the controller's name.
//
// Thread safety: the function eventRecorderFor() returns may be called from any thread; it
// never blocks (the broadcaster queues the Event).
#pragma once

#include <qcm/client/object.h>
#include <qcm/context.h>
#include <qcm/record/event.h>

#include <functional>

namespace qcm::samples {

using record::EventTypeNormal;
using record::EventTypeWarning;

using RecordEvent = std::function<void(const client::Object &object, const QString &type,
    const QString &reason, const QString &message)>;

// The Event recorder of the controller `context` belongs to: the context's, or else one of
// its own (which only logs when the context has no REST client either).
RecordEvent eventRecorderFor(const ControllerContext &context);

} // namespace qcm::samples
