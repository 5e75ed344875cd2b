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
    // instead of waiting for next(), while no event waits for next(). The sink returns true
    // when it took the event; an event it declines waits for next(), and so does every event
    // after it until next() has taken them all. The events already waiting go to a new sink
    // first, in order, before this returns, up to the first Error or declined event. Error
    // events, and the end of the stream, always come through next(). Call it from the thread
    // that calls next(), never during a next() of another thread. An empty sink detaches:
    // once that call returns, no sink call runs or follows. False if the stream cannot (the
    // default; the fakes): then every event comes through next().
    // The sink runs on the stream's receiving thread (client::Watch: the REST client's I/O
    // thread, shared by every request of that client), so it must be quick and must not wait
    // for that client. The Reflector uses it to save thread hand-offs.
    using EventSink = std::function<bool(const WatchEvent &)>;
    virtual bool setEventSink(EventSink sink);
};

} // namespace qcm::client
