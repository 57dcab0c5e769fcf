// gpuvp sweep (docs/user-guide.md "Sweeps"): the grid's points and axis values, each point's statistics
// equal to the direct command's, failures recorded while the rest completes, resume, shards and merge,
// and bad sweep files refused before anything runs.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "common/subprocess.h"

using namespace gpuvp::test;
using Catch::Matchers::Contains;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string write_file(const std::string& stem, const std::string& text) {
  const std::string path = temp_path(stem);
  std::ofstream(path) << text;
  return path;
}

json read_json(const std::string& path) {
  const std::string text = slurp(path);
  REQUIRE(!text.empty());
  return json::parse(text);
}

// 3 x 3 points of vectorAdd (16 blocks of 32 threads) on flexgrip: SMs x global memory latency.
const char* kGrid = R"({
  "name": "grid",
  "preset": "flexgrip",
  "workload": "vectorAdd:small",
  "axes": [{"key": "sm.count", "values": [1, 2, 4]}, {"key": "gmem.latency", "values": [2, 20, 200]}],
  "metrics": ["sms[0].blocks", {"name": "rd_grants_sm0", "path": "arbiters[arb_gmem_rd].grants[0]"}]
})";

// kernel_cycles of the direct `gpuvp run` of one point.
uint64_t direct_cycles(int sms, int latency) {
  const json s = run_stats(fmt::format("--preset flexgrip --set sm.count={} --set gmem.latency={} --workload vectorAdd "
                                       "--launch small",
                                       sms, latency));
  INFO(s["stderr"]);
  REQUIRE(s["exit_status"] == 0);
  return s["kernel_cycles"].get<uint64_t>();
}

RunResult sweep(const std::string& args) { return run_gpuvp("sweep " + args); }

}  // namespace

TEST_CASE("sweep: a 3 x 3 grid gives 9 rows in grid order, each equal to a separate gpuvp run") {
  const std::string file = write_file("grid.json", kGrid), out = temp_path("grid.out");
  const RunResult r = sweep(fmt::format("{} --out {} --jobs 2", file, out));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.err, Contains("[9/9]"));
  const json t = read_json(out + "/results.json");
  CHECK(t["axes"] == json({"sm.count", "gmem.latency"}));
  REQUIRE(t["rows"].size() == 9);
  const int sms[] = {1, 2, 4}, lat[] = {2, 20, 200};
  for (size_t k = 0; k < 9; ++k) {
    const json& row = t["rows"][k];
    INFO("point " << k + 1);
    CHECK(row["point"] == k + 1);
    CHECK(row["status"] == "ok");
    CHECK(row["sm.count"] == sms[k / 3]);  // the last axis varies fastest
    CHECK(row["gmem.latency"] == lat[k % 3]);
    CHECK(row["kernel_cycles"] == direct_cycles(sms[k / 3], lat[k % 3]));
    // 16 blocks round robin over the SMs; SM 0's read grants are one per global load it issued.
    CHECK(row["sms[0].blocks"] == 16 / sms[k / 3]);
    const json st = read_json(fmt::format("{}/points/{}.stats.json", out, k + 1));
    CHECK(st["schema"] == "gpuvp-stats/2");
    CHECK(st["config"]["sm"]["count"] == sms[k / 3]);
    CHECK(row["rd_grants_sm0"] == st["arbiters"][0]["grants"][0]);
    CHECK(row["warp_ipc"].get<double>() ==
          Approx(st["warp_insts"].get<double>() / st["kernel_cycles"].get<double>()));
  }
  // The CSV has the same rows under a header of point, status, the axes, the metrics and error.
  const std::string csv = slurp(out + "/results.csv");
  CHECK(csv.rfind("point,status,sm.count,gmem.latency,kernel_cycles,sim_seconds,warp_insts,thread_insts,warp_ipc,"
                  "sms[0].blocks,rd_grants_sm0,error\n",
                  0) == 0);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 10);
  fs::remove_all(out);
  std::remove(file.c_str());
}

