// SPDX-License-Identifier: Apache-2.0
// WithMaxWaitRateLimiter: caps another limiter's delay (client-go's TypedWithMaxWaitRateLimiter).
//
// Thread safety: safe from any thread if the wrapped limiter is.
#pragma once

#include <qcm/workqueue/ratelimiter.h>

namespace qcm::workqueue {

template<typename T>
class WithMaxWaitRateLimiter : public RateLimiter<T>
{
public:
    WithMaxWaitRateLimiter(RateLimiterPtr<T> limiter, Duration maxDelay)
        : m_limiter(std::move(limiter)), m_maxDelay(maxDelay)
    { }

    Duration when(const T &item) override
    {
        const Duration delay = m_limiter->when(item);
        return delay > m_maxDelay ? m_maxDelay : delay;
    }
    void forget(const T &item) override { m_limiter->forget(item); }
    int numRequeues(const T &item) override { return m_limiter->numRequeues(item); }

private:
    const RateLimiterPtr<T> m_limiter;
    const Duration m_maxDelay;
};

} // namespace qcm::workqueue
