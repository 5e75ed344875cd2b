// SPDX-License-Identifier: Apache-2.0
// WatchStream: what consumers of a watch need: the next event, and a way to stop
// (client-go's watch.Interface). client::Watch implements it; tests use fakes.
//
// Thread safety: next() and stop() are safe from any thread.
#pragma once

#include <qcm/client/watchevent.h>
#include <qcm/clock.h>

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
};

} // namespace qcm::client
