// Experiment files (cuda_scheduling_examiner format): what the reader makes of a valid file, and
// `gpuvp experiment check`'s answers to bad ones: exit 2 naming the file and the field's JSON path.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <fstream>

#include "common/subprocess.h"
#include "platform/experiment_file.h"

using namespace gpuvp;
using Catch::Matchers::Contains;
using gpuvp::test::run_gpuvp;
using gpuvp::test::temp_path;
using nlohmann::json;

namespace {

const std::string kData = std::string(GPUVP_TEST_DATA) + "/experiment/";

std::string write_temp(const std::string& stem, const std::string& text) {
  const std::string path = temp_path(stem);
  std::ofstream(path) << text;
  return path;
}

// A valid experiment: benchmarks[0] a timer_spin, benchmarks[1] a multikernel.
json good() {
  return json::parse(R"({"name": "t", "benchmarks": [
      {"filename": "./bin/timer_spin.so", "thread_count": 256, "block_count": 4, "additional_info": "1000"},
      {"filename": "./bin/multikernel.so", "additional_info": "K1,100,1,64"}]})");
}

void check_dims(const rt::Dim3& d, uint32_t x, uint32_t y, uint32_t z) {
  CHECK(d.x == x);
  CHECK(d.y == y);
  CHECK(d.z == z);
}

}  // namespace

TEST_CASE("experiment file: both benchmark kinds are read into their values") {
  const Experiment e = load_experiment(kData + "both_kinds.json", Config::preset("tx2"));
  CHECK(e.name == "Both kinds");
  CHECK(e.max_iterations == 3);
  CHECK(e.max_time == 0.5);
  CHECK(e.base_result_directory == "./out");
  REQUIRE(e.benchmarks.size() == 3);

  const Benchmark& s = e.benchmarks[0];
  CHECK(s.kind == BenchmarkKind::TimerSpin);
  CHECK(s.filename == "./bin/timer_spin.so");
  CHECK(s.log_name == "spin.json");
  CHECK(s.label == "Spinner");
  check_dims(s.block, 32, 4, 1);
  check_dims(s.grid, 8, 2, 1);
  CHECK(s.data_size == 4096);
  CHECK(s.spin_ns == 250000);
  CHECK(s.kernels.empty());
  CHECK(s.release_time == 0.001);
  CHECK(s.stream_priority == -1);
  CHECK(s.max_iterations == 3);  // the experiment's
  CHECK(s.max_time == 0.5);

  const Benchmark& m = e.benchmarks[1];
  CHECK(m.kind == BenchmarkKind::Multikernel);
  CHECK(m.filename == "multikernel");
  CHECK(m.log_name == "multikernel_1.json");  // derived from the base name and the index
  CHECK(m.label.empty());
  check_dims(m.block, 64, 1, 1);
  check_dims(m.grid, 1, 1, 1);
  CHECK(m.data_size == 0);
  REQUIRE(m.kernels.size() == 2);
  CHECK(m.kernels[0].name == "K1");
  CHECK(m.kernels[0].spin_ns == 1000);
  CHECK(m.kernels[0].blocks == 2);
  CHECK(m.kernels[0].threads == 128);
  CHECK(m.kernels[1].name == "K2");  // spaces around items are not part of them
  CHECK(m.kernels[1].spin_ns == 16);  // 0x10
  CHECK(m.kernels[1].blocks == 1);
  CHECK(m.kernels[1].threads == 1024);
  CHECK(m.release_time == 0);
  CHECK(m.stream_priority == 0);
  CHECK(m.max_iterations == 7);  // its own
  CHECK(m.max_time == 2);

  const Benchmark& t = e.benchmarks[2];
  CHECK(t.kind == BenchmarkKind::TimerSpin);
  CHECK(t.log_name == "timer_spin_2.json");
  check_dims(t.block, 1024, 1, 1);
  check_dims(t.grid, 16, 1, 1);
  CHECK(t.spin_ns == 5000000);  // 5e6: an integral JSON number
}

TEST_CASE("experiment file: defaults of what a file leaves out") {
  json j = good();
  j["benchmarks"][0].erase("additional_info");
  const Experiment e = parse_experiment(j, Config::preset("tx2"), "defaults.json");
  CHECK(e.max_iterations == 0);
  CHECK(e.max_time == 0);
  CHECK(e.base_result_directory == "./results");
  CHECK(e.benchmarks[0].spin_ns == 10000000);  // the examiner's timer_spin: 10 ms
  CHECK(e.benchmarks[0].log_name == "timer_spin_0.json");
  CHECK(e.benchmarks[0].release_time == 0);
  CHECK(e.benchmarks[0].stream_priority == 0);
  check_dims(e.benchmarks[1].block, 1, 1, 1);
}

