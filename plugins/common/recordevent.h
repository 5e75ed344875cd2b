// RecordEvent: how the sample controllers record Kubernetes Events about an object (client-go's
// record.EventRecorder.Event), as one function, so that what records them is chosen in one
// place for all three: eventRecorderFor(context).
//
//     m_recordEvent(foo, record::EventTypeNormal, QStringLiteral("Synced"),
//                   QStringLiteral("Foo synced successfully"));
//
// ControllerContext hands out no event recorder yet, so eventRecorderFor() does what kube's
// sample-controller does in NewController: an EventBroadcaster of the controller's own, that
// logs every Event on the controller's category (StartStructuredLogging) and writes it to the
// API server as a core/v1 Event (StartRecordingToSink), and a recorder whose source component
// is the controller's name. Once the context has a recorder, eventRecorderFor() returns a
// function calling it instead, and no controller changes.
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

// The Event recorder of the controller `context` belongs to. Without a REST client in the
// context (a unit test) the Events are only logged.
RecordEvent eventRecorderFor(const ControllerContext &context);

} // namespace qcm::samples
