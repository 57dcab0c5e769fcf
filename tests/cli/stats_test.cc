// The statistics every way of running work writes (docs/statistics.md): one schema, the same counters
// for the same kernel whichever command launched it, and `gpuvp compare` of two files.
#include <catch2/catch.hpp>

#include <cstdio>

#include "cli/compare.h"
#include "common/subprocess.h"
#include "platform/config/config.h"

using namespace gpuvp::test;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

const std::string kStats = std::string(GPUVP_TEST_DATA) + "/stats/";

json read_stats(const std::string& path) {
  const std::string text = slurp(path);
  std::remove(path.c_str());
  REQUIRE(!text.empty());
  return json::parse(text);
}

// vectorAdd's host program is one launch: 16 blocks of 32 threads over n = 512 (workload "small").
const char* kConfig = "--preset flexgrip --set sm.count=2";

json run_vector_add() {
  const std::string s = temp_path("run_stats.json");
  RunResult r = run_gpuvp(fmt::format("run {} --workload vectorAdd --launch small --stats {}", kConfig, s));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  return read_stats(s);
}

// The same kernel, buffers and sizes through exec: a, b random, c zero, n = 512.
json exec_vector_add() {
  const std::string s = temp_path("exec_stats.json");
  RunResult r = run_gpuvp(fmt::format(
      "exec {} --ptx {}/sw/kernels/vectorAdd.ptx -k vectorAdd --grid 16 --block 32 --arg buf:f32:512:rand=1 "
      "--arg buf:f32:512:rand=2 --arg buf:f32:512 --arg i32:512 --stats {}",
      kConfig, GPUVP_SOURCE_DIR, s));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  return read_stats(s);
}

void check_sections(const json& j, const std::string& command) {
  INFO(command);
  CHECK(j["schema"] == "gpuvp-stats/2");
  CHECK(j["command"] == command);
  for (const char* k : {"sim_seconds", "host_seconds", "kernel_cycles", "warp_insts", "thread_insts", "clock_mhz"})
    CHECK(j[k].is_number());
  REQUIRE(j["sms"].is_array());
  REQUIRE(!j["sms"].empty());
  for (const char* k : {"residency_ps", "residency_fraction", "warp_insts", "thread_insts", "blocks"})
    CHECK(j["sms"][0][k].is_number());
  REQUIRE(j["launches"].is_array());
  REQUIRE(!j["launches"].empty());
  for (const char* k : {"launch_id", "start_ps", "end_ps", "cycles", "blocks_per_core"})
    CHECK(j["launches"][0][k].is_number());
  CHECK(j["config"].is_object());
}

}  // namespace

// The SMs' sections without what depends on the whole run's length (docs/statistics.md, "What differs"):
// of the energy, the events and the dynamic energy are the kernel's, the rest is averaged over the run.
json kernel_part(json sms) {
  for (json& sm : sms) {
    json& e = sm["energy"];
    e = {{"events", e["events"]}, {"dynamic_j", e["dynamic_j"]}, {"clusters", e["clusters"]}};
  }
  return sms;
}

TEST_CASE("stats: exec --stats equals run --stats for vectorAdd launched both ways") {
  json run = run_vector_add(), exec = exec_vector_add();
  check_sections(run, "run");
  check_sections(exec, "exec");
  run["sms"] = kernel_part(run["sms"]);
  exec["sms"] = kernel_part(exec["sms"]);
  // Every counter of the kernel's execution: the GPU does the same work in the same cycles.
  for (const char* k : {"kernel_cycles", "warp_insts", "thread_insts", "sms", "arbiters", "config", "preset"}) {
    INFO(k);
    CHECK(run[k] == exec[k]);
  }
  REQUIRE(run["launches"].size() == 1);
  REQUIRE(exec["launches"].size() == 1);
  for (const char* k : {"kernel", "launch_id", "cycles", "blocks_per_core"}) {
    INFO(k);
    CHECK(run["launches"][0][k] == exec["launches"][0][k]);
  }
  // 16 blocks of 32 threads, one warp each, over 2 SMs round robin: 8 blocks per SM.
  CHECK(run["sms"][0]["blocks"] == 8);
  CHECK(run["sms"][1]["blocks"] == 8);
  // sim_seconds, host_seconds and the launch's start_ps/end_ps depend on the host program (docs/statistics.md).
}

TEST_CASE("stats: a lone requester at an arbiter waits 0 cycles, its stall is the arbitration cycle of each grant") {
  const std::string s = temp_path("lone_stats.json");
  RunResult r = run_gpuvp(fmt::format("run --preset flexgrip --set sm.count=1 --workload vectorAdd --launch small --stats {}", s));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const json j = read_stats(s);
  unsigned lone = 0;
  for (const json& a : j["arbiters"]) {
    INFO(a.dump());
    REQUIRE(a["wait_cycles"].size() == a["grants"].size());
    if (a["grants"].size() != 1) continue;  // arb_cfg: the SM and the host
    ++lone;
    CHECK(a["wait_cycles"][0] == 0);
    CHECK(a["stall_cycles"][0] == a["grants"][0]);  // one arbitration cycle per grant, no waiting
  }
  CHECK(lone == 4);  // gmem read and write, cmem, sysmem: the one SM alone
  // The SM fetched instructions through arb_sysmem: the check above is not vacuous.
  for (const json& a : j["arbiters"])
    if (a["name"] == "arb_sysmem") CHECK(a["grants"][0].get<uint64_t>() > 0);
}