TEST_CASE("experiment cli: check prints one line per benchmark and exits 0") {
  auto r = run_gpuvp("experiment check " + kData + "both_kinds.json");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("experiment \"Both kinds\" on tx2: 3 benchmarks, max_iterations 3, max_time 0.5 s"));
  CHECK_THAT(r.out, Contains("[0] timer_spin \"Spinner\": release 0.001 s, priority -1 (high), grid 8x2 x block 32x4, "
                             "spin 250000 ns\n"));
  CHECK_THAT(r.out, Contains("[1] multikernel \"\": release 0 s, priority 0 (low), kernels \"K1\" (grid 2 x block 128, "
                             "1000 ns), \"K2\" (grid 1 x block 1024, 16 ns), max_iterations 7, max_time 2 s\n"));
  // The examples in experiments/ stay valid on the preset they are written for.
  const std::string examples = std::string(GPUVP_TEST_DATA) + "/../../experiments/";
  r = run_gpuvp("experiment check " + examples + "tx2_priorities.json");
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("[3] timer_spin \"high B\": release 0.0006 s, priority -1 (high), grid 4 x block 256"));
  r = run_gpuvp("experiment check " + examples + "tx2_partitions.json");
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("[1] multikernel \"app B\": release 0 s, priority -1 (high), kernels \"K1\" (grid 2 x block "
                             "1024, 500000 ns), \"K2\" (grid 4 x block 512, 500000 ns), on SM 1\n"));
  r = run_gpuvp("experiment check --preset tk1 " + examples + "tk1_multikernel.json");
  INFO(r.err);
  CHECK(r.status == 0);
}

