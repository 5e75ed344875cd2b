// SPDX-License-Identifier: Apache-2.0
// EventWatcher: the handle of one consumer of an EventBroadcaster (what client-go's
// StartRecordingToSink, StartEventWatcher and StartLogging return as a watch.Interface).
//
// Each consumer has its own queue of at most maxQueuedEvents Events and its own thread, which
// runs the consumer (the sink writes, the handler, the log line). Dropping the handle does not
// stop the consumer; stop() does.
//
// Thread safety: every method is safe from any thread, including the consumer's own (stop()
// from inside a handler returns without waiting for that handler).
#pragma once

#include <qcm/global.h>

#include <memory>

namespace qcm::record {

namespace detail {
class Watcher;
}

class QCM_SDK_EXPORT EventWatcher
{
public:
    EventWatcher();
    explicit EventWatcher(std::shared_ptr<detail::Watcher> watcher);
    ~EventWatcher();
    EventWatcher(const EventWatcher &);
    EventWatcher &operator=(const EventWatcher &);

    // Stops the consumer: queued Events are discarded, a retry wait is cut short, and the
    // consumer's thread has finished when stop() returns (unless called from that thread).
    // Idempotent.
    void stop();
    bool isStopped() const;

private:
    std::shared_ptr<detail::Watcher> d;
};

} // namespace qcm::record