TEST_CASE("stats: experiment --stats has the schema and one section per launch") {
  const std::string s = temp_path("exp_stats.json"), tl = temp_path("exp_timeline.json");
  RunResult r = run_gpuvp(fmt::format("experiment {}/experiments/tx2_priorities.json --out {} --stats {} --timeline {}",
                                      GPUVP_SOURCE_DIR, temp_path("exp_out"), s, tl));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const json j = read_stats(s);
  check_sections(j, "experiment");
  // Four benchmarks of one kernel run each (tx2_priorities.json: max_iterations 1).
  CHECK(j["launches"].size() == 4);
  const json t = read_stats(tl);
  CHECK(!t["traceEvents"].empty());
}

TEST_CASE("stats: an unwritable --stats is refused before exec or experiment runs") {
  auto r = run_gpuvp(fmt::format("exec --ptx {}/sw/kernels/vectorAdd.ptx -k vectorAdd --arg buf:f32:1 --arg buf:f32:1 "
                                 "--arg buf:f32:1 --arg i32:1 --stats /nonexistent/dir/s.json",
                                 GPUVP_SOURCE_DIR));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("--stats /nonexistent/dir/s.json: cannot write"));
  CHECK(r.out.empty());
  r = run_gpuvp(fmt::format("experiment {}/experiments/tx2_priorities.json --out {} --timeline /nonexistent/dir/t.json",
                            GPUVP_SOURCE_DIR, temp_path("exp_out")));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("--timeline /nonexistent/dir/t.json: cannot write"));
}

// a.json and b.json, by hand: kernel_cycles 1000 -> 1100 (+100, +10 %), launches[0].cycles 0 -> 5 (+5,
// no relative difference), sim_seconds 0.5 -> 0.25 (-0.25, -50 %), sms[0].id 0 -> 0, sms[0].warp_insts
// 200 -> 199 (-1, -0.5 %), extra only in B; booleans and strings are not compared. Keys in order.
TEST_CASE("compare: two hand-written statistics files give the hand-computed differences") {
  const auto rows = gpuvp::compare_stats(kStats + "a.json", kStats + "b.json", 1);
  REQUIRE(rows.size() == 6);
  struct Want {
    const char *path, *a, *b, *diff, *rel;
    bool marked;
  } want[] = {{"kernel_cycles", "1000", "1100", "+100", "+10.00 %", true},
              {"launches[0].cycles", "0", "5", "+5", "new", true},
              {"sim_seconds", "0.5", "0.25", "-0.25", "-50.00 %", true},
              {"sms[0].id", "0", "0", "+0", "0 %", false},
              {"sms[0].warp_insts", "200", "199", "-1", "-0.50 %", false},
              {"extra", "-", "7", "-", "-", true}};
  for (size_t i = 0; i < rows.size(); ++i) {
    INFO(i);
    CHECK(rows[i].path == want[i].path);
    CHECK(rows[i].a == want[i].a);
    CHECK(rows[i].b == want[i].b);
    CHECK(rows[i].diff == want[i].diff);
    CHECK(rows[i].rel == want[i].rel);
    CHECK(rows[i].marked == want[i].marked);
  }
  // A threshold of 0.1 % marks the 0.5 % too.
  CHECK(gpuvp::compare_stats(kStats + "a.json", kStats + "b.json", 0.1)[4].marked);
  auto r = run_gpuvp(fmt::format("compare {}a.json {}b.json", kStats, kStats));
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("* kernel_cycles       1000  1100   +100  +10.00 %"));
  CHECK_THAT(r.out, Contains("  sms[0].warp_insts    200   199     -1   -0.50 %"));
  CHECK_THAT(r.out, Contains("4 of 6 values marked *: relative difference above 1 %, from zero, or in one file only"));
}

TEST_CASE("compare: a file that is not a statistics file of a known schema exits 2 naming it") {
  struct Case {
    const char *file, *expect;
  } cases[] = {{"old_schema.json", "statistics schema \"gpuvp-stats/0\" is not known (known: gpuvp-stats/2)"},
               {"no_schema.json", "not a gpuvp statistics file"},
               {"array.json", "not a gpuvp statistics file"},
               {"truncated.json", "truncated.json"},
               {"missing.json", "missing.json"}};
  for (const Case& c : cases) {
    INFO(c.file);
    // Either side: the message names the bad one.
    auto r = run_gpuvp(fmt::format("compare {}a.json {}{}", kStats, kStats, c.file));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(kStats + c.file));
    CHECK_THAT(r.err, Contains(c.expect));
    r = run_gpuvp(fmt::format("compare {}{} {}b.json", kStats, c.file, kStats));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(kStats + c.file));
  }
}
