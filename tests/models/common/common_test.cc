// The registry of injectable state, the gated clock arithmetic and the sc_report-based logging.
#include <catch2/catch.hpp>

#include <chrono>

#include <systemc>

#include "models/common/clock.h"
#include "models/common/log.h"
#include "models/common/registry.h"

using namespace gpuvp;
using Catch::Matchers::Contains;

TEST_CASE("registry: fields, memories, masking, flips, globs and errors") {
  Registry reg;
  uint32_t state = 0;
  bool flag = false;
  int woken = 0;
  reg.add_field("gpu.sched.state", 3, &state, [&] { ++woken; });
  reg.add_field("gpu.sched.rdy", 1, &flag);
  std::vector<uint32_t> words(8, 0);
  Target m;
  m.name = "gpu.gmem";
  m.kind = TargetKind::Memory;
  m.width = 32;
  m.count = words.size();
  m.get = [&](uint64_t i) { return uint64_t(words[i]); };
  m.set = [&](uint64_t i, uint64_t v) { words[i] = uint32_t(v); };
  reg.add(m);

  reg.write("gpu.sched.state", 0xFF);  // masked to 3 bits
  CHECK(state == 7);
  CHECK(woken == 1);  // a write wakes the owner
  reg.flip("gpu.sched.state", 1);
  CHECK(state == 5);
  CHECK(woken == 2);
  reg.flip("gpu.sched.rdy", 0);
  CHECK(flag);
  reg.write("gpu.gmem", 0xDEADBEEF, 3);
  reg.flip("gpu.gmem", 31, 3);
  CHECK(words[3] == 0x5EADBEEF);
  CHECK(reg.read("gpu.gmem", 3) == 0x5EADBEEF);
  CHECK(reg.total_bits() == 3 + 1 + 8 * 32);

  CHECK(reg.matching("gpu.sched.*").size() == 2);
  CHECK(reg.matching("*.rdy").size() == 1);
  CHECK(reg.matching("gpu.?mem").size() == 1);
  CHECK(reg.matching("*s*d*e").size() == 1);    // gpu.sched.state: stars backtrack to later matches
  CHECK(reg.matching("gpu.sched.state*").size() == 1);
  CHECK(reg.matching("*.sched").empty());
  CHECK(reg.all().front()->name == "gpu.gmem");  // sorted by name

  CHECK_THROWS_WITH(reg.read("gpu.nothing"), Contains("no target named 'gpu.nothing'"));
  CHECK_THROWS_WITH(reg.flip("gpu.sched.state", 3), Contains("bit 3 outside 'gpu.sched.state' (3 bits)"));
  CHECK_THROWS_WITH(reg.read("gpu.gmem", 8), Contains("index 8 outside 'gpu.gmem' (8 words)"));
  CHECK_THROWS_WITH(reg.add_field("gpu.sched.rdy", 1, &flag), Contains("registered twice"));
  CHECK_THROWS_WITH(reg.add_field("gpu.bad", 65, &state), Contains("width 65"));
  reg.remove_prefix("gpu.sched.");
  CHECK(reg.all().size() == 1);
}

TEST_CASE("clock: edges, cycles and the first edge strictly after a time") {
  Clock c(100.0);  // 10 ns
  using sc_core::sc_time;
  using sc_core::SC_NS;
  CHECK(c.period() == sc_time(10, SC_NS));
  CHECK(c.cycle(sc_time(35, SC_NS)) == 3);
  CHECK(c.next_edge(sc_time(30, SC_NS)) == sc_time(40, SC_NS));  // at an edge: the next one
  CHECK(c.next_edge(sc_time(31, SC_NS)) == sc_time(40, SC_NS));
  CHECK(c.edge_at_or_after(sc_time(30, SC_NS)) == sc_time(30, SC_NS));
  CHECK(c.edge_at_or_after(sc_time(31, SC_NS)) == sc_time(40, SC_NS));
  CHECK(c.cycles(7) == sc_time(70, SC_NS));
  CHECK(Clock(1300.0).mhz() == Approx(1300.0).epsilon(1e-3));
}

namespace {
std::vector<std::string> seen;
void capture(const sc_core::sc_report& r, const sc_core::sc_actions& a) {
  if (a & sc_core::SC_DISPLAY) seen.push_back(std::string(r.get_msg_type()) + "|" + r.get_msg());
  if (a & sc_core::SC_THROW) throw r;
}
}  // namespace

TEST_CASE("registry: glob matching takes linear time, never exponential") {
  // Many stars before a character that never matches made a backtracking matcher take minutes.
  Registry reg;
  uint8_t v = 0;
  const std::string long_name = "gpu." + std::string(5000, 'a');
  reg.add_field(long_name, 8, &v);
  reg.add_field("gpu.sched.block_z", 8, &v);
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(reg.matching(std::string(60, '*') + "z").size() == 1);
  CHECK(reg.matching(std::string(60, '*') + "a?b").empty());
  CHECK(reg.matching("*a*a*a*a*a*a*a*a*a*a*a*a*a*b").empty());
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1));
}

TEST_CASE("log: lines are sc_reports of their module, filtered per module path, errors never thrown") {
  log::install_report_handler();
  sc_core::sc_report_handler::set_handler(capture);  // a user's handler sees our lines
  log::set_default_level(log::Level::Warn);
  log::set_level("gpu.sm0", log::Level::Debug);
  log::set_level("gpu.sm1", log::Level::Debug);
  log::set_level("gpu.sm3", log::Level::Error);
  log::debug("gpu.sm0", "batch of {} blocks", 8);
  log::debug("gpu.sm3", "hidden");
  log::info("gpu.sched", "hidden too");
  log::warn("gpu.cfg", "start while busy ignored");
  CHECK_NOTHROW(log::error("gpu.sm3", "address error at {:#x}", 0x10));
  REQUIRE(seen.size() == 3);
  CHECK(seen[0] == "gpu.sm0|batch of 8 blocks");
  CHECK(seen[1] == "gpu.cfg|start while busy ignored");
  CHECK(seen[2] == "gpu.sm3|address error at 0x10");
  // A path matches itself and what is below it, not a longer name that starts the same.
  CHECK(log::level_for("gpu.sm1") == log::Level::Debug);
  CHECK(log::level_for("gpu.sm1.core") == log::Level::Debug);
  CHECK(log::level_for("gpu.sm12") == log::Level::Warn);
  CHECK(log::level_for("gpu.sm3") == log::Level::Error);
  CHECK(log::level_for("gpu.sm30") == log::Level::Warn);
  CHECK(log::level_for("gpu.sched") == log::Level::Warn);
  CHECK_THROWS_WITH(log::parse_level("loud"), Contains("'loud'"));
}

// Beyond 2^53 ps (2.5 simulated hours) a double no longer holds every picosecond: an edge computed
// through one fell a picosecond short and a clocked model asked for it again and again.
TEST_CASE("clock: edges are exact beyond 2^53 picoseconds") {
  const Clock clk(1300.0);  // 769 ps
  const uint64_t p = clk.period().value();
  for (uint64_t c : {uint64_t{1} << 40, uint64_t{12345678901234}, (uint64_t{1} << 53) / p + 7})
    CHECK(clk.at_cycle(c).value() == c * p);
  const sc_core::sc_time far = sc_core::sc_time::from_value(uint64_t{12345678901234} * p + 5);
  CHECK(clk.next_edge(far).value() == uint64_t{12345678901235} * p);
  CHECK(clk.cycle(clk.at_cycle(12345678901234)) == uint64_t{12345678901234});
}
