// Regressions found by review, each with the command that showed it.
#include <catch2/catch.hpp>

#include "common/subprocess.h"

using namespace gpuvp::test;
using Catch::Matchers::Contains;

namespace {
std::string exec(const std::string& preset, const std::string& rest) {
  return fmt::format("exec --preset {} --ptx {}/exec/review.ptx {}", preset, GPUVP_TEST_DATA, rest);
}
}  // namespace

TEST_CASE("review: a signed 32-bit value loaded into a 64-bit register keeps its sign") {
  for (const char* p : {"flexgrip", "tx2"}) {
    INFO(p);
    // addoff: o[i] = i + (long long)k with k = -10 (ld.param.s32 into a 64-bit register).
    auto r = run_gpuvp(exec(p, "--kernel addoff --grid 1 --block 4 --arg buf:i64:4 --arg i32:-10 --print 4"));
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Contains("buffer 0 (4 x i64): -10 -9 -8 -7"));
    // widen: x = a[i] (global), y = s[31-i] = 3 * a[31-i] (shared), both as long long; a = -7.
    r = run_gpuvp(exec(p, "--kernel widen --grid 1 --block 32 --arg buf:i32:32:const=-7 --arg buf:i64:64 --print 4"));
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Contains("buffer 1 (64 x i64): -7 -21 -7 -21"));
  }
}

TEST_CASE("review: the simulation stopping while an atomic is in flight ends cleanly") {
  // Timeout with every warp inside an atomic.
  auto r = run_gpuvp(exec("tx2", "--set sim.timeout_ms=1 --kernel spinwait --grid 1 --block 32 --arg buf:i32:1"));
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Contains("timeout"));
  // One block traps while the other is inside its atomics: the trap is reported.
  r = run_gpuvp(exec("tx2", "--kernel faultatom --grid 2 --block 32 --arg buf:i32:1"));
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Contains("trap error"));
}

TEST_CASE("review: a coalesced out-of-bounds read names the lane that is out of bounds") {
  // 5 bytes, 6 threads: lane 5 reads a[5], one past the end, at base + 0x100 + 5.
  for (const char* p : {"flexgrip", "tk1", "tx2"}) {
    INFO(p);
    auto r = run_gpuvp(exec(p, "--kernel rd8 --grid 1 --block 32 --arg buf:u8:5:iota --arg buf:i32:32 --arg i32:6"));
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Contains("lane 5, address 0x10000105"));
  }
}
