// The issue timing of tk1/tx2 on the whole platform (docs/sm.md, "Issue timing"; docs/statistics.md,
// "Issue"): the statistics' identities on built-in workloads, the occupancy limit worked out from the
// preset, and cycles that move one way with the memory latency under gto.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>

#include "common/subprocess.h"

using gpuvp::test::run_stats;

namespace {
nlohmann::json run_ok(const std::string& args) {
  auto j = run_stats(args);
  INFO(args << "\n" << j["stderr"].get<std::string>());
  REQUIRE(j["exit_status"] == 0);
  REQUIRE(j["correct"] == true);
  return j;
}

uint64_t sum(const nlohmann::json& obj) {
  uint64_t s = 0;
  for (auto& [k, v] : obj.items()) s += v.get<uint64_t>();
  return s;
}
}  // namespace

TEST_CASE("issue statistics: every scheduler cycle is an issue or one stall reason, classes add up") {
  for (const char* preset : {"tx2", "tk1"}) {
    const auto j = run_ok(fmt::format("--preset {} --workload matrixMul --launch square32", preset));
    for (const auto& sm : j["sms"]) {
      const auto& is = sm["issue"];
      INFO(preset << " sm " << sm["id"] << ": " << is.dump());
      CHECK(is["schedulers"] == 4);
      CHECK(sum(sm["inst_class"]) == sm["warp_insts"].get<uint64_t>());
      CHECK(is["warp_insts"] == sm["warp_insts"]);
      CHECK(is["issue_slots"] == is["cycles"].get<uint64_t>() * 4 * is["dispatch_per_scheduler"].get<uint64_t>());
      uint64_t stalls = 0;
      for (const auto& k : is["per_scheduler"]) {
        CHECK(k["cycles"] == is["cycles"]);
        CHECK(k["issue_cycles"].get<uint64_t>() + sum(k["stall_cycles"]) == k["cycles"].get<uint64_t>());
        stalls += sum(k["stall_cycles"]);
      }
      CHECK(sum(is["stall_cycles"]) == stalls);
      CHECK(is["issue_slots_used"].get<uint64_t>() <= is["issue_slots"].get<uint64_t>());
      // matrixMul's tiles: 16 x 16 blocks wait at __syncthreads.
      CHECK(is["stall_cycles"]["barrier"].get<uint64_t>() > 0);
    }
    // 16 x 16 = 256 threads (8 warps) per block: 64 warp slots and 2048 threads both allow 8 blocks,
    // fewer than max_blocks (tx2 32, tk1 16) and than its two 1 KiB shared tiles allow; warp slots
    // come first of the tied resources (its registers, at most 32 per thread, allow 8 or more).
    const auto& occ = j["launches"][0]["occupancy"];
    CHECK(occ["blocks_per_sm"] == 8);
    CHECK(occ["warps_per_sm"] == 64);
    CHECK(occ["limited_by"] == "warp_slots");
  }
}

TEST_CASE("issue timing: a longer global memory latency never makes gto faster") {
  for (const char* wl : {"--workload scalarProd --launch fi32", "--workload matrixMul --launch square32"}) {
    uint64_t last = 0;
    for (unsigned lat : {100u, 400u, 850u}) {
      const auto j = run_ok(fmt::format("--preset tx2 --set sm.warp_policy=gto --set gmem.latency={} {}", lat, wl));
      const uint64_t c = j["kernel_cycles"].get<uint64_t>();
      INFO(wl << " gmem.latency " << lat << ": " << c << " cycles, before " << last);
      CHECK(c > last);
      last = c;
    }
  }
}
