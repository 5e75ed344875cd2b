// SPDX-License-Identifier: Apache-2.0
// RateLimiter: decides how long an item waits before it is retried (client-go's
// workqueue.TypedRateLimiter).
//
// Implementations: BucketRateLimiter, ItemExponentialFailureRateLimiter,
// ItemFastSlowRateLimiter, MaxOfRateLimiter, WithMaxWaitRateLimiter, and
// defaultControllerRateLimiter() which combines two of them as client-go does.
//
// Thread safety: implementations are safe from any thread.
#pragma once

#include <qcm/clock.h>

#include <memory>

namespace qcm::workqueue {

template<typename T>
class RateLimiter
{
public:
    virtual ~RateLimiter() = default;
    // Records a failure of `item` and returns how long it should wait.
    virtual Duration when(const T &item) = 0;
    // Stops tracking `item`: it succeeded or was given up. Remember to call it!
    virtual void forget(const T &item) = 0;
    // How many failures of `item` are being tracked.
    virtual int numRequeues(const T &item) = 0;
};

template<typename T>
using RateLimiterPtr = std::unique_ptr<RateLimiter<T>>;

// Per-item limiters keep a failure count for every item not yet forgotten. client-go lets
// those maps grow without bound when forget() is never called; qcm bounds them. Once
// `maxTrackedItems` items are tracked, a new item is not tracked: it gets the limiter's
// slowest delay (the max delay, or the slow delay) and numRequeues() 0, as proposed upstream
// in kubernetes/kubernetes#138743. Items already tracked are unaffected.
inline constexpr int DefaultMaxTrackedItems = 1 << 16;

} // namespace qcm::workqueue
