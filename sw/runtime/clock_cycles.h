#pragma once
// GPU cycles from simulated time: the one conversion every count of cycles uses (a launch's `cycles`,
// the statistics' `kernel_cycles`, what `gpuvp exec` prints), so that they agree with each other and
// with the clock's edges.
#include <cstdint>

namespace gpuvp::rt {

// The clock's period as the platform simulates it: 1e6 / MHz picoseconds rounded to the nearest whole
// picosecond, as sc_time rounds to its 1 ps resolution (models/common/clock.h): 769 ps at 1300 MHz,
// not 769.23, so 1300 MHz counts a cycle every 769 ps.
inline uint64_t clock_period_ps(double mhz) { return static_cast<uint64_t>(1e6 / mhz + 0.5); }

// The whole clock periods in a span of `ps` picoseconds, rounded down. A launch's span starts when the
// block scheduler leaves IDLE (not always on an edge) and ends on one (kernel_done): the count is then
// exactly the edges after its start up to its end.
inline uint64_t cycles_in(uint64_t ps, uint64_t period_ps) { return ps / period_ps; }

}  // namespace gpuvp::rt