TEST_CASE("experiment cli: every bad field exits 2 naming the file and the field") {
  struct Case {
    int bench;  // -1: the top level
    const char* patch;
    const char* expect;
  } cases[] = {
      {-1, R"({"name": null})", "name: missing (required"},
      {-1, R"({"name": 5})", "name: 5 is not a string"},
      {-1, R"({"max_iterations": -1})", "max_iterations: -1 is out of range"},
      {-1, R"({"max_iterations": 1.5})", "max_iterations: 1.5 is not an integer"},
      {-1, R"({"max_iterations": 18446744073709551615})", "max_iterations: 18446744073709551615 is out of range"},
      {-1, R"({"max_time": -0.5})", "max_time: -0.5 is out of range"},
      {-1, R"({"max_time": "1"})", "max_time: \"1\" is not a number of seconds"},
      {-1, R"({"base_result_directory": 3})", "base_result_directory: 3 is not a string"},
      {-1, R"({"benchmarks": []})", "benchmarks: [] is empty"},
      {-1, R"({"benchmarks": 5})", "benchmarks: 5 is not an array"},
      {-1, R"({"cuda_device": -1})", "cuda_device: -1 is out of range"},
      {-1, R"({"pin_cpus": 1})", "pin_cpus: 1 is not true or false"},
      {-1, R"({"cuda_devic": 0})", "top level: unknown key 'cuda_devic'"},
      {0, R"({"filename": null})", "benchmarks[0].filename: missing"},
      {0, R"({"filename": "./bin/mandelbrot.so"})",
       "benchmarks[0].filename: \"./bin/mandelbrot.so\" is an unknown benchmark 'mandelbrot'"},
      {0, R"({"log_name": ""})", "benchmarks[0].log_name: \"\" is empty"},
      {0, R"({"label": 7})", "benchmarks[0].label: 7 is not a string"},
      {0, R"({"thread_count": null})", "benchmarks[0].thread_count: missing"},
      {0, R"({"thread_count": 1.5})", "benchmarks[0].thread_count: 1.5 is not an integer"},
      {0, R"({"thread_count": 0})", "benchmarks[0].thread_count: 0 is out of range"},
      {0, R"({"thread_count": [32, 2, 2, 2]})", "benchmarks[0].thread_count: [32,2,2,2] is not 1 to 3 dimensions"},
      {0, R"({"thread_count": [32, -2]})", "benchmarks[0].thread_count[1]: -2 is out of range"},
      {0, R"({"thread_count": 2048})", "benchmarks[0].thread_count: 2048 is a block of 2048 threads: it does not fit an SM of tx2"},
      {0, R"({"thread_count": [64, 32]})", "benchmarks[0].thread_count: [64,32] is a block of 64x32 threads"},
      {0, R"({"block_count": null})", "benchmarks[0].block_count: missing"},
      {0, R"({"block_count": 65536})", "benchmarks[0].block_count: 65536 is out of range; expected an integer in [1, 65535]"},
      {0, R"({"block_count": [4, 0]})", "benchmarks[0].block_count[1]: 0 is out of range"},
      {0, R"({"data_size": -1})", "benchmarks[0].data_size: -1 is out of range"},
      {0, R"({"data_size": 1e30})", "benchmarks[0].data_size: 1e+30 is out of range"},
      {0, R"({"additional_info": "-5"})", "benchmarks[0].additional_info: \"-5\" is out of range"},
      {0, R"({"additional_info": "fast"})", "benchmarks[0].additional_info: \"fast\" is not an integer"},
      {0, R"({"additional_info": 2.5})", "benchmarks[0].additional_info: 2.5 is not an integer"},
      {0, R"({"release_time": -1})", "benchmarks[0].release_time: -1 is out of range"},
      {0, R"({"release_time": "0.5"})", "benchmarks[0].release_time: \"0.5\" is not a number of seconds"},
      {0, R"({"stream_priority": 1})", "benchmarks[0].stream_priority: 1 is out of range; expected -1 (high) or 0 (low)"},
      {0, R"({"stream_priority": -2})", "benchmarks[0].stream_priority: -2 is out of range"},
      {0, R"({"max_iterations": -3})", "benchmarks[0].max_iterations: -3 is out of range"},
      {0, R"({"max_time": -1})", "benchmarks[0].max_time: -1 is out of range"},
      {0, R"({"cpu_core": 1.5})", "benchmarks[0].cpu_core: 1.5 is not an integer"},
      {0, R"({"thred_count": 3})", "benchmarks[0]: unknown key 'thred_count'"},
      {0, R"({"data_size": 200000000})", "benchmarks[0].data_size: 200000000 needs 200000112 bytes of global memory"},
      {0, R"({"block_count": [65535, 65535, 65535]})", "benchmarks[0].block_count: [65535,65535,65535] needs"},
      {0, R"({"log_name": "../escape.json"})", "benchmarks[0].log_name: \"../escape.json\" is not a plain file name"},
      {1, R"({"log_name": "timer_spin_0.json"})", "benchmarks[1].log_name: \"timer_spin_0.json\" is benchmarks[0]'s log too"},
      {1, R"({"additional_info": null})", "benchmarks[1].additional_info: missing"},
      {1, R"({"additional_info": 5})", "benchmarks[1].additional_info: 5 is not a string"},
      {1, R"({"additional_info": "K1,100,1"})", "benchmarks[1].additional_info: \"K1,100,1\" has 3 items"},
      {1, R"({"additional_info": "K1,100,1,64,,5,1,64"})", "benchmarks[1].additional_info item 5 (name of kernel 2): \"\" is empty"},
      {1, R"({"additional_info": "K1,-100,1,64"})", "benchmarks[1].additional_info item 2 (ns of kernel 1): \"-100\" is out of range"},
      {1, R"({"additional_info": "K1,100,0,64"})", "benchmarks[1].additional_info item 3 (blocks of kernel 1): \"0\" is out of range"},
      {1, R"({"additional_info": "K1,100,1,64,K2,100,1,1.5"})",
       "benchmarks[1].additional_info item 8 (threads of kernel 2): \"1.5\" is not an integer"},
      {1, R"({"additional_info": "K1,100,1,64,K2,100,1,2048"})",
       "benchmarks[1].additional_info item 8 (threads of kernel 2): \"2048\" is a block of 2048 threads: it does not fit"},
      {1, R"({"thread_count": 0})", "benchmarks[1].thread_count: 0 is out of range"},
      {0, R"({"sm_partition": "0x3"})", "benchmarks[0].sm_partition: \"0x3\" is not a list of SM ids"},
      {0, R"({"sm_partition": []})", "benchmarks[0].sm_partition: [] is empty; expected at least one SM id"},
      {0, R"({"sm_partition": [2]})",
       "benchmarks[0].sm_partition[0]: 2 is out of range; expected an SM id in [0, 1] (tx2 has sm.count 2)"},
      {1, R"({"sm_partition": [1, -1]})", "benchmarks[1].sm_partition[1]: -1 is out of range"},
      {1, R"({"sm_partition": [0.5]})", "benchmarks[1].sm_partition[0]: 0.5 is not an integer"},
      {1, R"({"sm_partition": [1, 1]})", "benchmarks[1].sm_partition[1]: 1 is named twice"},
  };
  for (auto& c : cases) {
    json j = good();
    (c.bench < 0 ? j : j["benchmarks"][size_t(c.bench)]).merge_patch(json::parse(c.patch));
    const std::string f = write_temp("experiment_bad.json", j.dump(1));
    auto r = run_gpuvp("experiment check " + f);
    INFO(c.patch << "\n" << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(f + ": " + c.expect));
    CHECK(r.err.find('\n') == r.err.size() - 1);  // one line
    std::remove(f.c_str());
  }
  json j = good();
  j["benchmarks"].push_back("x");
  const std::string f = write_temp("experiment_notobj.json", j.dump());
  CHECK_THAT(run_gpuvp("experiment check " + f).err, Contains(f + ": benchmarks[2]: \"x\" is not an object"));
  std::remove(f.c_str());
}

