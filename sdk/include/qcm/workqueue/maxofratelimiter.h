// SPDX-License-Identifier: Apache-2.0
// MaxOfRateLimiter: the worst of several limiters (client-go's TypedMaxOfRateLimiter).
//
// when() asks every limiter (each records the failure) and returns the longest delay;
// numRequeues() is the largest count; forget() goes to every limiter.
//
// Thread safety: safe from any thread if the limiters are.
#pragma once

#include <qcm/workqueue/ratelimiter.h>

#include <algorithm>
#include <vector>

namespace qcm::workqueue {

template<typename T>
class MaxOfRateLimiter : public RateLimiter<T>
{
public:
    explicit MaxOfRateLimiter(std::vector<RateLimiterPtr<T>> limiters)
        : m_limiters(std::move(limiters))
    { }

    template<typename... Limiters>
    static std::unique_ptr<MaxOfRateLimiter> of(Limiters... limiters)
    {
        std::vector<RateLimiterPtr<T>> all;
        (all.push_back(std::move(limiters)), ...);
        return std::make_unique<MaxOfRateLimiter>(std::move(all));
    }

    Duration when(const T &item) override
    {
        Duration ret = Duration::zero();
        for (const auto &limiter : m_limiters)
            ret = std::max(ret, limiter->when(item));
        return ret;
    }

    void forget(const T &item) override
    {
        for (const auto &limiter : m_limiters)
            limiter->forget(item);
    }

    int numRequeues(const T &item) override
    {
        int ret = 0;
        for (const auto &limiter : m_limiters)
            ret = std::max(ret, limiter->numRequeues(item));
        return ret;
    }

private:
    const std::vector<RateLimiterPtr<T>> m_limiters;
};

} // namespace qcm::workqueue
