// The DRAM data bus as a bandwidth server: start and end instants worked by hand, in ps.
#include <catch2/catch.hpp>

#include <systemc>

#include "models/memory/dram_bus.h"

using gpuvp::DramBus;
using sc_core::sc_time;
using sc_core::SC_PS;

namespace {
sc_time ps(double v) { return sc_time(v, SC_PS); }
}  // namespace

TEST_CASE("dram bus: transfers start when the bus frees and take bytes / bandwidth exactly") {
  DramBus bus(3.2);  // 3.2 bytes per ns: 312.5 ps per byte
  // Idle bus: 32 bytes at 0 take 32 * 312.5 = 10000 ps.
  auto s = bus.reserve(ps(0), 32);
  CHECK(s.start == ps(0));
  CHECK(s.end == ps(10000));
  // Offered at 2000 ps, the bus is busy until 10000: 1 byte ends at 10312.5, rounded up to 10313.
  s = bus.reserve(ps(2000), 1);
  CHECK(s.start == ps(10000));
  CHECK(s.end == ps(10313));
  // The next byte starts when the bus frees (10312.5, shown as 10313) and ends at 34 * 312.5 =
  // 10625 from the start of the busy period: the half ps above is not carried over.
  s = bus.reserve(ps(5000), 1);
  CHECK(s.start == ps(10313));
  CHECK(s.end == ps(10625));
  // Idle again at 20000: a new busy period; 3 bytes end at 20000 + 937.5 -> 20938.
  s = bus.reserve(ps(20000), 3);
  CHECK(s.start == ps(20000));
  CHECK(s.end == ps(20938));
  // Offered at 20938, after the exact free instant 20937.5: no wait; ends at 20938 + 312.5 -> 21251.
  s = bus.reserve(ps(20938), 1);
  CHECK(s.start == ps(20938));
  CHECK(s.end == ps(21251));
  CHECK(bus.bytes() == 38);
  CHECK(bus.busy_ps() == Approx(38 * 312.5));
}

TEST_CASE("dram bus: N back-to-back transfers take N * B / bandwidth, not N rounded transfers") {
  // tx2: 58.4 GB/s; a 32-byte transfer takes 547.945... ps, 0.712 of a 1300 MHz cycle (769 ps).
  DramBus bus(58.4);
  DramBus::Slot s{};
  for (int i = 0; i < 100; ++i) s = bus.reserve(ps(0), 32);
  // 3200 bytes / 58.4 bytes per ns = 54794.52 ps -> 54795. (Rounded per transfer: 100 * 548 =
  // 54800 ps; to whole cycles, as before: 100 * 769 = 76900 ps.)
  CHECK(s.end == ps(54795));
  // The 100th started when the 99th ended: 99 * 547.945 = 54246.58 -> 54247.
  CHECK(s.start == ps(54247));
  // 29.2 and 41.6 GB/s, which both took one whole cycle per 32 bytes before, now differ: 32 bytes
  // take 1095.89 -> 1096 ps and 769.23 -> 770 ps.
  DramBus slow(29.2), fast(41.6);
  CHECK(slow.reserve(ps(0), 32).end == ps(1096));
  CHECK(fast.reserve(ps(0), 32).end == ps(770));
}

TEST_CASE("dram bus: arrivals while busy queue in order, and an arrival after a gap does not") {
  DramBus bus(8.0);  // 125 ps per byte: 32 bytes take 4000 ps
  // Three requesters at 1000, 1500 and 2000 ps: served 1000-5000, 5000-9000, 9000-13000.
  CHECK(bus.reserve(ps(1000), 32).end == ps(5000));
  auto b = bus.reserve(ps(1500), 32);
  CHECK(b.start == ps(5000));
  CHECK(b.end == ps(9000));
  auto c = bus.reserve(ps(2000), 32);
  CHECK(c.start == ps(9000));
  CHECK(c.end == ps(13000));
  // Offered at 20000 after the bus idled: 20000-24000.
  auto d = bus.reserve(ps(20000), 32);
  CHECK(d.start == ps(20000));
  CHECK(d.end == ps(24000));
  CHECK(bus.free_at() == ps(24000));
}

// Offers out of time order (a temporally decoupled requester, an L2 posting a write-back at a fill
// still ahead): a transfer offered before one reserved earlier uses the idle bus before it when it
// fits in the gap, and goes after it when it does not. 8 bytes per ns: 32 bytes take 4000 ps.
TEST_CASE("dram bus: an earlier offer uses the idle gap before a transfer reserved ahead of it") {
  DramBus bus(8.0);
  CHECK(bus.reserve(ps(20000), 32).start == ps(20000));  // 20000-24000
  auto a = bus.reserve(ps(1000), 32);                   // the bus is idle then: 1000-5000
  CHECK(a.start == ps(1000));
  CHECK(a.end == ps(5000));
  auto b = bus.reserve(ps(17000), 32);  // 17000-21000 would overlap 20000: after it, 24000-28000
  CHECK(b.start == ps(24000));
  CHECK(b.end == ps(28000));
  auto c = bus.reserve(ps(16000), 32);  // fills 16000-20000 exactly
  CHECK(c.start == ps(16000));
  CHECK(c.end == ps(20000));
  auto d = bus.reserve(ps(15000), 32);  // no gap of 4000 before 28000 any more
  CHECK(d.start == ps(28000));
  CHECK(d.end == ps(32000));
  CHECK(bus.free_at() == ps(32000));
  CHECK(bus.bytes() == 160);
}

TEST_CASE("dram bus: the timing digest tells transfers still to come apart by their instants, and forgets those over") {
  DramBus a(1.0), b(1.0), c(1.0);  // 1 byte per ns: 64 bytes take 64000 ps
  a.reserve(ps(100), 64);
  b.reserve(ps(200), 64);
  c.reserve(ps(100), 64);
  CHECK(a.timing_digest(0) != b.timing_digest(0));
  CHECK(a.timing_digest(0) == c.timing_digest(0));
  // a is busy until 64100 ps, b until 64200: at 64150 only b's period is left.
  CHECK(a.timing_digest(64150) != b.timing_digest(64150));
  CHECK(a.timing_digest(64150) == DramBus(1.0).timing_digest(64150));
  CHECK(a.timing_digest(70000) == b.timing_digest(70000));
}