TEST_CASE("experiment cli: a block must fit an SM of the chosen preset and settings") {
  const std::string f = write_temp("experiment_fit.json", good().dump());
  CHECK(run_gpuvp("experiment check --preset flexgrip " + f).status == 0);  // 256 threads
  auto r = run_gpuvp("experiment check --preset flexgrip --set sm.max_threads_per_block=128 " + f);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(f + ": benchmarks[0].thread_count: 256 is a block of 256 threads: it does not fit an SM of "
                             "flexgrip (sm.max_threads_per_block 128, sm.max_threads 1024)"));
  // One SM with fewer threads is enough: a block must fit every SM.
  r = run_gpuvp("experiment check --preset tx2 --set gpu.sm1.max_threads_per_block=128 " + f);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("benchmarks[0].thread_count: 256 is a block of 256 threads"));
  r = run_gpuvp("experiment check --preset flexgrip " + kData + "both_kinds.json");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("benchmarks[1].additional_info item 8 (threads of kernel 2): \"1024\" is a block of 1024 "
                             "threads: it does not fit an SM of flexgrip"));
  std::remove(f.c_str());
}

TEST_CASE("experiment cli: sm_partition is checked against the configuration's SMs and printed") {
  json j = good();
  j["benchmarks"][0]["sm_partition"] = {3, 1};
  j["benchmarks"][1]["sm_partition"] = {0};
  const std::string f = write_temp("experiment_partition.json", j.dump());
  auto r = run_gpuvp("experiment check --set sm.count=4 " + f);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("spin 1000 ns, on SMs 1,3\n"));
  CHECK_THAT(r.out, Contains("64, 100 ns), on SM 0\n"));
  r = run_gpuvp("experiment check " + f);  // tx2's 2 SMs
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(f + ": benchmarks[0].sm_partition[0]: 3 is out of range; expected an SM id in [0, 1]"));
  // The batch mode has no SM sets to confine a kernel to.
  r = run_gpuvp("experiment check --preset flexgrip --set sm.count=4 " + f);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(f + ": benchmarks[0].sm_partition: [3,1] needs SM sets, which only the concurrent "
                             "dispatcher has (scheduler.kind concurrent; flexgrip has batch)"));
  std::remove(f.c_str());
}

TEST_CASE("experiment cli: malformed JSON is refused with the line and column") {
  const std::string f = write_temp("experiment_syntax.json", "{\"name\": \"t\",\n \"benchmarks\": [\n  {\"filename\": }]}");
  auto r = run_gpuvp("experiment check " + f);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(f + ":3:16: not valid JSON: syntax error while parsing value"));
  // A number beyond a double has no position of its own in nlohmann's message: its first occurrence.
  const std::string big = write_temp("experiment_big.json", "{\"name\": \"t\",\n  \"max_time\": 1e400}");
  r = run_gpuvp("experiment check " + big);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(big + ":2:15: not valid JSON: number overflow parsing '1e400'"));
  CHECK_THAT(run_gpuvp("experiment check " + temp_path("absent.json")).err, Contains("absent.json: cannot open: No such file"));
  std::remove(f.c_str());
  std::remove(big.c_str());
}

