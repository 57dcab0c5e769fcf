// The scoreboard (sm.max_pending_loads, docs/sm.md "Scoreboard") on tx2 through `gpuvp exec`, with
// tests/data/exec/stream.cu. Bounds are worked out by hand: the runs have no caches (l2.size_kib,
// sm.l1d.size_kib, sm.icache.size_kib = 0), so a global load's data is usable at least gmem.latency
// = 200 cycles (set) after it issues, whatever it read before; the instruction fetch is made cheap
// (sysmem.latency = 1) so that loads dominate. Exact cycle-by-cycle cases: tests/models/sm/scoreboard_test.cc.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <regex>

#include "exec_util.h"

using namespace exectest;

namespace {
constexpr long kLat = 200;  // gmem.latency, set

// Kernel cycles of one warp of `kernel` (p = iota over 1024 words, out = 32 words) with bound B,
// and its output.
long cycles(const std::string& kernel, unsigned bound, std::vector<uint32_t>* out = nullptr) {
  Outs outs;
  std::string o = outs("out.bin");
  auto r = exec_ok(fmt::format("--preset tx2 --set l2.size_kib=0 --set sm.l1d.size_kib=0 --set sm.icache.size_kib=0 "
                               "--set gmem.latency=200 --set sysmem.latency=1 --set sm.max_pending_loads={} --ptx {} "
                               "--kernel {} --grid 1 --block 32 --arg buf:u32:1024:iota --arg buf:u32:32:zero:out={}",
                               bound, ptx_of("stream"), kernel, o));
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex(kernel + " on tx2: ([0-9]+) cycles")));
  if (out) *out = read_bin<uint32_t>(o, 32);
  return std::stol(m[1]);
}
}  // namespace

TEST_CASE("exec scoreboard: eight independent loads cost one latency, not eight", "[exec]") {
  std::vector<uint32_t> got;
  const long sb = cycles("indep8", 8, &got), none = cycles("indep8", 0);
  for (uint32_t t = 0; t < 32; ++t) CHECK(got[t] == 8 * t + 64 * 28);  // sum of p[t + 64k], p = iota
  // Without a scoreboard each load waits for its data (>= 200); with it the next load follows 11
  // cycles later (an address add: 1 + 4, the load: 1 + port + 4): 7 x (200 - 11) saved at least.
  CHECK(none - sb >= 7 * (kLat - 11));
}

TEST_CASE("exec scoreboard: a pointer chase still pays the latency of every load", "[exec]") {
  std::vector<uint32_t> got;
  const long sb = cycles("chase8", 8, &got), none = cycles("chase8", 0), indep = cycles("indep8", 8);
  for (uint32_t t = 0; t < 32; ++t) CHECK(got[t] == t);  // next = iota: i = next[i] stays at t
  CHECK(std::labs(sb - none) * 100 <= 3 * none);  // nothing to overlap (3 %: instruction fetch)
  CHECK(sb - indep >= 7 * kLat);                  // seven more latencies than the independent loads
}

TEST_CASE("exec scoreboard: with B loads in flight, eight loads take ceil(8 / B) latencies", "[exec]") {
  std::vector<uint32_t> got;
  const long b2 = cycles("indep8", 2, &got), b8 = cycles("indep8", 8);
  for (uint32_t t = 0; t < 32; ++t) CHECK(got[t] == 8 * t + 64 * 28);
  // B = 2: four windows of two loads, three more latencies than B = 8, less the issue slots that
  // overlap them (at most 66 cycles); at least two.
  CHECK(b2 - b8 >= 2 * kLat);
  CHECK(b2 - b8 <= 3 * kLat + 40);
}

TEST_CASE("exec scoreboard: a streaming copy gives the same data on every preset", "[exec]") {
  for (const char* preset : {"tx2", "tk1", "flexgrip"}) {
    Outs outs;
    std::string o = outs("dst.bin");
    exec_ok(fmt::format("--preset {} --ptx {} --kernel copy4 --grid 2 --block 64 --arg i32:1024 "
                        "--arg buf:f32:1024:iota --arg buf:f32:1024:zero:out={}", preset, ptx_of("stream"), o));
    auto got = read_bin<float>(o, 1024);
    INFO(preset);
    for (int i = 0; i < 1024; ++i) CHECK(got[size_t(i)] == float(i));
  }
}
