// SPDX-License-Identifier: Apache-2.0
// WallClock: wall-clock time (for Event timestamps and names) read off a qcm::Clock, which
// is monotonic.
//
// On Clock::system() it is the system's real wall clock. On any other clock (a FakeClock in
// tests) it is the wall time at construction moved by however far that clock has moved, so
// that tests drive Event timestamps as they drive everything else.
//
// Thread safety: every method is safe from any thread.
#pragma once

#include <qcm/clock.h>
#include <qcm/record/event.h>

namespace qcm::record {

class WallClock
{
public:
    explicit WallClock(Clock *clock); // null: Clock::system()

    Clock *clock() const { return m_clock; }
    // The wall time of the monotonic reading `t` of clock(). On the system clock, the current
    // wall time (the caller has just read `t`).
    WallTime wallAt(TimePoint t) const;
    WallTime wallNow() const { return wallAt(m_clock->now()); }

private:
    Clock *m_clock;
    bool m_system;
    WallTime m_wallAnchor;
    TimePoint m_anchor;
};

} // namespace qcm::record
