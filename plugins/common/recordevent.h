// RecordEvent: how the sample controllers record Kubernetes Events about an object (client-go's
// record.EventRecorder.Event), as one function, so that what records them is chosen in one
// place for all three: eventRecorderFor(context).
//
//     m_recordEvent(foo, EventTypeNormal, QStringLiteral("Synced"),
//                   QStringLiteral("Foo synced successfully"));
//
// ControllerContext has no event recorder yet (issue 6 adds one), so eventRecorderFor() logs
// each Event on the controller's log category, in the form of client-go's
// EventBroadcaster.StartStructuredLogging (what kube's sample-controller turns on):
//
//     Event occurred: object="ns/example-foo" kind="Foo"
//     apiVersion="samplecontroller.k8s.io/v1alpha1" type="Normal" reason="Synced" message="Foo
//     synced successfully"
//
// Once the context carries an EventRecorder, eventRecorderFor() forwards to it (recordevent.cpp
// says how) and no controller changes.
//
// Thread safety: the function eventRecorderFor() returns may be called from any thread.
#pragma once

#include <qcm/client/object.h>
#include <qcm/context.h>

#include <functional>

namespace qcm::samples {

inline const QString EventTypeNormal = QStringLiteral("Normal");
inline const QString EventTypeWarning = QStringLiteral("Warning");

using RecordEvent = std::function<void(const client::Object &object, const QString &type,
    const QString &reason, const QString &message)>;

// The Event recorder of the controller `context` belongs to.
RecordEvent eventRecorderFor(const ControllerContext &context);

// The log line eventRecorderFor() writes for an Event (without the category).
QString eventLogLine(const client::Object &object, const QString &type, const QString &reason,
    const QString &message);

} // namespace qcm::samples
