// Per-instance parameters reach the instance they name, and per-module log levels come from the
// command line.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>

#include "common/subprocess.h"

using namespace gpuvp::test;

namespace {
// Log lines per module path ("[level time unit] module: message").
std::map<std::string, int> lines_per_module(const std::string& err) {
  std::map<std::string, int> n;
  std::istringstream in(err);
  std::string line;
  while (std::getline(in, line)) {
    auto close = line.find("] "), colon = line.find(": ", close);
    if (line.rfind("[", 0) == 0 && close != std::string::npos && colon != std::string::npos)
      ++n[line.substr(close + 2, colon - close - 2)];
  }
  return n;
}
}  // namespace

TEST_CASE("params: a slower ALU on one SM slows that SM only") {
  // tx2, 16 blocks on 2 SMs in one batch: the SM whose ALU latency is raised finishes last, so it is
  // the one busy for the whole kernel; the other SM idles at the end.
  const char* base = "--preset tx2 --workload vectorAdd --launch large";
  auto plain = run_stats(base);
  auto slow1 = run_stats(fmt::format("{} --set gpu.sm1.latency.alu=200", base));
  auto slow0 = run_stats(fmt::format("{} --set gpu.sm0.latency.alu=200", base));
  for (auto* j : {&plain, &slow1, &slow0}) {
    REQUIRE((*j)["exit_status"] == 0);
    CHECK((*j)["correct"] == true);
  }
  CHECK(slow1["kernel_cycles"].get<uint64_t>() > plain["kernel_cycles"].get<uint64_t>());
  double b0 = slow1["sms"][0]["residency_fraction"], b1 = slow1["sms"][1]["residency_fraction"];
  CHECK(b1 > b0 + 0.1);
  double c0 = slow0["sms"][0]["residency_fraction"], c1 = slow0["sms"][1]["residency_fraction"];
  CHECK(c0 > c1 + 0.1);
  // The instructions executed are the same: only timing changed.
  CHECK(slow1["sms"][1]["warp_insts"] == plain["sms"][1]["warp_insts"]);
  CHECK(slow1["config"]["gpu"]["sm1"]["latency"]["alu"] == 200);
}

TEST_CASE("params: --log sets the level of one module and those below it") {
  auto r = run_gpuvp("run --preset flexgrip --workload vectorAdd --log gpu.sched=debug");
  REQUIRE(r.status == 0);
  auto n = lines_per_module(r.err);
  CHECK(n["gpu.sched"] >= 4);  // kernel start, a batch per 8 blocks, kernel done
  CHECK(n.count("gpu.sm0") == 0);
  CHECK(n.count("gpu.arb_gmem_rd") == 0);

  // A more specific path wins over a shorter one, whatever the order given.
  r = run_gpuvp("run --preset flexgrip --workload vectorAdd --log gpu=debug --log gpu.sched=warn");
  REQUIRE(r.status == 0);
  n = lines_per_module(r.err);
  CHECK(n.count("gpu.sched") == 0);
  CHECK(n["gpu.sm0"] >= 1);
  CHECK(n["gpu.arb_gmem_rd"] >= 1);

  r = run_gpuvp("run --preset flexgrip --workload vectorAdd --log gpu.sched=loud");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Matchers::Contains("log.modules"));
}

TEST_CASE("params: instance keys are checked like their class keys on the command line") {
  auto r = run_gpuvp("config --preset tx2 --set gpu.sm1.warp_policy=lifo");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Matchers::Contains("gpu.sm1.warp_policy = \"lifo\": not an allowed value"));
  r = run_gpuvp("config --preset tx2 --set gpu.sm5.sps=4");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Matchers::Contains("gpu.sm5.sps: there is no instance 5 (sm.count = 2)"));
}

TEST_CASE("params: the scheduler's instance keys reach the scheduler and the SMs alike") {
  // An ordered (fill) policy on the scheduler instance: the SMs must run contiguous block ranges,
  // each of the 32 blocks exactly once, and the result must be right.
  std::string tl = temp_path("tl.json");
  auto r = run_gpuvp(fmt::format(
      "run --preset flexgrip --set sm.count=2 --set gpu.sched.policy=ordered --workload vectorAdd --launch fi32 "
      "--timeline {}", tl));
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Matchers::Contains("correct"));
  auto events = nlohmann::json::parse(slurp(tl))["traceEvents"];
  std::multiset<uint64_t> blocks;
  for (auto& e : events)
    if (e["ph"] == "X") blocks.insert(e["args"]["block"].get<uint64_t>());
  REQUIRE(blocks.size() == 32);
  for (uint64_t b = 0; b < 32; ++b) CHECK(blocks.count(b) == 1);
  // blocks_per_core through the scheduler's instance key is what the launch uses.
  auto st = run_stats("--preset flexgrip --set sm.count=2 --set gpu.sched.blocks_per_core=2 --workload vectorAdd");
  REQUIRE(st["exit_status"] == 0);
  CHECK(st["launches"][0]["blocks_per_core"] == 2);
}
