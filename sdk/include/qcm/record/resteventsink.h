// SPDX-License-Identifier: Apache-2.0
// RestEventSink: an EventSink on the REST client (client-go's EventSinkImpl over the typed
// client's CreateWithEventNamespace, UpdateWithEventNamespace and PatchWithEventNamespace):
// POST, PUT and strategic-merge PATCH of /api/v1/namespaces/<event namespace>/events.
//
// With a namespace, the sink refuses Events of any other namespace ("can't create an event
// with namespace 'a' in namespace 'b'"); like client-go's plain error, that error is retried.
//
// Uses the REST client's blocking calls, so it must not be called on the client's I/O thread
// (the broadcaster calls it on its own watcher thread). The client must outlive the sink.
// Thread safety: every method is safe from any thread but the REST client's I/O thread.
#pragma once

#include <qcm/record/eventsink.h>

namespace qcm::client {
class RestClient;
}

namespace qcm::record {

class QCM_SDK_EXPORT RestEventSink : public EventSink
{
public:
    // `ns` empty: each Event goes to its own namespace.
    explicit RestEventSink(client::RestClient *client, const QString &ns = {});
    ~RestEventSink() override;

    SinkResult create(const Event &event) override;
    SinkResult update(const Event &event) override;
    SinkResult patch(const Event &oldEvent, const QByteArray &data) override;

private:
    client::RestClient *m_client;
    QString m_namespace;
};

} // namespace qcm::record
