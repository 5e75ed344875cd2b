// SPDX-License-Identifier: Apache-2.0
// Queue: what an informer's Reflector feeds and its processing loop pops (client-go's
// cache.Queue). Two implementations: DeltaFifo, which merges the deltas of a key until they
// are popped together, and RealFifo, which hands out every delta in arrival order.
//
// Thread safety: implementations are safe from any thread; pop() blocks until an item is
// queued or the queue is closed.
#pragma once

#include <qcm/cache/delta.h>
#include <qcm/error.h>
#include <qcm/result.h>

#include <functional>
#include <optional>

namespace qcm::cache {

class QCM_SDK_EXPORT Queue
{
public:
    virtual ~Queue();

    virtual std::optional<Error> add(const client::Object &object) = 0;
    virtual std::optional<Error> update(const client::Object &object) = 0;
    // client-go's Delete.
    virtual std::optional<Error> remove(const client::Object &object) = 0;
    virtual std::optional<Error> replace(
        const QList<client::Object> &list, const QString &resourceVersion)
        = 0;
    virtual std::optional<Error> resync() = 0;

    // Hands the oldest item to `process` (with isInInitialList) under the queue's lock, then
    // returns it. Blocks while the queue is empty; an error once it is closed.
    using Process = std::function<std::optional<Error>(const Deltas &, bool isInInitialList)>;
    virtual Result<Deltas> pop(const Process &process) = 0;
    virtual void close() = 0;
    virtual bool isClosed() const = 0;
    // True once something was added, updated or deleted before the first replace(), or once
    // every item of the first replace() has been popped.
    virtual bool hasSynced() const = 0;

    // The error pop() returns once closed (client-go's ErrFIFOClosed).
    static QString closedError();
};

} // namespace qcm::cache
