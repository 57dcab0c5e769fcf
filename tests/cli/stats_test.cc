// The statistics every way of running work writes (docs/statistics.md): one schema, the same counters
// for the same kernel whichever command launched it, and `gpuvp compare` of two files.
#include <algorithm>
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

json run_vector_add(const std::string& config) {
  const std::string s = temp_path("run_stats.json");
  RunResult r = run_gpuvp(fmt::format("run {} --workload vectorAdd --launch small --stats {}", config, s));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  return read_stats(s);
}

// The same kernel, buffers and sizes through exec: a, b random, c zero, n = 512. `printed` gets the
// cycles exec prints ("vectorAdd on tx2: 2642 cycles (...").
json exec_vector_add(const std::string& config, uint64_t* printed = nullptr) {
  const std::string s = temp_path("exec_stats.json");
  RunResult r = run_gpuvp(fmt::format(
      "exec {} --ptx {}/sw/kernels/vectorAdd.ptx -k vectorAdd --grid 16 --block 32 --arg buf:f32:512:rand=1 "
      "--arg buf:f32:512:rand=2 --arg buf:f32:512 --arg i32:512 --stats {}",
      config, GPUVP_SOURCE_DIR, s));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  if (printed) {
    const size_t at = r.out.find(": ");
    REQUIRE(at != std::string::npos);
    *printed = std::stoull(r.out.substr(at + 2));
  }
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
  // flexgrip (no warp schedulers: the issue counters are 0) and tx2 (schedulers, caches, a DRAM).
  for (const std::string config : {kConfig, "--preset tx2"}) {
    INFO(config);
    json run = run_vector_add(config), exec = exec_vector_add(config);
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
    for (const char* k : {"kernel", "launch_id", "cycles", "blocks_per_core", "occupancy", "issue", "shared",
                          "inst_class", "blocks", "dynamic_energy_j"}) {
      INFO(k);
      CHECK(run["launches"][0][k] == exec["launches"][0][k]);
    }
    // 16 blocks of 32 threads, one warp each, over 2 SMs: 8 blocks per SM.
    CHECK(run["sms"][0]["blocks"] == 8);
    CHECK(run["sms"][1]["blocks"] == 8);
    // sim_seconds, host_seconds and the launch's start_ps/end_ps depend on the host program (docs/statistics.md).
  }
}

