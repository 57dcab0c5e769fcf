// What a run leaves behind for its users: the registry listing, the block timeline, waveforms,
// the scheduler policies' effect, and device errors that say where they happened.
#include <catch2/catch.hpp>

#include <set>

#include "common/subprocess.h"

using namespace gpuvp::test;
using Catch::Matchers::Contains;

TEST_CASE("targets: every model registers its state under hierarchical names") {
  auto r = run_gpuvp("targets --preset flexgrip --set sm.count=2");
  REQUIRE(r.status == 0);
  for (const char* name :
       {"gpu.sched.state ", "gpu.sched.blocks_scheduled_cnt ", "gpu.sched.num_blocks[1] ", "gpu.sched.block_idx[0] ",
        "gpu.sched.smp_done_array ", "gpu.arb_gmem_rd.grant ", "gpu.arb_gmem_wr.state ", "gpu.arb_cmem.last ",
        "gpu.arb_sysmem.stall ", "gpu.arb_cfg.grant ", "gpu.cfg.blocks_per_core ", "gpu.cfg.param[31] ", "gpu.gmem ",
        "gpu.cmem ", "gpu.sysmem ", "gpu.sm0.smem ", "gpu.sm1.state "})
    CHECK_THAT(r.out, Contains(name));
  // Widths follow the design: 2 SMs -> 2-bit done array; 3 requesters on the config arbiter.
  CHECK_THAT(r.out, Contains("gpu.sched.smp_done_array                 register  2 bits"));
  CHECK_THAT(r.out, Contains("gpu.arb_cfg.grant                        register  3 bits"));
  auto m = run_gpuvp("targets --preset flexgrip --match 'gpu.sched.*'");
  REQUIRE(m.status == 0);
  CHECK_THAT(m.out, !Contains("gpu.arb"));
}

TEST_CASE("timeline: every block of every launch appears once, on a valid SM, inside its kernel") {
  std::string tl = temp_path("timeline.json"), st = temp_path("stats.json");
  auto r = run_gpuvp(fmt::format("run --preset flexgrip --set sm.count=4 --workload vectorAdd --launch fi32 --timeline {} --stats {}", tl, st));
  REQUIRE(r.status == 0);
  auto t = nlohmann::json::parse(slurp(tl));
  auto s = nlohmann::json::parse(slurp(st));
  std::set<uint64_t> blocks;
  double k0 = s["launches"][0]["start_ps"].get<double>() / 1e6, k1 = s["launches"][0]["end_ps"].get<double>() / 1e6;
  for (auto& e : t["traceEvents"]) {
    if (e["ph"] != "X") continue;
    CHECK(blocks.insert(e["args"]["block"].get<uint64_t>()).second);
    CHECK(e["tid"].get<unsigned>() < 4);
    CHECK(e["ts"].get<double>() >= k0);
    CHECK(e["ts"].get<double>() + e["dur"].get<double>() <= k1 + 1e-6);
    // Round robin, 4 SMs: block b runs on SM b mod 4 (block-scheduler.md block identity).
    CHECK(e["tid"].get<uint64_t>() == e["args"]["block"].get<uint64_t>() % 4);
  }
  CHECK(blocks.size() == 32);
  CHECK(*blocks.rbegin() == 31);
  std::remove(tl.c_str());
  std::remove(st.c_str());
}

TEST_CASE("vcd: waveforms hold the scheduler, arbiter and SM handshake signals") {
  std::string w = temp_path("wave");
  auto r = run_gpuvp(fmt::format("run --preset flexgrip --set sm.count=2 --workload vectorAdd --vcd {}", w));
  REQUIRE(r.status == 0);
  std::string vcd = slurp(w + ".vcd");
  for (const char* sig : {"smp_en", "smp_done", "smp_reset", "num_blocks", "kernel_done", "rdy", "req_0", "grant_1", "stall_0", "ack_1"})
    CHECK_THAT(vcd, Contains(std::string(" ") + sig + " "));
  CHECK_THAT(vcd, Contains("$scope module arb_gmem_rd $end"));
  std::remove((w + ".vcd").c_str());
}

TEST_CASE("policies: every scheduler policy runs every block once and gives the right result") {
  for (const char* pol : {"round_robin", "ordered", "even_odd", "random"}) {
    INFO(pol);
    std::string tl = temp_path("tl.json");
    auto r = run_gpuvp(fmt::format("run --preset flexgrip --set sm.count=4 --set scheduler.policy={} --workload vectorAdd "
                                   "--launch fi32 --timeline {}", pol, tl));
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Contains("correct"));
    auto t = nlohmann::json::parse(slurp(tl));
    std::multiset<uint64_t> seen;
    for (auto& e : t["traceEvents"])
      if (e["ph"] == "X") seen.insert(e["args"]["block"].get<uint64_t>());
    CHECK(seen.size() == 32);
    for (uint64_t b = 0; b < 32; ++b) CHECK(seen.count(b) == 1);
    std::remove(tl.c_str());
  }
}

TEST_CASE("run: a wrong launch is reported before the GPU runs, naming the resource") {
  // 2 blocks of 512 threads per core is scalarProd's fi configuration; the flexgrip SM holds 1024
  // threads, so with sm.max_threads=512 one block fits and two cannot.
  auto r = run_gpuvp("run --preset flexgrip --set sm.max_threads=512 --workload scalarProd --launch fi16");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("2 blocks per core requested, only 1 fit"));
}

TEST_CASE("warp size: narrower warps run kernels without warp-level code, and stop clearly on it") {
  for (int ws : {4, 8, 16}) {
    INFO("warp size " << ws);
    auto ok = run_gpuvp(fmt::format("run --preset flexgrip --set sm.warp_size={} --workload histogram", ws));
    CHECK(ok.status == 0);
    CHECK_THAT(ok.out, Contains("correct"));
    // reduction uses __shfl_down_sync, compiled by nvcc for 32-lane warps.
    auto r = run_gpuvp(fmt::format("run --preset flexgrip --set sm.warp_size={} --workload reduction", ws));
    CHECK(r.status == 1);
    CHECK_THAT(r.err, Contains("shfl.sync.down.b32") && Contains(fmt::format("{}-lane warps (sm.warp_size)", ws)));
  }
}
