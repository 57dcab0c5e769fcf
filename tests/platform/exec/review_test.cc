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

TEST_CASE("review: exec passes integer arguments exactly and refuses what a type cannot hold") {
  std::string k = fmt::format("exec --preset tx2 --ptx {}/exec/params.ptx --kernel params --grid 1 --block 1 ", GPUVP_TEST_DATA);
  auto r = run_gpuvp(k + "--arg u64:18446744073709551615 --arg i64:9007199254740993 --arg u8:255 --arg i8:-128 "
                         "--arg u32:0xFFFFFFFF --arg i32:-2147483648 --arg buf:u64:6 --print 6");
  REQUIRE(r.status == 0);
  // -128 and INT32_MIN sign-extended to 64 bits, printed as u64.
  CHECK_THAT(r.out, Contains("18446744073709551615 9007199254740993 255 18446744073709551488 4294967295 "
                             "18446744071562067968"));
  const char* ok = "--arg u64:1 --arg i64:1 --arg u8:1 --arg i8:1 --arg u32:1 ";
  struct Bad {
    std::string args, msg;
  } bad[] = {
      {std::string(ok) + "--arg i32:2147483648 --arg buf:u64:6", "\"2147483648\" is not representable as i32"},
      {std::string(ok) + "--arg i32:1.5 --arg buf:u64:6", "\"1.5\" is not an integer"},
      {std::string(ok) + "--arg i32:1 --arg buf:u64:2.5", "--arg buf:u64:2.5: count: \"2.5\" is not an integer"},
      {std::string(ok) + "--arg i32:1 --arg buf:u64:6:const=18446744073709551616", "out of the range of 64-bit integers"},
      {std::string(ok) + "--arg i32:1 --arg buf:u64:6:out=/nonexistent/x.bin", "/nonexistent/x.bin: cannot write"},
      {"--arg u64:-1", "\"-1\" is not representable as u64"},
  };
  for (auto& b : bad) {
    INFO(b.args);
    auto e = run_gpuvp(k + b.args);
    CHECK(e.status == 2);
    CHECK_THAT(e.err, Contains(b.msg));
  }
}

TEST_CASE("review: malformed launch files and paths exit 2 naming the file and the key") {
  std::string f = temp_path("launch.json");
  std::string ptx = fmt::format("{}/exec/params.ptx", GPUVP_TEST_DATA);
  struct Case {
    std::string json, msg;
  } cases[] = {
      {R"({"ptx":")" + ptx + R"(","kernel":"params","args":[{"buffer":{"type":"u64","count":4,"dumpp":"x"}}]})",
       "args[0]: unknown key 'dumpp'"},
      {R"({"ptx":")" + ptx + R"(","kernel":"params","grid":[1e400]})", "number overflow"},
      {R"({"ptx":")" + ptx + R"(","kernel":"params","dyn_shmem":"x"})", "dyn_shmem: \"x\" is not an integer"},
      {R"({"ptx":")" + ptx + R"(","kernel":"params","dyn_shmem":-1})", "dyn_shmem: -1 must be an integer in [0, 4294967295]"},
      {R"({"ptx":")" + ptx + R"(","kernel":"params","args":[{"buffer":5}]})", "buffer must be an object"},
      {R"({"ptx":")" + ptx + R"(","kernel":"params","args":[{"buffer":{"type":"u64","count":4,"init":5}}]})",
       "args[0].init: 5 is not a string"},
      {R"({"ptx":"/tmp","kernel":"params"})", "ptx: the PTX file /tmp: a directory"},
  };
  for (auto& c : cases) {
    INFO(c.json);
    std::ofstream(f) << c.json;
    auto r = run_gpuvp("exec --preset tx2 --launch-file " + f);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(f) || Contains("PTX file"));
    CHECK_THAT(r.err, Contains(c.msg));
  }
  std::remove(f.c_str());
  // A dynamic shared memory size near 2^32 is refused by the runtime, not wrapped.
  auto r = run_gpuvp(fmt::format("exec --preset tx2 --ptx {}/exec/scan.ptx --kernel stencil3 --grid 1 --block 32 "
                                 "--arg buf:f32:32 --arg buf:f32:32 --arg i32:32 --arg f32:1 --arg f32:1 "
                                 "--dyn-shmem 4294967295",
                                 GPUVP_TEST_DATA));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("4294967552 bytes of shared memory per block exceed"));
}
