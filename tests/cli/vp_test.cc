// `gpuvp vp`: the vulnerable-period estimate with a preset's latencies, for nvcc's order and the vp
// schedule (docs/vulnerable-period.md), and its answers to bad input.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "common/subprocess.h"

using gpuvp::test::run_gpuvp;
using gpuvp::test::slurp;
using gpuvp::test::temp_path;
using Catch::Matchers::Contains;

namespace {

std::string write_temp(const std::string& stem, const std::string& text) {
  std::string path = temp_path(stem);
  std::ofstream(path) << text;
  return path;
}

const std::string kKernel = GPUVP_TEST_DATA "/ptx/vp_straight.ptx";

}  // namespace

TEST_CASE("vp cli: the estimate with tx2's latencies equals the hand computation") {
  // tx2, one block of 32 threads: 1 warp per SM; 4 schedulers of 32 lanes: issue 1 cycle, its round
  // ceil(1/4) x 1 = 1. Issue-to-next-issue per instruction (unit cycles + class latency):
  //   ld.param: 32 ld/st units / 4 schedulers = 8 -> 4 cycles + lat.shared 4 = 8
  //   mov, add, mul, cvta: 1 + 4 = 5 (lat.alu, lat.mul both 4)
  //   st.global: 4 + lat.alu 4 + gmem.latency 233 + 2 SMs x 1 warp x 128 bytes / (58.4 GB/s / 1.3 GHz)
  //   ret: 1 + lat.branch 2 = 3
  // nvcc order: rd1 0->5: 8+5+5+5+5 = 28, r1 1->3: 10, r2 2->4: 10, r3 3->4: 5, r4 4->6: 10,
  //   rd2 5->6: 5; total 68.
  // vp order (ld, cvta, mov, mul, add r2, add r4, st, ret; tests/sw/ptx/test_vp.cc): rd1 8,
  //   rd2 1->6: 25, r1 2->4: 10, r3 3->5: 10, r2 5, r4 5; total 63.
  const std::string f = kKernel, j = temp_path("vp.json");
  auto r = run_gpuvp(fmt::format("vp {} --kernel k --preset tx2 --block 32 --json {}", f, j));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("1 warps per SM"));
  const auto doc = nlohmann::json::parse(slurp(j));
  CHECK(doc["nvcc"]["total"].get<double>() == Approx(68));
  CHECK(doc["vp"]["total"].get<double>() == Approx(63));
  CHECK(doc["reduction_percent"].get<double>() == Approx(100.0 * 5 / 68));
  CHECK(doc["warps_per_sm"] == 1);
  for (const auto& reg : doc["nvcc"]["registers"])
    if (reg["reg"] == "%rd1") CHECK(reg["cycles"].get<double>() == Approx(28));
  std::remove(j.c_str());
}

TEST_CASE("vp cli: a library kernel by name, and disasm shows the vp order") {
  auto r = run_gpuvp("vp vectorAdd --kernel vectorAdd --preset tk1 --grid 4 --block 256");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("total"));
  auto a = run_gpuvp("disasm vectorAdd"), b = run_gpuvp("disasm vectorAdd --schedule vp");
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  CHECK(a.out != b.out);
}

TEST_CASE("vp cli: bad input exits 2 naming the file, line, kernel or preset") {
  const std::string bad = write_temp("bad.ptx", ".version 7.0\n.target sm_75\n.address_size 64\n"
                                                ".visible .entry k() {\nfoo.bar %r1;\n}\n");
  auto r = run_gpuvp(fmt::format("vp {} --kernel k --preset tx2", bad));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(bad + ":5:"));
  const std::string f = kKernel;
  r = run_gpuvp(fmt::format("vp {} --kernel nope --preset tx2", f));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("--kernel nope: no such kernel (kernels: k)"));
  r = run_gpuvp(fmt::format("vp {} --kernel k --preset nosuch", f));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("nosuch"));
  r = run_gpuvp(fmt::format("vp {} --kernel k --preset tx2 --block 0", f));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("--block 0"));
  // tx2 holds at most 1024 threads per block: a launch of 2048 (or 100000) would fail, so no estimate.
  r = run_gpuvp(fmt::format("vp {} --kernel k --preset tx2 --block 64,32", f));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("--block 64,32: 2048 threads per block") && Contains("(1024)"));
  r = run_gpuvp(fmt::format("vp {} --kernel k --preset tx2 --block 1024", f));
  CHECK(r.status == 0);
  std::remove(bad.c_str());
}