TEST_CASE("stats: one launch's cycles are the same number printed, per launch and in kernel_cycles") {
  // tx2's 1300 MHz clock runs with a period of whole picoseconds: 1e6 / 1300 = 769.23, so 769 ps. The
  // cycles of a span are its picoseconds over 769 (the clock's edges), not over 769.23.
  for (const std::string config : {kConfig, "--preset tx2"}) {
    INFO(config);
    uint64_t printed = 0;
    const json j = exec_vector_add(config, &printed);
    const json& l = j["launches"][0];
    const uint64_t period = config == kConfig ? 10000 : 769;  // 100 MHz, 1300 MHz
    CHECK(j["clock_period_ps"] == period);
    CHECK(l["cycles"] == (l["end_ps"].get<uint64_t>() - l["start_ps"].get<uint64_t>()) / period);
    CHECK(j["kernel_cycles"] == l["cycles"]);
    CHECK(printed == l["cycles"].get<uint64_t>());
  }
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
  REQUIRE(j["launches"].size() == 4);
  // In launch order, though they complete out of it: low B (launch 2, released at 0.2 ms) waits for
  // low A's blocks, and the high-priority kernels released at 0.4 and 0.6 ms (launches 3, 4) go first.
  std::vector<uint64_t> ids, ends;
  for (const json& l : j["launches"]) ids.push_back(l["launch_id"]), ends.push_back(l["end_ps"]);
  CHECK(ids == std::vector<uint64_t>{1, 2, 3, 4});
  CHECK(!std::is_sorted(ends.begin(), ends.end()));
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

TEST_CASE("stats: gpuvp cuda refuses an unwritable --stats, --timeline or --vcd before the program starts") {
  for (const char* opt : {"--stats /nonexistent/dir/s.json", "--timeline /nonexistent/dir/t.json",
                          "--vcd /nonexistent/dir/w"}) {
    INFO(opt);
    // The program would print "started": it must never run.
    auto r = run_gpuvp(fmt::format("cuda {} -- /bin/echo started", opt));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(std::string(opt).substr(0, std::string(opt).find(' ')) + " /nonexistent/dir/"));
    CHECK_THAT(r.err, Contains("cannot write"));
    CHECK(r.out.find("started") == std::string::npos);
  }
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

namespace {
// The copy kernel (tests/data/stats/copy.ptx) over n = 1024 words: 8 blocks of 128 threads.
json exec_copy(const std::string& preset) {
  const std::string s = temp_path("copy_stats.json");
  RunResult r = run_gpuvp(fmt::format(
      "exec --preset {} --ptx {}copy.ptx -k copy --grid 8 --block 128 --arg buf:u32:1024:rand=1 --arg buf:u32:1024 "
      "--arg i32:1024 --stats {}",
      preset, kStats, s));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  return read_stats(s);
}
}  // namespace

TEST_CASE("stats: DRAM bytes of a copy kernel of 4096 bytes, per launch and over the run") {
  const uint64_t n = 4096;  // bytes copied: 1024 words
  for (const char* preset : {"flexgrip", "tx2"}) {
    INFO(preset);
    const json j = exec_copy(preset);
    const json& l = j["launches"][0]["dram"];
    // The kernel reads its input once; without caches (flexgrip) it writes its output to DRAM, with
    // tx2's write-back L2 the 128 dirty sectors stay there until the host reads the output back.
    CHECK(l["read_bytes"] == n);
    CHECK(l["write_bytes"] == (std::string(preset) == "flexgrip" ? n : 0));
    const double secs = double(j["launches"][0]["end_ps"].get<uint64_t>() - j["launches"][0]["start_ps"].get<uint64_t>()) * 1e-12;
    CHECK(l["bandwidth_gbs"].get<double>() ==
          Approx(double(l["read_bytes"].get<uint64_t>() + l["write_bytes"].get<uint64_t>()) / secs / 1e9));
    // exec copies both buffers in and out (2 x 4096 each way), plus the kernel's n each way (on tx2
    // the output's write-back when the host reads it).
    CHECK(j["dram"]["read_bytes"] == 3 * n);
    CHECK(j["dram"]["write_bytes"] == 3 * n);
    CHECK(j["dram"]["bandwidth_gbs"].get<double>() == Approx(6.0 * n / j["sim_seconds"].get<double>() / 1e9));
  }
}

TEST_CASE("stats: per-launch issue cycles of concurrent kernels on one SM add up to the SM's") {
  // Two streams of two timer-spin kernels on tk1: stream 2's kernels overlap stream 1's on SM 0.
  const std::string s = temp_path("mk_stats.json");
  RunResult r = run_gpuvp(fmt::format("experiment {}/experiments/tk1_multikernel.json --stats {}", GPUVP_SOURCE_DIR, s));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const json j = read_stats(s);
  REQUIRE(j["launches"].size() == 4);
  for (size_t i = 0; i < j["sms"].size(); ++i) {
    const json& is = j["sms"][i]["issue"];
    json stalls = json::object();
    uint64_t insts = 0, cycles = 0, sms_launches = 0;
    for (const json& l : j["launches"])
      for (const json& p : l["issue"]["per_sm"]) {
        if (p["sm"] != i) continue;
        ++sms_launches;
        for (auto& [k, v] : p["stall_cycles"].items()) stalls[k] = stalls.value(k, uint64_t{0}) + v.get<uint64_t>();
        insts += p["warp_insts"].get<uint64_t>();
        cycles += p["scheduler_cycles"].get<uint64_t>();
      }
    INFO("sm " << i << ": " << is.dump());
    CHECK(sms_launches >= 2);
    CHECK(stalls == is["stall_cycles"]);
    CHECK(insts == is["warp_insts"].get<uint64_t>());
    CHECK(cycles == is["cycles"].get<uint64_t>() * is["schedulers"].get<uint64_t>());
  }
  // Instruction classes per launch add up to the SMs'; blocks per launch are the file's grids
  // (K1 and K2 one block each, K3 and K4 two).
  json classes = json::object(), launch_classes = json::object();
  for (const json& sm : j["sms"])
    for (auto& [k, v] : sm["inst_class"].items()) classes[k] = classes.value(k, uint64_t{0}) + v.get<uint64_t>();
  for (const json& l : j["launches"])
    for (auto& [k, v] : l["inst_class"].items())
      launch_classes[k] = launch_classes.value(k, uint64_t{0}) + v.get<uint64_t>();
  CHECK(launch_classes == classes);
  std::vector<uint64_t> blocks;
  for (const json& l : j["launches"]) blocks.push_back(l["blocks"].get<uint64_t>());
  std::sort(blocks.begin(), blocks.end());
  CHECK(blocks == std::vector<uint64_t>{1, 1, 2, 2});
  // Launches overlap on SM 0 (the test is about concurrent kernels): K3 starts before K1 ends.
  CHECK(j["launches"][1]["start_ps"].get<uint64_t>() < j["launches"][0]["end_ps"].get<uint64_t>());
}

TEST_CASE("stats: a timer-spin block lasts its spin on tk1 whatever its sleep step (nanosleep is never dual-issued)") {
  // timerSpin sleeps min(left, step) until %globaltimer shows 250 us gone: 250 us whatever the step.
  // A %globaltimer read dual-issued with the nanosleep before it would see the time before the sleep
  // and spin one step too long.
  for (const char* step : {"100000", "30000"}) {
    const std::string s = temp_path("spin_stats.json");
    RunResult r = run_gpuvp(fmt::format(
        "exec --preset tk1 --ptx {}/sw/kernels/timerSpin.ptx -k timerSpin --grid 1 --block 32 -a buf:u64:1 "
        "-a buf:u64:1 -a buf:u32:1 -a buf:u64:1:const=250000 -a u32:{} --stats {}",
        GPUVP_SOURCE_DIR, step, s));
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    const json l = read_stats(s)["launches"][0];
    const uint64_t ps = l["end_ps"].get<uint64_t>() - l["start_ps"].get<uint64_t>();
    CHECK(ps >= 250000000);
    CHECK(ps < 256000000);  // plus the dispatch and completion of one block: a few us, far below one step
  }
}