TEST_CASE("experiment cli: a file nested 100,000 deep is refused within a second") {
  const std::string f = write_temp("experiment_deep.json", R"({"name": "t", "benchmarks": )" + std::string(100000, '[') +
                                                               std::string(100000, ']') + "}");
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_gpuvp("experiment check " + f);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(f + ":1:92: nested deeper than 64 levels"));
  CHECK(s < 1.0);
  std::remove(f.c_str());
}

// --- gpuvp experiment FILE: running it ---------------------------------------------------------------

namespace {
const std::string kExamples = std::string(GPUVP_TEST_DATA) + "/../../experiments/";

json read_json(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  return json::parse(in);
}
}  // namespace

// The examples' logs in the examiner's shape: the header fields, `times` with its empty first entry,
// and per kernel run the launch, kernel, block and copy times and the SM ids. The values are the rules'
// (tx2: 2 SMs of 2048 threads): low A fills both SMs (8 x 512 threads) for its 1 ms spin, so every
// other kernel's blocks start only when low A's end, high priority first.
TEST_CASE("experiment cli: the tx2 example runs and writes examiner-shaped logs") {
  const std::string out = temp_path("exp_run_out");
  auto r = run_gpuvp("experiment " + kExamples + "tx2_priorities.json --out " + out);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("simulated in"));
  std::map<std::string, json> logs;
  for (const char* n : {"low_a", "low_b", "high_a", "high_b"}) logs[n] = read_json(out + "/" + n + ".json");
  for (auto& [name, log] : logs) {
    INFO(name);
    for (const char* key : {"scenario_name", "benchmark_name", "label", "thread_count", "block_count",
                            "max_resident_threads", "data_size", "release_time", "times"})
      CHECK(log.contains(key));
    CHECK(log["benchmark_name"] == "timer_spin");
    CHECK(log["max_resident_threads"] == 4096);
    REQUIRE(log["times"].size() == 2);
    CHECK(log["times"][0] == json::object());
    const json& t = log["times"][1];
    for (const char* key : {"kernel_launch_times", "kernel_times", "block_times", "block_smids", "copy_in_times",
                            "copy_out_times", "execute_times", "cpu_times"})
      CHECK(t.contains(key));
    CHECK(t["block_times"].size() == 2 * t["block_smids"].size());
    CHECK(t["block_smids"].size() == log["block_count"].get<size_t>());
    // The launch call takes the driver's 20 us after the release.
    CHECK(t["kernel_launch_times"][1].get<double>() - log["release_time"].get<double>() == Approx(20e-6).margin(1e-7));
  }
  const json& a = logs["low_a"]["times"][1];
  const double a_end = a["kernel_times"][1].get<double>();
  CHECK(a_end == Approx(20e-6 + 1e-3).margin(5e-6));  // released at 0, launched by 20 us, 1 ms spin
  for (const char* later : {"low_b", "high_a", "high_b"})
    CHECK(logs[later]["times"][1]["kernel_times"][0].get<double>() >= a_end);
  // A2: both high kernels start before low B's last blocks (which wait for the high ones to finish).
  const double high_end = std::max(logs["high_a"]["times"][1]["kernel_times"][1].get<double>(),
                                   logs["high_b"]["times"][1]["kernel_times"][1].get<double>());
  CHECK(high_end == Approx(a_end + 0.5e-3).margin(10e-6));
  CHECK(logs["low_b"]["times"][1]["kernel_times"][1].get<double>() == Approx(high_end + 1e-3).margin(10e-6));
  // The plotting script written against the examiner's format loads them.
  auto p = gpuvp::test::run_cmd("/usr/bin/python3 " + std::string(GPUVP_SOURCE_DIR) + "/scripts/plot_experiment.py " +
                                    out + " -o " + out + "/blocks.png");
  INFO(p.out << p.err);
  CHECK(p.status == 0);
  CHECK_THAT(p.out, Contains("24 blocks on 2 SMs from 4 benchmarks"));
}

