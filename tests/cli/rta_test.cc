// `gpuvp rta`: the analysis for a kernel set on the configured GPU, and its answers to bad files.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <fstream>

#include "common/subprocess.h"

using gpuvp::test::run_gpuvp;
using gpuvp::test::temp_path;
using Catch::Matchers::Contains;

namespace {
std::string kernel_set(const std::string& stem, const std::string& text) {
  std::string path = temp_path(stem);
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST_CASE("rta cli: completion and response times on the TX2's block slots") {
  // 256-thread blocks: 8 per SM (2048 threads), 2 SMs = 16 slots. k1's 20 blocks of 1000 ns: 16 at 0,
  // 4 at 1000, done at 2000; k2's 4 blocks of 500 ns take 4 of the 12 slots free at 1000: done at 1500.
  // Released at 300 ns: completions 2300 and 1800, response times 2000 and 1500.
  const std::string f = kernel_set("rta_ok.json", R"({"kernels": [
      {"name": "k1", "blocks": 20, "threads": 256, "time_ns": 1000, "release_ns": 300},
      {"name": "k2", "blocks": 4, "threads": 256, "time_ns": 500, "release_ns": 300}]})");
  auto r = run_gpuvp("rta --preset tx2 " + f);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("2 SMs x 8 blocks of 256 threads = 16 block slots"));
  CHECK_THAT(r.out, Contains("k1                     20           1000            300             2300           2000"));
  CHECK_THAT(r.out, Contains("k2                      4            500           1300             1800           1500"));
  // Another GPU, other slots: one SM of 8 slots runs k1 in 3 rounds (2000 ns after its start).
  r = run_gpuvp("rta --preset tx2 --set sm.count=1 " + f);
  CHECK_THAT(r.out, Contains("k1                     20           1000            300             3300           3000"));
  std::remove(f.c_str());
}

TEST_CASE("rta cli: bad kernel sets exit 2 naming the file and the field") {
  struct Case {
    const char* text;
    const char* expect;
  } cases[] = {
      {R"({"kernels": [{"blocks": 2, "threads": 64, "time_ns": 5}, {"blocks": 2, "threads": 128, "time_ns": 5}]})",
       "kernels[1].threads: 128: the analysis assumes one block size"},
      {R"({"kernels": [{"blocks": 2, "threads": 64, "time_ns": 5, "release_ns": 1}, {"blocks": 2, "threads": 64,
          "time_ns": 5}]})",
       "kernels[1].release_ns: 0: the analysis assumes one release instant"},
      {R"({"kernels": [{"blocks": -1, "threads": 64, "time_ns": 5}]})", "kernels[0].blocks: -1 is outside"},
      {R"({"kernels": [{"blocks": 1, "threads": 2048, "time_ns": 5}]})", "kernels[0].threads: 2048 is outside"},
      {R"({"kernels": [{"blocks": 1, "threads": 64}]})", "kernels[0]: 'time_ns' is required"},
      {R"({"kernels": [{"blocks": 1, "threads": 64, "time_ns": 5, "prio": 1}]})", "kernels[0]: unknown key 'prio'"},
      {R"({"kernels": []})", "kernels: a non-empty array is required"},
      {R"({"kernels": [)", "not valid JSON"},
  };
  for (auto& c : cases) {
    const std::string f = kernel_set("rta_bad.json", c.text);
    auto r = run_gpuvp("rta " + f);
    INFO(c.text << "\n" << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(f) && Contains(c.expect));
    std::remove(f.c_str());
  }
  auto r = run_gpuvp("rta --preset tx2 --set sm.max_threads_per_block=256 " +
                     kernel_set("rta_big.json", R"({"kernels": [{"blocks": 1, "threads": 512, "time_ns": 5}]})"));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("a block of 512 threads does not fit an SM"));
}

TEST_CASE("rta cli: a time beyond 2^64 - 1 ns is refused naming the kernel, a time below it is exact") {
  // tx2, 1024-thread blocks: 2 per SM, 2 SMs = 4 slots. 100000 blocks of 10^15 ns take 25000 rounds:
  // 2.5 * 10^19 ns > 2^64 - 1 = 18446744073709551615 (it wrapped to 6.55e18).
  const auto set = [](uint64_t blocks, const char* release) {
    return kernel_set("rta_wide.json", fmt::format(R"({{"kernels": [{{"name": "wide", "blocks": {}, "threads": 1024,
        "time_ns": 1e15, "release_ns": {}}}]}})", blocks, release));
  };
  std::string f = set(100000, "0");
  auto r = run_gpuvp("rta --preset tx2 " + f);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(f) && Contains("kernel wide") && Contains("does not fit 64 bits of ns"));
  // 73784 blocks: 18446 rounds, 18446 * 10^15 ns fits; released at 10^15 it ends at 18447 * 10^15: too late.
  f = set(73784, "1e15");
  r = run_gpuvp("rta --preset tx2 " + f);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("kernel wide") && Contains("does not fit 64 bits of ns"));
  f = set(73784, "0");
  r = run_gpuvp("rta --preset tx2 " + f);
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains(" 18446000000000000000 "));
  std::remove(f.c_str());
}