TEST_CASE("sweep: a launch-file point equals gpuvp exec of the same launch file") {
  const std::string launch = write_file("launch.json", fmt::format(R"({{"ptx": "{}/sw/kernels/vectorAdd.ptx",
    "kernel": "vectorAdd", "grid": [16], "block": [32],
    "args": [{{"buffer": {{"type": "f32", "count": 512, "init": "random", "seed": 1}}}},
             {{"buffer": {{"type": "f32", "count": 512, "init": "random", "seed": 2}}}},
             {{"buffer": {{"type": "f32", "count": 512}}}}, {{"i32": 512}}]}})",
                                                                   GPUVP_SOURCE_DIR));
  const std::string file = write_file("exec.json", fmt::format(R"({{"preset": "flexgrip", "workload": "{}",
    "axes": [{{"key": "sm.count", "values": [1, 3]}}], "metrics": ["sms[0].blocks"]}})",
                                                                launch));
  const std::string out = temp_path("exec.out");
  const RunResult r = sweep(fmt::format("{} --out {}", file, out));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json t = read_json(out + "/results.json");
  REQUIRE(t["rows"].size() == 2);
  CHECK(t["rows"][0]["sms[0].blocks"] == 16);  // the grid's 16 blocks, all on the one SM
  for (int k = 0; k < 2; ++k) {
    const std::string s = temp_path("exec_stats.json");
    const RunResult e = run_gpuvp(fmt::format("exec --preset flexgrip --set sm.count={} --launch-file {} --stats {}",
                                              k ? 3 : 1, launch, s));
    REQUIRE(e.status == 0);
    const json direct = read_json(s);
    CHECK(t["rows"][k]["kernel_cycles"] == direct["kernel_cycles"]);
    CHECK(t["rows"][k]["thread_insts"] == direct["thread_insts"]);
    std::remove(s.c_str());
  }
  fs::remove_all(out);
}

TEST_CASE("sweep: a failing point is recorded with its error and the other points complete") {
  // A simulated-time limit of 1 ns stops the zipped point 2 with a timeout error; points 1 and 3 run.
  const std::string file = write_file("fail.json", R"({"preset": "flexgrip", "workload": "vectorAdd:small",
    "axes": [{"zip": [{"key": "sm.count", "values": [1, 2, 4]}, {"key": "sim.timeout_ms", "values": [2000, 0.000001, 2000]}]}]})");
  const std::string out = temp_path("fail.out");
  const RunResult r = sweep(fmt::format("{} --out {} --jobs 1", file, out));
  INFO(r.err);
  CHECK(r.status == 1);
  const json t = read_json(out + "/results.json");
  REQUIRE(t["rows"].size() == 3);
  CHECK(t["rows"][0]["status"] == "ok");
  CHECK(t["rows"][1]["status"] == "failed");
  CHECK_THAT(t["rows"][1]["error"].get<std::string>(), Contains("sim.timeout_ms"));
  CHECK(t["rows"][1]["kernel_cycles"].is_null());
  CHECK(t["rows"][2]["status"] == "ok");
  CHECK(t["rows"][2]["kernel_cycles"] == direct_cycles(4, 0));  // flexgrip's gmem.latency
  CHECK_THAT(r.err, Contains("point 2 (sm.count=2 sim.timeout_ms=1e-06): failed"));
  fs::remove_all(out);
  std::remove(file.c_str());
}

TEST_CASE("sweep: a point that hangs past --timeout is killed and recorded as a timeout") {
  // A kernel that branches to itself, without a simulated-time limit: only the watchdog ends it.
  // 1.5 s: the first point, vectorAdd, must finish inside it under the sanitizers on a loaded machine.
  const std::string ptx = write_file("spin.ptx", ".version 9.0\n.target sm_75\n.address_size 64\n"
                                                 ".visible .entry spin()\n{\n$L__spin:\n\tbra.uni $L__spin;\n}\n");
  const std::string launch = write_file("spin.json", fmt::format(R"({{"ptx": "{}", "kernel": "spin"}})", ptx));
  const std::string file = write_file("hang.json", fmt::format(R"({{"preset": "flexgrip", "set": {{"sim.timeout_ms": 0}},
    "axes": [{{"workload": ["vectorAdd:small", "{}"]}}]}})", launch));
  const std::string out = temp_path("hang.out");
  const RunResult r = sweep(fmt::format("{} --out {} --timeout 1.5", file, out));
  INFO(r.err);
  CHECK(r.status == 1);
  const json t = read_json(out + "/results.json");
  REQUIRE(t["rows"].size() == 2);
  CHECK(t["rows"][0]["status"] == "ok");
  CHECK(t["rows"][1]["status"] == "timeout");
  CHECK_THAT(t["rows"][1]["error"].get<std::string>(), Contains("1.5 s"));
  fs::remove_all(out);
  for (const std::string& f : {file, launch, ptx}) std::remove(f.c_str());
}