TEST_CASE("experiment cli: a multikernel stream runs its kernels in order") {
  const std::string out = temp_path("exp_multi_out");
  auto r = run_gpuvp("experiment --preset tk1 " + kExamples + "tk1_multikernel.json --out " + out);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  for (const auto& entry : std::filesystem::directory_iterator(out)) {
    const json log = read_json(entry.path().string());
    if (log["benchmark_name"] != "multikernel") continue;
    double prev_end = 0;
    for (size_t i = 1; i < log["times"].size(); ++i) {  // one stream: each kernel after the previous one
      const json& t = log["times"][i];
      CHECK(t["kernel_times"][0].get<double>() >= prev_end);
      prev_end = t["kernel_times"][1].get<double>();
      for (const auto& sm : t["block_smids"]) CHECK(sm == 0);  // tk1: one SM
    }
  }
}

// Two applications side by side on disjoint partitions of a 4-SM tx2 (2048 threads per SM: two blocks of
// 1024 at a time): "one" has 8 blocks of 1 ms on SM 0, 4 waves, about 4 ms; "two" the same on SMs 1-2,
// 2 waves, about 2 ms, so one's kernel takes twice two's; "multi" runs both its kernels on SM 3.
TEST_CASE("experiment cli: benchmarks on SM partitions run only on their SMs, side by side") {
  const json e = json::parse(R"({"name": "partitions", "max_iterations": 1, "benchmarks": [
      {"filename": "./bin/timer_spin.so", "log_name": "one.json", "thread_count": 1024, "block_count": 8,
       "additional_info": "1000000", "sm_partition": [0]},
      {"filename": "./bin/timer_spin.so", "log_name": "two.json", "thread_count": 1024, "block_count": 8,
       "additional_info": "1000000", "sm_partition": [2, 1]},
      {"filename": "./bin/multikernel.so", "log_name": "multi.json", "sm_partition": [3],
       "additional_info": "K1,100000,4,256,K2,100000,4,256"}]})");
  const std::string f = write_temp("experiment_sides.json", e.dump()), out = temp_path("exp_sides_out");
  auto r = run_gpuvp("experiment " + f + " --set sm.count=4 --out " + out);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const std::map<std::string, std::set<unsigned>> allowed{{"one", {0}}, {"two", {1, 2}}, {"multi", {3}}};
  std::map<std::string, std::pair<double, double>> span;
  for (auto& [name, sms] : allowed) {
    const json log = read_json(out + "/" + name + ".json");
    REQUIRE(log["times"].size() >= 2);
    for (size_t i = 1; i < log["times"].size(); ++i)
      for (const auto& sm : log["times"][i]["block_smids"]) CHECK(sms.count(sm.get<unsigned>()) == 1);
    span[name] = {log["times"][1]["kernel_times"][0].get<double>(), log["times"][1]["kernel_times"][1].get<double>()};
  }
  const double one = span["one"].second - span["one"].first, two = span["two"].second - span["two"].first;
  CHECK(one >= 4e-3);
  CHECK(two >= 2e-3);
  CHECK(one / two == Approx(2).epsilon(0.05));
  CHECK(span["two"].first < span["one"].second);  // side by side, not one after the other
  std::remove(f.c_str());
}

TEST_CASE("experiment cli: bad files exit 2 before anything runs, and so does an endless experiment") {
  json j = good();
  j["benchmarks"][0]["filename"] = "./bin/mandelbrot.so";
  std::string f = write_temp("experiment_run_bad.json", j.dump());
  auto r = run_gpuvp("experiment " + f);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(f + ": benchmarks[0].filename"));
  j = good();  // no max_iterations and no max_time: the examiner would run it until killed
  f = write_temp("experiment_run_endless.json", j.dump());
  r = run_gpuvp("experiment " + f);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("benchmarks[0]: max_iterations and max_time are both unlimited"));
  std::remove(f.c_str());
}

// Past 2^53 ps of simulated time (2.5 hours) the dispatcher's edges used to be a picosecond short, and it
// spun for ever at one instant.
TEST_CASE("experiment cli: a benchmark released after hours of simulated time runs") {
  json j = good();
  j["max_iterations"] = 1;
  j["benchmarks"][1]["release_time"] = 9900;
  const std::string f = write_temp("experiment_far.json", j.dump());
  auto r = run_gpuvp("experiment " + f + " --out " + temp_path("exp_far_out"));
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("9900.0"));
  std::remove(f.c_str());
}

