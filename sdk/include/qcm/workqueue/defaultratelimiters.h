// SPDX-License-Identifier: Apache-2.0
// The ready-made limiters of client-go's default_rate_limiters.go.
//
// defaultControllerRateLimiter(): MaxOf(ItemExponentialFailure 5 ms -> 1000 s,
// Bucket 10 qps with burst 100): per-item exponential backoff, and an overall 10 qps.
#pragma once

#include <qcm/workqueue/bucketratelimiter.h>
#include <qcm/workqueue/itemexponentialfailureratelimiter.h>
#include <qcm/workqueue/maxofratelimiter.h>

namespace qcm::workqueue {

template<typename T>
RateLimiterPtr<T> defaultControllerRateLimiter(Clock *clock = nullptr)
{
    using namespace std::chrono_literals;
    return MaxOfRateLimiter<T>::of(
        std::make_unique<ItemExponentialFailureRateLimiter<T>>(5ms, 1000s),
        std::make_unique<BucketRateLimiter<T>>(10.0, 100, clock));
}

// client-go's DefaultItemBasedRateLimiter: exponential from 1 ms to 1000 s.
template<typename T>
RateLimiterPtr<T> defaultItemBasedRateLimiter()
{
    using namespace std::chrono_literals;
    return std::make_unique<ItemExponentialFailureRateLimiter<T>>(1ms, 1000s);
}

} // namespace qcm::workqueue
