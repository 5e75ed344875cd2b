// SPDX-License-Identifier: Apache-2.0
// RecordEvent: how the sample controllers record Kubernetes Events about an object (client-go's
// record.EventRecorder.Event), as one function, so that what records them is chosen in one
// place for all three: eventRecorderFor(context).
//
//     m_recordEvent(foo, record::EventTypeNormal, QStringLiteral("Synced"),
//                   QStringLiteral("Foo synced successfully"));
//
// eventRecorderFor() uses the host's recorder, ControllerContext::eventRecorder(): the host's
// one EventBroadcaster logs every Event and writes it to the API server as a core/v1 Event,
// with source component "<name>-controller" (docs/host.md, "Events"). A context without a
// recorder (a unit test that did not set one) is refused: the factory throws, and the host
// would mark the plugin failed with the reason. Unit tests pass a record::FakeRecorder, or a
// RecordEvent of their own to the controllers' other constructor.
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

// The Event recorder of the controller `context` belongs to: the context's. Throws
// std::invalid_argument when the context has none.
RecordEvent eventRecorderFor(const ControllerContext &context);

} // namespace qcm::samples
