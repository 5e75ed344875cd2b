// SPDX-License-Identifier: Apache-2.0
// WatchStream: what consumers of a watch need: the next event, and a way to stop
// (client-go's watch.Interface). client::Watch implements it; tests use fakes.
//
// Thread safety: next(), stop() and setEventSink() are safe from any thread.
#pragma once

#include <qcm/client/watchevent.h>
#include <qcm/clock.h>

#include <functional>
#include <optional>

namespace qcm::client {

class QCM_SDK_EXPORT WatchStream
{
public:
    virtual ~WatchStream();
    // The next event; nothing once the stream has ended and every event was taken, or when
    // `timeout` passes first.
    virtual std::optional<WatchEvent> next(Duration timeout = Duration::max()) = 0;
    virtual void stop() = 0;

    // Every later event but Error events goes to `sink`, on the thread that receives it,
    // instead of waiting for next(); the events already waiting go to it first, in order,
    // before this returns (those after a waiting Error event stay for next()). Error events,
    // and the end of the stream, still come through next(). An empty sink detaches: once
    // that call returns, no sink call runs or follows. False if the stream cannot (the
    // default; the fakes): then every event comes through next().
    // The sink runs on the stream's receiving thread (client::Watch: the REST client's I/O
    // thread, shared by every request of that client), so it must be quick and must not wait
    // for that client. The Reflector uses it to save a thread hand-off per event.
    using EventSink = std::function<void(const WatchEvent &)>;
    virtual bool setEventSink(EventSink sink);
};

} // namespace qcm::client
