// SPDX-License-Identifier: Apache-2.0
#include "wallclock_p.h"

namespace qcm::record {

WallClock::WallClock(Clock *clock)
    : m_clock(clock ? clock : Clock::system())
    , m_system(m_clock == Clock::system())
    , m_wallAnchor(
          std::chrono::time_point_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now()))
    , m_anchor(m_clock->now())
{ }

WallTime WallClock::wallAt(TimePoint t) const
{
    if (m_system)
        return std::chrono::time_point_cast<std::chrono::nanoseconds>(
            std::chrono::system_clock::now());
    return m_wallAnchor + (t - m_anchor);
}

} // namespace qcm::record
