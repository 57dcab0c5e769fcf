// AVF per kernel and per instruction class (docs/campaigns.md, "Per kernel and per instruction class"):
// the launch a run is counted under is the one whose execution window holds the fault's instant, taken
// here from the statistics of a plain `gpuvp run` of the same program (not from the campaign); the class
// of an instruction-output fault is the class of the instruction read off the hand-written kernel.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "common/subprocess.h"
#include "faultinj/export_csv.h"
#include "faultinj/temp_dir.h"

using namespace gpuvp;
using Catch::Matchers::Contains;
using gpuvp::fi::test::TempDir;
using gpuvp::fi::test::write_file;

namespace {

struct Window {
  std::string kernel;
  uint64_t start = 0, end = 0;
};

// The kernel windows of bfs "full" (bfsStep, bfsUpdate, bfsStep, ...: one pair a BFS level) on one
// flexgrip SM, from the statistics of an ordinary run.
std::vector<Window> bfs_windows(const TempDir& d) {
  const auto r = test::run_gpuvp(fmt::format(
      "run --preset flexgrip --set sm.count=1 --workload bfs --launch full --seed 1 --stats {}", d("stats.json")));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto stats = nlohmann::json::parse(fi::test::slurp_file(d("stats.json")));
  std::vector<Window> w;
  for (const auto& l : stats.at("launches"))
    w.push_back({l.at("kernel"), l.at("start_ps"), l.at("end_ps")});
  return w;
}

std::string bfs_campaign(const std::string& how) {
  return fmt::format(R"({{
  "name": "bfs levels",
  "platform": {{"preset": "flexgrip", "set": {{"sm.count": 1}}}},
  "workload": {{"name": "bfs", "launch": "full", "seed": 1}},
  {},
  "workers": 2
}})",
                     how);
}

fi::test::ExportTable run_table(const TempDir& d, const std::string& text) {
  return fi::test::run_campaign_table(d("c.json"), d("c.db"), text);
}

// The label the report gives the launch holding `ps`, "" for none.
std::string expected_kernel(const std::vector<Window>& w, uint64_t ps) {
  for (size_t k = 0; k < w.size(); ++k)
    if (w[k].start <= ps && ps <= w[k].end) return fmt::format("launch {} ({})", k, w[k].kernel);
  return "";
}

// A group table of `gpuvp report DB` (the one titled `title`): runs per row name.
std::map<std::string, uint64_t> report_runs(const std::string& db, const std::string& title) {
  const auto r = test::run_gpuvp("report " + db);
  INFO(r.err);
  REQUIRE(r.status == 0);
  const size_t at = r.out.find(title);
  REQUIRE(at != std::string::npos);
  std::map<std::string, uint64_t> runs;
  std::istringstream in(r.out.substr(at));
  std::string line;
  std::getline(in, line);  // title
  std::getline(in, line);  // column heads
  while (std::getline(in, line) && !line.empty()) {
    // "  launch 1 (bfsUpdate)    3 ...": the name runs up to the run count, column 38.
    const std::string name = line.substr(2, 36);
    runs[name.substr(0, name.find_last_not_of(' ') + 1)] = std::stoull(line.substr(39, 6));
  }
  return runs;
}

std::map<std::string, uint64_t> report_kernel_runs(const std::string& db) {
  return report_runs(db, "Per kernel (the launch running at the fault's instant)");
}

}  // namespace