TEST_CASE("sweep: a resumed sweep runs only the points without a result, and refuses a changed grid") {
  const std::string file = write_file("resume.json", kGrid), out = temp_path("resume.out");
  REQUIRE(sweep(fmt::format("{} --out {} -q", file, out)).status == 0);
  const json before = read_json(out + "/results.json");
  // Point 4 lost (as if killed while it ran); point 1's record marked: a point run again would lose the mark.
  fs::remove(out + "/points/4.json");
  json p1 = read_json(out + "/points/1.json");
  p1["mark"] = true;
  std::ofstream(out + "/points/1.json") << p1.dump();
  const RunResult r = sweep(fmt::format("{} --out {}", file, out));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.err, Contains("8 finished before, 1 to run"));
  CHECK_THAT(r.err, Contains("[1/1] point 4 (sm.count=2 gmem.latency=2): ok"));
  CHECK(read_json(out + "/points/1.json")["mark"] == true);
  CHECK(read_json(out + "/results.json")["rows"] == before["rows"]);
  // The same folder with another grid: refused, nothing run.
  std::string changed = kGrid;
  changed.replace(changed.find("[2, 20, 200]"), 12, "[2, 30, 200]");
  const std::string file2 = write_file("resume2.json", changed);
  const RunResult r2 = sweep(fmt::format("{} --out {}", file2, out));
  CHECK(r2.status == 2);
  CHECK_THAT(r2.err, Contains("holds the results of another sweep") && Contains("point 2 was") &&
                         Contains("gmem.latency=20") && Contains("gmem.latency=30"));
  fs::remove_all(out);
  std::remove(file.c_str());
  std::remove(file2.c_str());
}

TEST_CASE("sweep: two shards merged give the table of one run") {
  const std::string file = write_file("shard.json", kGrid);
  const std::string whole = temp_path("whole.out"), s1 = temp_path("s1.out"), s2 = temp_path("s2.out"),
                    merged = temp_path("merged.out");
  REQUIRE(sweep(fmt::format("{} --out {} -q", file, whole)).status == 0);
  REQUIRE(sweep(fmt::format("{} --out {} --shard 1/2 -q", file, s1)).status == 0);
  // Shard 1 of 2 holds points 1, 3, 5, 7, 9.
  const json t1 = read_json(s1 + "/results.json");
  REQUIRE(t1["rows"].size() == 5);
  CHECK(t1["rows"][1]["point"] == 3);
  // A merge with a shard missing names the points.
  RunResult m = run_gpuvp(fmt::format("sweep merge {} {}", merged, s1));
  CHECK(m.status == 2);
  CHECK_THAT(m.err, Contains("4 of 9 points have no result") && Contains("2, 4, 6, 8"));
  fs::remove_all(merged);
  REQUIRE(sweep(fmt::format("{} --out {} --shard 2/2 -q", file, s2)).status == 0);
  m = run_gpuvp(fmt::format("sweep merge {} {} {}", merged, s1, s2));
  INFO(m.err);
  REQUIRE(m.status == 0);
  CHECK(slurp(merged + "/results.csv") == slurp(whole + "/results.csv"));
  CHECK(read_json(merged + "/points/2.stats.json")["kernel_cycles"] ==
        read_json(whole + "/points/2.stats.json")["kernel_cycles"]);
  for (const std::string& d : {whole, s1, s2, merged}) fs::remove_all(d);
  std::remove(file.c_str());
}

