// SPDX-License-Identifier: Apache-2.0
// BucketRateLimiter: one token bucket shared by every item (client-go's TypedBucketRateLimiter).
//
// when() reserves one token and returns the wait, with golang.org/x/time/rate's semantics:
// the bucket starts full (`burst` tokens) and refills at `qps` tokens per second.
// Failures are not tracked per item: numRequeues() is 0 and forget() does nothing.
//
// Thread safety: safe from any thread.
#pragma once

#include <qcm/tokenbucket.h>
#include <qcm/workqueue/ratelimiter.h>

namespace qcm::workqueue {

template<typename T>
class BucketRateLimiter : public RateLimiter<T>
{
public:
    BucketRateLimiter(double qps, int burst, Clock *clock = nullptr)
        : m_bucket(qps, burst), m_clock(clock ? clock : Clock::system())
    { }

    Duration when(const T &) override { return m_bucket.reserve(m_clock->now()); }
    void forget(const T &) override { }
    int numRequeues(const T &) override { return 0; }

private:
    TokenBucket m_bucket;
    Clock *m_clock;
};

} // namespace qcm::workqueue
