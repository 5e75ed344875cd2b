// SPDX-License-Identifier: Apache-2.0
// Lock-free arithmetic on std::atomic<double>; C++17 has no fetch_add for floating types.
#pragma once

#include <atomic>

namespace qcm::metrics::detail {

inline void atomicAdd(std::atomic<double> &target, double delta)
{
    double current = target.load(std::memory_order_relaxed);
    while (!target.compare_exchange_weak(current, current + delta, std::memory_order_relaxed))
        ;
}

} // namespace qcm::metrics::detail