TEST_CASE("sweep: bad sweep files are refused before anything runs, naming the file and the key") {
  const std::string out = temp_path("bad.out");
  auto refused = [&](const std::string& text, const std::vector<std::string>& words) {
    const std::string file = write_file("bad.json", text);
    const RunResult r = sweep(fmt::format("{} --out {}", file, out));
    INFO(text << "\n" << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(file));
    for (const std::string& w : words) CHECK_THAT(r.err, Contains(w));
    CHECK(!fs::exists(out));  // nothing ran, nothing written
    std::remove(file.c_str());
  };
  const std::string head = R"({"preset": "flexgrip", "workload": "vectorAdd:small", )";
  refused(head + R"("axes": [{"key": "sm.cuont", "values": [1]}]})", {"point 1", "unknown configuration key 'sm.cuont'"});
  refused(head + R"("axes": [{"key": "sm.count", "values": [1, 99]}]})", {"point 2 (sm.count=99)", "sm.count"});
  refused(head + R"("axes": [{"key": "sm.count", "values": []}]})", {"axes[0]", "'sm.count' has no values"});
  refused(head + R"("axes": []})", {"axes", "the grid would be empty"});
  refused(head + R"("axes": [{"workload": ["vectorAdd", "nosuch"]}]})", {"point 2 (workload=nosuch)", "nosuch"});
  refused(head + R"("axes": [{"key": "sm.count", "values": [1]}], "colour": 1})", {"unknown key 'colour'"});
  refused(head + R"("axes": [{"zip": [{"key": "sm.count", "values": [1, 2]}, {"preset": ["tk1"]}]}]})",
          {"axes[0].zip[1]", "zipped axes have as many values each"});
  refused(head + R"("axes": [{"key": "sm.count", "values": [1]}], "metrics": ["sms[0"]})", {"metrics[0]", "sms[0"});
  // Names the statistics do not have (docs/statistics.md), at the top, in an SM, in a launch's issue.
  refused(head + R"("axes": [{"key": "sm.count", "values": [1]}], "metrics": ["nosuch.field"]})",
          {"metrics[0]", "'nosuch.field'", "no field 'nosuch' in the statistics"});
  refused(head + R"("axes": [{"key": "sm.count", "values": [1]}], "metrics": ["sms[0].blocks", "sms[0].wrap_insts"]})",
          {"metrics[1]", "no field 'wrap_insts' in sms[0]"});
  refused(head + R"("axes": [{"key": "sm.count", "values": [1]}], "metrics": [{"name": "x", "path": "launches[k].issue.stall_cycles.barier"}]})",
          {"metrics[0]", "no field 'barier' in launches[k].issue.stall_cycles"});
  refused(head + R"("axes": [{"key": "sm.count", "values": [1]}], "metrics": ["kernel_cycles[0]"]})",
          {"kernel_cycles is not an array"});
  // An output folder that cannot be created.
  const std::string file = write_file("ok.json", head + R"("axes": [{"key": "sm.count", "values": [1]}]})");
  const RunResult r = sweep(fmt::format("{} --out /proc/gpuvp-sweep", file));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("--out /proc/gpuvp-sweep"));
  std::remove(file.c_str());
}

TEST_CASE("sweep: the example sweep file checks whole, and its points equal the direct commands") {
  const std::string ex = std::string(GPUVP_SOURCE_DIR) + "/examples/sweeps/";
  // The transpose kernel transposes: out[x][y] = in[y][x] of a 64 x 64 iota, so out[0..2] = 0, 64, 128.
  const std::string s = temp_path("transpose_stats.json");
  const RunResult e = run_gpuvp(fmt::format("exec --preset tx2 --set gmem.bandwidth_gbps=7.3 --set sm.count=1 "
                                            "--launch-file {}transpose.json --print 3 --stats {}",
                                            ex, s));
  INFO(e.err);
  REQUIRE(e.status == 0);
  CHECK_THAT(e.out, Contains("buffer 0 (4096 x f32): 0 64 128 ...") && Contains("buffer 1 (4096 x f32): 0 1 2 ..."));
  const json direct_exec = read_json(s);
  std::remove(s.c_str());
  const json direct_run = run_stats("--preset tx2 --set gmem.bandwidth_gbps=7.3 --set sm.count=1 --workload matrixMul "
                                    "--launch square32");
  REQUIRE(direct_run["exit_status"] == 0);
  // What the user guide's reading of the example relies on ("Reading the example"): matrixMul:square32
  // is 32 x 32 in 16 x 16 tiles, 4 blocks, all on the one SM; fetch stalls are most of its scheduler
  // cycles; and lowering sysmem.latency by 210 cycles saves about one latency per fetch.
  const json& sm0 = direct_run["sms"][0];
  CHECK(sm0["blocks"] == 4);
  const json& issue = sm0["issue"];
  CHECK(issue["stall_cycles"]["fetch"].get<double>() >
        0.5 * issue["cycles"].get<double>() * issue["schedulers"].get<double>());
  const uint64_t fetches = sm0["fetches"].get<uint64_t>();
  CHECK(sm0["caches"]["icache"]["line_misses"] == fetches);  // every fetch a line the SM fetched itself
  CHECK(sm0["caches"]["icache"]["hits"] == 0);
  CHECK(direct_run["config"]["sysmem"]["latency"] == 233);
  const json fast = run_stats("--preset tx2 --set gmem.bandwidth_gbps=7.3 --set sm.count=1 --set sysmem.latency=23 "
                              "--workload matrixMul --launch square32");
  REQUIRE(fast["exit_status"] == 0);
  const double saved = direct_run["kernel_cycles"].get<double>() - fast["kernel_cycles"].get<double>();
  CHECK(saved == Approx(double(fetches) * (233 - 23)).epsilon(0.05));
  // With 4 SMs (one block each) every SM fetches the same lines itself.
  const json four = run_stats("--preset tx2 --set sm.count=4 --workload matrixMul --launch square32");
  REQUIRE(four["exit_status"] == 0);
  for (const json& sm : four["sms"]) {
    CHECK(sm["blocks"] == 1);
    CHECK(sm["fetches"] == fetches);
  }
  // Shards 1 and 25 of 48 are points 1 (matrixMul, 7.3 GB/s, 1 SM) and 25 (the transpose, the same): every
  // one of the 48 points is checked before those run.
  for (const int k : {1, 25}) {
    const std::string out = temp_path("example.out");
    const RunResult r = sweep(fmt::format("{}tx2_sm_bandwidth.json --shard {}/48 --out {} -q", ex, k, out));
    INFO(r.err);
    REQUIRE(r.status == 0);
    const json t = read_json(out + "/results.json");
    REQUIRE(t["rows"].size() == 1);
    CHECK(t["rows"][0]["point"] == k);
    CHECK(t["rows"][0]["kernel_cycles"] == (k == 1 ? direct_run : direct_exec)["kernel_cycles"]);
    fs::remove_all(out);
  }
}

