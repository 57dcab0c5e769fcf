// Every workload, three launch configurations each, on flexgrip with 1, 2 and 4 SMs, on tk1 and
// on tx2 and on gtx480: the output equals the workload's CPU reference.
#include <catch2/catch.hpp>

#include "common/subprocess.h"
#include "sw/workloads/workload.h"

using gpuvp::test::run_stats;

namespace {
void run_all_platforms(const std::string& workload) {
  const gpuvp::wl::Workload* w = gpuvp::wl::find(workload);
  REQUIRE(w);
  auto cfgs = w->configs();
  REQUIRE(cfgs.size() >= 3);
  const char* platforms[] = {"--preset flexgrip --set sm.count=1", "--preset flexgrip --set sm.count=2",
                             "--preset flexgrip --set sm.count=4", "--preset tk1", "--preset tx2", "--preset gtx480"};
  for (const char* p : platforms)
    for (size_t i = 0; i < 3; ++i) {
      std::string args = fmt::format("{} --workload {} --launch {}", p, workload, cfgs[i].name);
      INFO(args);
      auto j = run_stats(args);
      INFO(j["stderr"].get<std::string>() << j["stdout"].get<std::string>());
      CHECK(j["exit_status"] == 0);
      CHECK(j["correct"] == true);
    }
}
}  // namespace

TEST_CASE("workloads on all platforms: vectorAdd") { run_all_platforms("vectorAdd"); }
TEST_CASE("workloads on all platforms: scalarProd") { run_all_platforms("scalarProd"); }
TEST_CASE("workloads on all platforms: grayFilter") { run_all_platforms("grayFilter"); }
TEST_CASE("workloads on all platforms: nearestNeighbour") { run_all_platforms("nearestNeighbour"); }
TEST_CASE("workloads on all platforms: timerSpin") { run_all_platforms("timerSpin"); }
TEST_CASE("workloads on all platforms: reduction") { run_all_platforms("reduction"); }
TEST_CASE("workloads on all platforms: matrixMul") { run_all_platforms("matrixMul"); }
TEST_CASE("workloads on all platforms: histogram") { run_all_platforms("histogram"); }
TEST_CASE("workloads on all platforms: mandelbrot") { run_all_platforms("mandelbrot"); }
TEST_CASE("workloads on all platforms: bfs") { run_all_platforms("bfs"); }

// 64 SMs (beyond the FlexGripPlus scheduler's 16): grayFilter fi64 has 64 blocks of one kind, so the
// dispatcher's round robin gives every SM exactly one and the image still matches the CPU's.
TEST_CASE("workloads on 64 SMs: grayFilter fi64 on tx2 puts one block on every SM") {
  auto j = run_stats("--preset tx2 --set sm.count=64 --workload grayFilter --launch fi64");
  INFO(j["stderr"].get<std::string>());
  REQUIRE(j["exit_status"] == 0);
  CHECK(j["correct"] == true);
  REQUIRE(j["sms"].size() == 64);
  for (auto& s : j["sms"]) CHECK(s["blocks"] == 1);
}

// A compute-bound workload on tx2 never takes more cycles on more SMs (its instruction fetches go
// through each SM's instruction cache and the L2, not one shared system-memory port per fetch).
TEST_CASE("workloads on more SMs: matrixMul and mandelbrot on tx2 never slow down") {
  for (const char* w : {"matrixMul --launch square32", "mandelbrot --launch medium"}) {
    uint64_t prev = ~uint64_t{0};
    for (int n : {1, 2, 4, 8}) {
      auto j = run_stats(fmt::format("--preset tx2 --set sm.count={} --workload {}", n, w));
      INFO(w << " on " << n << " SMs: " << j["stderr"].get<std::string>());
      REQUIRE(j["exit_status"] == 0);
      CHECK(j["correct"] == true);
      const uint64_t c = j["kernel_cycles"].get<uint64_t>();
      CHECK(c <= prev);
      prev = c;
    }
  }
}

// A write-back L1 (sm.l1d.write_policy=write_back, docs/caches.md "Write-back L1") keeps every
// store in the SM until a dirty line is evicted or the SM's part of the kernel ends: every workload
// still matches its CPU reference on the three cached presets, with plain loads bypassing the L1
// (the presets' default: a load must still see the SM's own dirty bytes) and cached in it.
TEST_CASE("workloads with a write-back L1 on tk1, tx2 and gtx480") {
  const char* presets[] = {"tk1", "tx2", "gtx480"};
  for (const auto& w : gpuvp::wl::all())
    for (const char* p : presets)
      for (const char* global : {"false", "true"}) {
        const std::string args =
            fmt::format("--preset {} --set sm.l1d.write_policy=write_back --set sm.l1d.cache_global={} --workload {}",
                        p, global, w->name());
        INFO(args);
        auto j = run_stats(args);
        INFO(j["stderr"].get<std::string>() << j["stdout"].get<std::string>());
        CHECK(j["exit_status"] == 0);
        CHECK(j["correct"] == true);
      }
}
