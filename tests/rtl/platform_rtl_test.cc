// Whole platform through the gpuvp binary (one platform per process): every workload on flexgrip
// with 1, 2 and 4 SMs (and its first launch configuration on tk1 and tx2) gives the same result, the same block dispatch trace (--timeline) and the
// same simulated execution time (--stats: kernel_cycles, launches[].cycles, arbiter statistics)
// with the Verilated scheduler and arbiters as with the SystemC models. --vcd carries the RTL's
// flip-flops.
#include <catch2/catch.hpp>

#include <cstdio>
#include <set>
#include <string>

#include "common/subprocess.h"
#include "sw/workloads/workload.h"

using gpuvp::test::run_gpuvp;
using gpuvp::test::slurp;
using gpuvp::test::temp_path;

namespace {

struct Run {
  nlohmann::json stats;
  std::string timeline, out;
  int status = -1;
};

Run run(const std::string& args) {
  Run r;
  std::string s = temp_path("stats.json"), t = temp_path("timeline.json");
  auto res = run_gpuvp(fmt::format("run {} --stats {} --timeline {}", args, s, t));
  r.status = res.status;
  r.out = res.out + res.err;
  std::string text = slurp(s);
  if (!text.empty()) r.stats = nlohmann::json::parse(text);
  r.timeline = slurp(t);
  std::remove(s.c_str());
  std::remove(t.c_str());
  return r;
}

void same_with_rtl(const std::string& workload) {
  const gpuvp::wl::Workload* w = gpuvp::wl::find(workload);
  REQUIRE(w);
  // Every launch configuration on flexgrip with 1, 2 and 4 SMs; the first one on tk1 and tx2.
  std::vector<std::string> runs;
  for (const auto& cfg : w->configs())
    for (int n : {1, 2, 4})
      runs.push_back(fmt::format("--preset flexgrip --set sm.count={} --workload {} --launch {}", n, workload, cfg.name));
  // tk1 and tx2 run the concurrent dispatcher by default; the RTL is the batch scheduler, so compare that.
  for (const char* preset : {"tk1", "tx2"})
    runs.push_back(fmt::format("--preset {} --set scheduler.kind=batch --workload {} --launch {}", preset, workload,
                               w->configs().front().name));
  for (const std::string& base : runs) {
    INFO(base);
    Run m = run(base + " --set scheduler.impl=model --set arbiter.impl=model");
    Run r = run(base + " --set scheduler.impl=rtl --set arbiter.impl=rtl");
    INFO(m.out);
    INFO(r.out);
    REQUIRE(m.status == 0);
    REQUIRE(r.status == 0);
    CHECK(m.stats["correct"] == true);
    CHECK(r.stats["correct"] == true);
    CHECK(r.stats["kernel_cycles"] == m.stats["kernel_cycles"]);
    CHECK(r.stats["sim_seconds"] == m.stats["sim_seconds"]);
    REQUIRE(r.stats["launches"].size() == m.stats["launches"].size());
    for (size_t i = 0; i < m.stats["launches"].size(); ++i) {
      CHECK(r.stats["launches"][i]["cycles"] == m.stats["launches"][i]["cycles"]);
      CHECK(r.stats["launches"][i]["start_ps"] == m.stats["launches"][i]["start_ps"]);
    }
    CHECK(r.stats["arbiters"] == m.stats["arbiters"]);
    CHECK(r.stats["thread_insts"] == m.stats["thread_insts"]);
    CHECK(!m.timeline.empty());
    CHECK(r.timeline == m.timeline);
  }
}

}  // namespace

TEST_CASE("rtl platform: vectorAdd same with RTL and models") { same_with_rtl("vectorAdd"); }
TEST_CASE("rtl platform: scalarProd same with RTL and models") { same_with_rtl("scalarProd"); }
TEST_CASE("rtl platform: grayFilter same with RTL and models") { same_with_rtl("grayFilter"); }
TEST_CASE("rtl platform: nearestNeighbour same with RTL and models") { same_with_rtl("nearestNeighbour"); }
TEST_CASE("rtl platform: timerSpin same with RTL and models") { same_with_rtl("timerSpin"); }
TEST_CASE("rtl platform: reduction same with RTL and models") { same_with_rtl("reduction"); }
TEST_CASE("rtl platform: matrixMul same with RTL and models") { same_with_rtl("matrixMul"); }
TEST_CASE("rtl platform: histogram same with RTL and models") { same_with_rtl("histogram"); }
TEST_CASE("rtl platform: mandelbrot same with RTL and models") { same_with_rtl("mandelbrot"); }
TEST_CASE("rtl platform: bfs same with RTL and models") { same_with_rtl("bfs"); }

TEST_CASE("rtl platform: workloads added after this list, same with RTL and models") {
  const std::set<std::string> listed = {"vectorAdd", "scalarProd", "grayFilter", "nearestNeighbour", "timerSpin",
                                        "reduction",  "matrixMul",  "histogram",  "mandelbrot",       "bfs"};
  for (const auto& w : gpuvp::wl::all())
    if (!listed.count(w->name())) same_with_rtl(w->name());
}

TEST_CASE("rtl platform: --vcd carries the RTL flip-flops and the registry lists them") {
  std::string v = temp_path("wave.vcd");
  auto res = run_gpuvp(fmt::format(
      "run --preset flexgrip --set sm.count=2 --workload vectorAdd --set scheduler.impl=rtl --set arbiter.impl=rtl --vcd {}",
      v));
  INFO(res.out << res.err);
  REQUIRE(res.status == 0);
  std::string vcd = slurp(v + ".vcd");  // SystemC appends .vcd
  if (vcd.empty()) vcd = slurp(v);
  std::remove(v.c_str());
  std::remove((v + ".vcd").c_str());
  for (const char* sig : {"blocks_scheduled_cnt", "smp_done_array", "num_blocks(1)", "block_idx(0)", "prng", "last"})
    CHECK(vcd.find(sig) != std::string::npos);
}