TEST_CASE("sweep: an experiment file is a host program of a point, equal to the direct gpuvp experiment") {
  // One timer-spin kernel of 2 blocks of 64 threads spinning 2 us, once; beside it a launch file's point
  // is not needed: the file is recognised by its "benchmarks".
  const std::string exp = write_file("spin_exp.json", R"({"name": "spin", "max_iterations": 1, "benchmarks": [
    {"filename": "./bin/timer_spin.so", "thread_count": 64, "block_count": 2, "additional_info": "2000"}]})");
  const std::string file = write_file("exp_sweep.json", fmt::format(R"({{"preset": "tx2",
    "axes": [{{"workload": ["{}"]}}, {{"key": "sm.count", "values": [1, 2]}}],
    "metrics": ["launches[0].blocks", "sms[0].blocks"]}})", exp));
  const std::string out = temp_path("exp_sweep.out");
  fs::remove_all(out);
  const RunResult r = sweep(fmt::format("{} --out {} --jobs 2", file, out));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json t = read_json(out + "/results.json");
  REQUIRE(t["rows"].size() == 2);
  for (size_t k = 0; k < 2; ++k) {
    const json& row = t["rows"][k];
    INFO("point " << k + 1);
    CHECK(row["status"] == "ok");
    CHECK(row["launches[0].blocks"] == 2);
    CHECK(row["sms[0].blocks"] == (k == 0 ? 2 : 1));  // both blocks on one SM, or one on each
    CHECK(read_json(fmt::format("{}/points/{}.stats.json", out, k + 1))["command"] == "experiment");
    CHECK(fs::exists(fmt::format("{}/points/{}.experiment/timer_spin_0.json", out, k + 1)));
    // The direct command with the same settings gives the same kernel cycles.
    const std::string s = temp_path("exp_direct.json");
    const RunResult d = run_gpuvp(fmt::format("experiment {} --preset tx2 --set sm.count={} --out {} --stats {}", exp,
                                              k + 1, temp_path("exp_direct.out"), s));
    INFO(d.err);
    REQUIRE(d.status == 0);
    CHECK(row["kernel_cycles"] == read_json(s)["kernel_cycles"]);
  }
  // A block that does not fit the point's SMs is refused before anything runs, naming the point.
  const std::string big = write_file("big_exp.json", R"({"name": "big", "max_iterations": 1, "benchmarks": [
    {"filename": "./bin/timer_spin.so", "thread_count": 4096, "block_count": 1}]})");
  const std::string bad = write_file("exp_bad.json", fmt::format(R"({{"preset": "tx2", "workload": "{}",
    "axes": [{{"key": "sm.count", "values": [1]}}]}})", big));
  const std::string bad_out = temp_path("exp_bad.out");
  const RunResult b = sweep(fmt::format("{} --out {}", bad, bad_out));
  CHECK(b.status == 2);
  CHECK_THAT(b.err, Contains("point 1") && Contains("thread_count"));
  CHECK(!fs::exists(bad_out));
  fs::remove_all(out);
  for (const std::string& f : {exp, file, big, bad}) std::remove(f.c_str());
}
