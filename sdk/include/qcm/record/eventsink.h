// SPDX-License-Identifier: Apache-2.0
// EventSink: where a broadcaster writes Events (client-go's record.EventSink): create, update
// and strategic-merge patch of core/v1 Events, each returning the server's copy.
//
// A sink writes each Event into the Event's own namespace. Errors are client::Status values
// and decide what the broadcaster does next, as client-go's recordToSink decides:
//   * a Status from the server (code != 0): the server rejected the Event; not retried;
//   * a patch that fails with 404 NotFound: the Event is created again instead;
//   * requestConstructionError(): the request cannot be made; not retried;
//   * any other error with code 0 (transport failures, undecodable responses): retried.
//
// Thread safety: the broadcaster calls a sink from one thread at a time, the thread of the
// watcher it was given to (startRecordingToSink); a sink shared by several broadcasters must
// be safe from several threads.
#pragma once

#include <qcm/client/status.h>
#include <qcm/record/event.h>

#include <QtCore/QByteArray>

namespace qcm::record {

using SinkResult = Result<Event, client::Status>;

class QCM_SDK_EXPORT EventSink
{
public:
    virtual ~EventSink();

    virtual SinkResult create(const Event &event) = 0;
    // Replaces the Event (its resourceVersion makes the write conditional).
    virtual SinkResult update(const Event &event) = 0;
    // Patches the Event named by oldEvent's namespace and name with a strategic-merge patch.
    virtual SinkResult patch(const Event &oldEvent, const QByteArray &data) = 0;

    // The error of a request that could not be constructed (client-go's
    // RequestConstructionError): reason "RequestConstruction", code 0. Never retried.
    static client::Status requestConstructionError(const QString &message);
    static bool isRequestConstructionError(const client::Status &status);
};

} // namespace qcm::record
