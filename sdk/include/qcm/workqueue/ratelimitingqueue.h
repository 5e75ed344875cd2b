// SPDX-License-Identifier: Apache-2.0
// RateLimitingQueue: a DelayingQueue that retries through a RateLimiter (client-go's
// workqueue.TypedRateLimitingInterface).
//
// The processNextWorkItem pattern:
//     auto key = queue.get();           // nothing: shutting down
//     ...reconcile...
//     success ? queue.forget(*key) : queue.addRateLimited(*key);
//     queue.done(*key);                 // always
// forget() only clears the limiter's memory of the item; done() is still owed.
//
// Thread safety: every method is safe from any thread.
#pragma once

#include <qcm/workqueue/defaultratelimiters.h>
#include <qcm/workqueue/delayingqueue.h>

namespace qcm::workqueue {

template<typename T>
class RateLimitingQueue : public DelayingQueue<T>
{
public:
    explicit RateLimitingQueue(RateLimiterPtr<T> limiter = defaultControllerRateLimiter<T>(),
        const QueueConfig &config = {})
        : DelayingQueue<T>(config), m_limiter(std::move(limiter))
    { }

    // addAfter(item, limiter.when(item)): the limiter records a failure even after shutdown.
    void addRateLimited(const T &item) { this->addAfter(item, m_limiter->when(item)); }
    // The item is finished being retried: the limiter forgets its failures.
    void forget(const T &item) { m_limiter->forget(item); }
    int numRequeues(const T &item) { return m_limiter->numRequeues(item); }

private:
    const RateLimiterPtr<T> m_limiter;
};

} // namespace qcm::workqueue