TEST_CASE("per-kernel AVF: a run counts under the launch running at its fault's instant") {
  TempDir d("kernel_avf");
  const std::vector<Window> w = bfs_windows(d);
  REQUIRE(w.size() >= 4);
  REQUIRE(w[0].kernel == "bfsStep");
  REQUIRE(w[1].kernel == "bfsUpdate");
  REQUIRE(w[0].end < w[1].start);  // the host waits and launches again: a gap between launches

  SECTION("listed instants: inside launch 0, in the gap, inside launches 1 and 2") {
    const std::vector<uint64_t> at = {(w[0].start + w[0].end) / 2, (w[0].end + w[1].start) / 2,
                                      (w[1].start + w[1].end) / 2, (w[2].start + w[2].end) / 2};
    std::string faults;
    for (uint64_t t : at)
      faults += fmt::format(R"({}{{"target": "gpu.sm0.regs", "idx": 0, "bit": 0, "time_ps": {}}})",
                            faults.empty() ? "" : ", ", t);
    const auto t = run_table(d, bfs_campaign(R"("faults": [)" + faults + "]"));
    REQUIRE(t.rows.size() == 4);
    CHECK(t.rows[0].at("kernel") == "launch 0 (bfsStep)");
    CHECK(t.rows[1].at("kernel") == "");
    CHECK(t.rows[2].at("kernel") == "launch 1 (bfsUpdate)");
    CHECK(t.rows[3].at("kernel") == "launch 2 (bfsStep)");
    for (const auto& row : t.rows) CHECK(row.at("inst_class") == "");  // register faults: no class
    const auto runs = report_kernel_runs(d("c.db"));
    CHECK(runs == std::map<std::string, uint64_t>{{"launch 0 (bfsStep)", 1},
                                                  {"launch 1 (bfsUpdate)", 1},
                                                  {"launch 2 (bfsStep)", 1},
                                                  {"(none: between launches, rate mode)", 1}});
  }

  SECTION("drawn instants over the first four launches: the split the windows give") {
    const uint64_t from_ns = w[0].start / 1000, to_ns = w[3].end / 1000;
    const auto t = run_table(d, bfs_campaign(fmt::format(R"("targets": ["gpu.sm0.regs"], "size": {{"count": 40}},
      "window": {{"from_ns": {}, "to_ns": {}}}, "seed": 5)",
                                                         from_ns, to_ns)));
    REQUIRE(t.rows.size() == 40);
    std::map<std::string, uint64_t> split;
    for (const auto& row : t.rows) {
      const std::string k = expected_kernel(w, std::stoull(row.at("time_ps")));
      INFO(row.at("time_ps"));
      CHECK(row.at("kernel") == k);
      ++split[k.empty() ? "(none: between launches, rate mode)" : k];
    }
    CHECK(split.size() >= 4);  // the four launches are long against 40 draws: each gets some
    CHECK(report_kernel_runs(d("c.db")) == split);
    // The HTML report and the JSON export carry the same grouping.
    REQUIRE(test::run_gpuvp(fmt::format("report {} --html {}", d("c.db"), d("r.html"))).status == 0);
    CHECK_THAT(fi::test::slurp_file(d("r.html")), Contains("Per kernel (the launch running at the fault"));
    const auto j = test::run_gpuvp(fmt::format("campaign export {} --json -", d("c.db")));
    REQUIRE(j.status == 0);
    const auto rows = nlohmann::json::parse(j.out);
    REQUIRE(rows.size() == 40);
    for (size_t i = 0; i < rows.size(); ++i) CHECK(rows[i].at("kernel") == t.rows[i].at("kernel"));
  }
}

TEST_CASE("per-class AVF: an instruction-output fault counts under its instruction's class") {
  TempDir d("class_avf");
  // tests/data/ptx/inst_output.ptx (its order of instructions is worked out in inst_output_test.cc):
  // G_LD #1 ld.param (param), G_LD #4 ld.global (global), G_OTHERS #5 add.s32 (int), G_FP32 #2 add.f32 (fp32).
  auto io = [](const std::string& group, int n) {
    return fmt::format(R"({{"target": "gpu.sm0.inst_output.{}", "event": "inst_output", "count": {}, "idx": 0,
                           "bit": 0, "model": "bit_flip"}})",
                       group, n);
  };
  const std::string text = fmt::format(R"({{
  "name": "classes",
  "platform": {{"preset": "flexgrip", "set": {{"sm.count": 1}}}},
  "exec": {{"ptx": "{}/ptx/inst_output.ptx", "kernel": "iokernel", "grid": [1], "block": [32],
           "args": [{{"buffer": {{"type": "u32", "count": 32, "init": "iota"}}}},
                    {{"buffer": {{"type": "u32", "count": 32}}}},
                    {{"buffer": {{"type": "u32", "count": 32}}}}]}},
  "faults": [{}, {}, {}, {}, {}],
  "workers": 2
}})",
                                       GPUVP_TEST_DATA, io("G_LD", 1), io("G_LD", 4), io("G_OTHERS", 5),
                                       io("G_FP32", 2), io("G_FP32", 3));
  const auto t = run_table(d, text);
  REQUIRE(t.rows.size() == 5);
  const std::vector<std::string> cls = {"param", "global", "int", "fp32", "fp32"};
  for (size_t i = 0; i < cls.size(); ++i) {
    INFO(i);
    CHECK(t.rows[i].at("inst_class") == cls[i]);
    CHECK(t.rows[i].at("kernel") == "launch 0 (iokernel)");
  }
  CHECK(report_runs(d("c.db"), "Per instruction class (instruction-output faults") ==
        std::map<std::string, uint64_t>{{"fp32", 2}, {"global", 1}, {"int", 1}, {"param", 1}});
  CHECK(report_kernel_runs(d("c.db")) == std::map<std::string, uint64_t>{{"launch 0 (iokernel)", 5}});
}