TEST_CASE("experiment cli: a log name with a NUL or control character, or longer than 255 bytes, is refused") {
  struct Case {
    std::string name, expect;
  } cases[] = {
      {std::string("x\0a", 3), "holds a NUL or control character"},  // it wrote x, as "x\0b" did
      {"x\ty", "holds a NUL or control character"},
      {std::string(256, 'n'), "is 256 bytes long: a file name has at most 255"},
  };
  for (auto& c : cases) {
    json j = good();
    j["benchmarks"][0]["log_name"] = c.name;
    const std::string f = write_temp("experiment_logname.json", j.dump());
    auto r = run_gpuvp("experiment check " + f);
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Contains(f + ": benchmarks[0].log_name: ") && Contains(c.expect));
    std::remove(f.c_str());
  }
  json j = good();
  j["benchmarks"][0]["log_name"] = std::string(255, 'n');
  const std::string f = write_temp("experiment_logname.json", j.dump());
  CHECK(run_gpuvp("experiment check " + f).status == 0);
  std::remove(f.c_str());
}

TEST_CASE("experiment cli: outputs are checked before anything is simulated") {
  namespace fs = std::filesystem;
  json j = good();
  j["max_iterations"] = 1;
  j["benchmarks"][0]["log_name"] = "spin.json";
  const std::string f = write_temp("experiment_outs.json", j.dump());
  // --out is a file: refused at once, nothing simulated.
  const std::string file_out = write_temp("experiment_outs_file", "x");
  auto r = run_gpuvp("experiment " + f + " --out " + file_out);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(f + ": --out " + file_out + ": "));
  CHECK(r.out.empty());
  // A log's name is a directory there: refused naming the benchmark, nothing simulated or left behind.
  const std::string dir = temp_path("experiment_outs_dir");
  fs::remove_all(dir);
  fs::create_directories(dir + "/spin.json");
  r = run_gpuvp("experiment " + f + " --out " + dir);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains(f + ": benchmarks[0].log_name: " + dir + "/spin.json is a directory"));
  CHECK(r.out.empty());
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  // Without it the run writes both logs and nothing else (each written beside its name, then renamed).
  fs::remove_all(dir + "/spin.json");
  r = run_gpuvp("experiment " + f + " --out " + dir);
  INFO(r.err);
  CHECK(r.status == 0);
  std::set<std::string> names;
  for (auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  CHECK(names == std::set<std::string>{"spin.json", "multikernel_1.json"});
  fs::remove_all(dir);
  std::remove(file_out.c_str());
  std::remove(f.c_str());
}

TEST_CASE("experiment cli: an experiment of simulated years stops at the host-time limit") {
  // Three iterations of 4 blocks spinning 10^6 s each: its simulated-time estimate (2 x 3 x 4 x 10^6 s,
  // 2.4 x 10^7 s) is beyond what SystemC can hold (2^64 ps, 1.8 x 10^7 s): no simulated bound, and
  // sim.host_timeout_s stops it, saying so. Its logs are small: a few records.
  json j = good();
  j["max_iterations"] = 3;
  j["benchmarks"].erase(1);
  j["benchmarks"][0]["additional_info"] = "1000000000000000";
  const std::string f = write_temp("experiment_endless.json", j.dump());
  const std::string out = temp_path("experiment_endless_out");
  auto r = run_gpuvp("experiment " + f + " --out " + out + " --set sim.host_timeout_s=0.3");
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Contains("timeout: the host-time limit") && Contains("sim.host_timeout_s"));
  std::filesystem::remove_all(out);
  std::remove(f.c_str());
}

TEST_CASE("experiment cli: an experiment whose logs could not fit in memory is refused before it runs") {
  // tx2_priorities with a billion iterations of each benchmark: its first benchmark alone logs 8 blocks
  // a kernel run, about 400 + 48 x 8 bytes a run, 784 GB in all: far past the 1 GiB kept in memory.
  nlohmann::json e = nlohmann::json::parse(gpuvp::test::slurp(std::string(GPUVP_SOURCE_DIR) +
                                                              "/experiments/tx2_priorities.json"));
  e["max_iterations"] = 1000000000;
  const std::string f = gpuvp::test::temp_path("huge_experiment.json");
  std::ofstream(f) << e.dump();
  for (const std::string& cmd : {"experiment check " + f, "experiment " + f + " --out " + gpuvp::test::temp_path("o")}) {
    auto r = gpuvp::test::run_gpuvp(cmd);
    INFO(cmd);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Matchers::Contains("benchmarks[0]") && Catch::Matchers::Contains("could log about 784 GB"));
  }
  std::remove(f.c_str());
}
