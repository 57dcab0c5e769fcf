// Deadline-aware scheduling (docs/deadline.md) on the tx2 platform with timer-spin kernels: the
// worked FIFO example, hand-worked decisions of the split technique, and rule checks on seeded random
// sets. tx2: 2 SMs of 2048 threads, so blocks of 1024 threads run 2 per SM (a wave of 4 on the GPU);
// a launch reaches the queues 20 µs after its call (host.launch_latency_ns).
//
// Tolerance: a block holds its slot a few µs beyond its spin (its code fetches and the loads and stores
// around %globaltimer: docs/concurrent-kernels.md, tests/platform/integration/concurrent_rules_test.cc),
// so an instant after d blocks chained one after another is checked in [expected, expected + kSlotUs x d].
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "platform/deadline_run.h"

using namespace gpuvp;
using namespace gpuvp::deadline;

namespace {

constexpr double kSlotUs = 4.0;
constexpr double kLaunchUs = 20.0;

nlohmann::json kernel(int blocks, int threads, double spin_us) {
  return {{"blocks", blocks}, {"threads", threads}, {"spin_us", spin_us}};
}

nlohmann::json app(const std::string& name, const char* prio, double release_us, double deadline_us,
                   std::vector<nlohmann::json> kernels) {
  return {{"name", name}, {"priority", prio}, {"release_us", release_us}, {"deadline_us", deadline_us},
          {"kernels", kernels}};
}

std::vector<PolicyResult> run(const nlohmann::json& j, const std::string& preset = "tx2") {
  const Config cfg = Config::preset(preset);
  AppSet set = parse_apps(j, cfg, "test");
  return run_set(cfg, set);
}

double us(uint64_t ns) { return double(ns) / 1000.0; }

// The error parse_apps gives for `j` (read as apps.json), or "accepted".
std::string refusal(const nlohmann::json& j, const Config& cfg) {
  try {
    parse_apps(j, cfg, "apps.json");
  } catch (const ConfigError& e) {
    return std::string(e.what());
  }
  return std::string("accepted");
}

void check_at(double got_us, double expected_us, int depth) {
  INFO("expected " << expected_us << " us (+" << kSlotUs * depth << "), got " << got_us);
  CHECK(got_us >= expected_us - 0.01);
  CHECK(got_us <= expected_us + kSlotUs * depth);
}

// Every block after its application's release, of a range its launch asked for, on the SMs its
// application's set held between the launch call and the block's start; every block of every kernel once.
void check_rules(const AppSet& set, const PolicyResult& r) {
  INFO("policy " << r.policy);
  std::vector<std::vector<std::vector<int>>> runs(set.apps.size());
  for (size_t a = 0; a < set.apps.size(); ++a)
    for (const Kernel& k : set.apps[a].kernels) runs[a].emplace_back(k.blocks, 0);
  for (const BlockRun& b : r.blocks) {
    const auto l = std::find_if(r.launches.begin(), r.launches.end(), [&](const LaunchRun& x) { return x.launch == b.launch; });
    REQUIRE(l != r.launches.end());
    INFO("application " << b.app << " kernel " << b.kernel << " block " << b.block << " on SM " << b.sm << " at " << b.start_ns);
    CHECK(b.start_ns >= set.apps[b.app].release_ns);
    CHECK(b.block >= l->first);
    CHECK(b.block < l->last);
    CHECK((allowed_sms(r, l->set, l->call_ns, b.start_ns) >> b.sm & 1) == 1);
    ++runs[b.app][b.kernel][b.block];
  }
  for (size_t a = 0; a < set.apps.size(); ++a)
    for (auto& k : runs[a]) CHECK(std::all_of(k.begin(), k.end(), [](int n) { return n == 1; }));
}

}  // namespace

// The worked example, FIFO, all SMs per kernel (4 blocks of 1024 threads: one wave on both SMs).
// B (medium) released 1000 runs 2000 µs, deadline 3500; C (low) released 2000, 2000 µs, deadline 6500;
// A (high) released 2500, 1500 µs, deadline 4200. Each launch reaches the queue 20 µs after its release;
// C and A wait in the one stream: B 1020-3020, C 3020-5020, A 5020-6520 (1, 2 and 3 blocks chained):
// A misses its deadline by 2320 µs though it has the highest priority.
TEST_CASE("deadline: the worked FIFO example to the microsecond") {
  nlohmann::json j = {{"policies", {"fifo"}},
                      {"applications",
                       {app("B", "medium", 1000, 2500, {kernel(4, 1024, 2000)}),
                        app("C", "low", 2000, 4500, {kernel(4, 1024, 2000)}),
                        app("A", "high", 2500, 1700, {kernel(4, 1024, 1500)})}}};
  const auto r = run(j);
  REQUIRE(r.size() == 1);
  const auto& a = r[0].apps;
  check_at(us(a[0].completion_ns), 1000 + kLaunchUs + 2000, 1);
  check_at(us(a[1].completion_ns), 1000 + kLaunchUs + 4000, 2);
  check_at(us(a[2].completion_ns), 1000 + kLaunchUs + 5500, 3);
  CHECK(a[0].met);
  CHECK(a[1].met);
  CHECK_FALSE(a[2].met);
  check_at(us(a[2].lateness_ns), 6520 - 4200, 3);
  CHECK(r[0].met[0] == 0);
  CHECK(r[0].met_total() == 2);
}

// The same set under the split technique: A (high) arrives at 2500 while B runs its one wave (a wave
// of 4 blocks is all of B, so B is one sub-kernel) and C waits. At 2500 the list is A, B, C; A needs
// both SMs (1500 µs on 2 SMs, 3000 on 1, with 1700 µs left); B (2000 µs, 1000 left, finishing at
// 3020 on 2 SMs) is short, C gets nothing. A's blocks wait for B's to end (never preempted): A runs
// 3020-4520, C after it. A's deadline (4200) is still missed, by 320 µs instead of 2320; C runs last.
TEST_CASE("deadline: the worked example under the split technique: A goes before C, B is not preempted") {
  nlohmann::json j = {{"policies", {"split"}},
                      {"applications",
                       {app("B", "medium", 1000, 2500, {kernel(4, 1024, 2000)}),
                        app("C", "low", 2000, 4500, {kernel(4, 1024, 2000)}),
                        app("A", "high", 2500, 1700, {kernel(4, 1024, 1500)})}}};
  const auto r = run(j);
  const auto& a = r[0].apps;
  check_at(us(a[0].completion_ns), 1000 + kLaunchUs + 2000, 1);
  check_at(us(a[2].completion_ns), 1000 + kLaunchUs + 3500, 2);
  CHECK(a[1].completion_ns > a[2].completion_ns);
  for (const BlockRun& b : r[0].blocks)
    if (b.app == 2) CHECK(us(b.start_ns) >= 3020);  // after B's blocks, not instead of them
}

namespace {
// M (medium, 16 blocks of 100 µs, deadline 500) released at 0, H (high, 4 blocks of 100 µs, deadline
// 300) at 150, under split.
nlohmann::json medium_then_high() {
  return {{"policies", {"split"}},
          {"applications",
           {app("M", "medium", 0, 500, {kernel(16, 1024, 100)}), app("H", "high", 150, 300, {kernel(4, 1024, 100)})}}};
}
}  // namespace

// A high-priority arrival takes SMs from a running medium application at its next sub-kernel boundary.
// M (medium, 16 blocks of 100 µs, deadline 500) needs both SMs (800 µs on 1, 400 on 2): sub-kernels of
// one wave (4 blocks), the first 20-120, the second (launched ahead) 120-220 on SMs 0 and 1. H (high,
// 4 blocks of 100 µs, deadline 300) arrives at 150: it needs 1 SM (200 µs); M, needing 2, is short and
// keeps SM 0. M's blocks running on SM 1 finish (220); H's blocks start on SM 1 then, and no block of
// M starts on SM 1 while H runs. H: 2 waves of 2 blocks on SM 1, 220-420, meeting its deadline (450).
TEST_CASE("deadline: split: a high arrival takes SMs at the next sub-kernel boundary, never preempting a block") {
  const auto r = run(medium_then_high());
  const PolicyResult& p = r[0];
  double h_first = 1e30, h_last = 0;
  for (const BlockRun& b : p.blocks)
    if (b.app == 1) {
      CHECK(b.sm == 1);
      h_first = std::min(h_first, us(b.start_ns));
      h_last = std::max(h_last, us(b.end_ns));
    }
  check_at(h_first, kLaunchUs + 200, 2);
  check_at(h_last, kLaunchUs + 400, 4);
  CHECK(p.apps[1].met);
  for (const BlockRun& b : p.blocks) {
    if (b.app != 0 || b.sm != 1) continue;
    CHECK(us(b.end_ns) - us(b.start_ns) >= 100);  // ran its whole spin where it started
    CHECK((us(b.start_ns) < h_first || us(b.start_ns) >= h_last - 0.01));
  }
}

// An SM handed back to an application runs its blocks at once, never idling while the application has
// blocks not started. M and H as above; H runs 220-420 on SM 1 while M, short, runs on SM 0 (blocks
// 8-11 in two rounds, 220-420) with [12,14) launched ahead on SM 0. When H's last block ends (420), M
// (12 or fewer blocks done, 80 µs to its deadline: no n is enough) is given both SMs, and the launch
// of its last blocks [14,16) (called then, in the queues 20 µs later) must not wait behind [12,14)
// (a sub-kernel of the same kernel): blocks 14 and 15 run on SM 1 440-540 while 12 and 13 run on
// SM 0 420-520. M completes at 540 (SM 1 chained 5 blocks: two of M, two of H, one of M) and misses
// its deadline (500). In one stream, [14,16) started only as [12,14) ended (520), SM 1 idle 100 µs.
TEST_CASE("deadline: split: an SM handed back to an application runs its queued blocks at once") {
  const auto r = run(medium_then_high());
  const PolicyResult& p = r[0];
  double h_last = 0;
  for (const BlockRun& b : p.blocks)
    if (b.app == 1) h_last = std::max(h_last, us(b.end_ns));
  check_at(h_last, kLaunchUs + 400, 4);
  bool m_on_sm1 = false;
  for (const BlockRun& b : p.blocks) {
    if (b.app != 0 || us(b.start_ns) < h_last - 0.01) continue;
    INFO("M's block " << b.block << " on SM " << b.sm << " at " << us(b.start_ns) << ", H's last block ended at " << h_last);
    CHECK(us(b.start_ns) <= h_last + kLaunchUs + kSlotUs);  // at most one launch after the SM freed
    m_on_sm1 |= b.sm == 1;
  }
  CHECK(m_on_sm1);
  check_at(us(p.apps[0].completion_ns), kLaunchUs + 400 + kLaunchUs + 100, 5);
  CHECK_FALSE(p.apps[0].met);
  CHECK(p.apps[1].met);
}

// An application short of SMs pushes the lower ones to the smallest granularity: H (high, 8 blocks of
// 100 µs, deadline 350) needs both SMs (400 µs on 1, 200 on 2); L (low, 4 blocks of 50 µs) gets none
// and runs single blocks only, in H's slack (350 - 200 = 150 µs >= 50 + 20), while H is short. When H's
// first sub-kernel completes (120 µs), its last 4 blocks take 200 µs on 1 SM, within the 230 left: H
// keeps one SM and L gets the other, for a sub-kernel of a wave (2 blocks).
TEST_CASE("deadline: split: a short application pushes lower ones to single blocks in its slack") {
  nlohmann::json j = {{"policies", {"split"}},
                      {"applications",
                       {app("H", "high", 0, 350, {kernel(8, 1024, 100)}), app("L", "low", 0, 10000, {kernel(4, 1024, 50)})}}};
  const auto r = run(j);
  const PolicyResult& p = r[0];
  CHECK(p.apps[0].met);
  CHECK(p.apps[1].met);
  const uint64_t h_first_done = p.launches.at(0).done_ns;
  REQUIRE(p.launches.at(0).app == 0);
  bool single = false, wave = false;
  for (const LaunchRun& l : p.launches) {
    if (l.app == 1 && l.call_ns < h_first_done) {
      CHECK(l.last - l.first == 1);
      single = true;
    }
    if (l.app == 1 && l.call_ns >= h_first_done && l.call_ns < p.apps[0].completion_ns) wave |= l.last - l.first == 2;
  }
  CHECK(single);
  CHECK(wave);
}

// Launch-ahead: with sub-kernels of 100 µs and launches of 20 µs, the next sub-kernel is queued before
// the running one ends: on each SM every block after the first starts as the one before it ends.
TEST_CASE("deadline: split: launch-ahead leaves no idle gap between sub-kernels") {
  nlohmann::json j = {{"policies", {"split"}}, {"applications", {app("M", "medium", 0, 500, {kernel(16, 1024, 100)})}}};
  const auto r = run(j);
  const PolicyResult& p = r[0];
  REQUIRE(p.launches.size() == 4);  // four waves of 4 blocks
  for (unsigned sm = 0; sm < 2; ++sm) {
    std::vector<std::pair<double, double>> spans;
    for (const BlockRun& b : p.blocks)
      if (b.sm == sm) spans.emplace_back(us(b.start_ns), us(b.end_ns));
    std::sort(spans.begin(), spans.end());
    REQUIRE(spans.size() == 8);
    for (size_t i = 2; i < spans.size(); ++i) CHECK(spans[i].first - spans[i - 2].second <= kSlotUs);
  }
  check_at(us(p.apps[0].completion_ns), kLaunchUs + 400, 4);
}

// Seeded random sets: 12 applications of three priorities drawn from four templates, released in a 2 ms
// window. Every policy obeys the rules; the technique meets at least as many high-priority deadlines as
// FIFO (bench/deadline_sets runs 50 sets).
namespace {
// One set per process (SystemC elaborates once per process).
void random_set(int seed) {
  {
    nlohmann::json templates = {
        {{"name", "hi"}, {"priority", "high"}, {"deadline_us", 600}, {"kernels", {kernel(4, 1024, 60), kernel(2, 1024, 40)}}},
        {{"name", "med"}, {"priority", "medium"}, {"deadline_us", 1200}, {"kernels", {kernel(8, 512, 80)}}},
        {{"name", "low"}, {"priority", "low"}, {"deadline_us", 3000}, {"kernels", {kernel(12, 1024, 50)}}},
        {{"name", "lowlong"}, {"priority", "low"}, {"deadline_us", 5000}, {"kernels", {kernel(6, 1024, 200)}}}};
    nlohmann::json j = {{"decision_us", 2}, {"random", {{"seed", seed}, {"count", 12}, {"window_us", 2000}, {"templates", templates}}}};
    const Config cfg = Config::preset("tx2");
    AppSet set = parse_apps(j, cfg, "test");
    const auto r = run_set(cfg, set);
    REQUIRE(r.size() == 3);
    for (const PolicyResult& p : r) check_rules(set, p);
    INFO("seed " << seed << ": high met fifo " << r[0].met[0] << ", split " << r[2].met[0]);
    CHECK(r[2].met[0] >= r[0].met[0]);
  }
}
}  // namespace

TEST_CASE("deadline: random set (seed 1): rules hold, split meets no fewer high-priority deadlines than FIFO") { random_set(1); }
TEST_CASE("deadline: random set (seed 2): rules hold, split meets no fewer high-priority deadlines than FIFO") { random_set(2); }

TEST_CASE("deadline: bad application files are refused naming the key") {
  const Config cfg = Config::preset("tx2");
  auto err = [&](const nlohmann::json& j) { return refusal(j, cfg); };
  using Catch::Matchers::Contains;
  CHECK_THAT(err({{"applications", {app("A", "urgent", 0, 10, {kernel(1, 32, 1)})}}}),
             Contains("apps.json") && Contains("applications[0].priority") && Contains("high, medium or low"));
  CHECK_THAT(err({{"applications", {app("A", "high", 0, 10, {kernel(0, 32, 1)})}}}), Contains("applications[0].kernels[0].blocks"));
  CHECK_THAT(err({{"applications", {app("A", "high", -1, 10, {kernel(1, 32, 1)})}}}), Contains("applications[0].release_us"));
  CHECK_THAT(err({{"aplications", {}}}), Contains("apps.json: unknown key 'aplications'"));
  nlohmann::json colour = kernel(1, 32, 1);
  colour["colour"] = "red";
  CHECK_THAT(err({{"applications", {app("A", "high", 0, 10, {colour})}}}),
             Contains("apps.json: applications[0].kernels[0]: unknown key 'colour'"));
  nlohmann::json extra = app("A", "high", 0, 10, {kernel(1, 32, 1)});
  extra["colour"] = "red";
  CHECK_THAT(err({{"applications", {extra}}}), Contains("apps.json: applications[0]: unknown key 'colour'"));
  CHECK_THAT(err({{"random", {{"seed", 1}, {"count", 3}, {"window_us", 10}, {"colour", 1}}}}),
             Contains("apps.json: random: unknown key 'colour'"));
  CHECK_THAT(err({{"random", {{"seed", 1}, {"count", 3}, {"window_us", 10}}}}), Contains("random.templates: missing"));
  CHECK_THAT(err({{"policies", {"edf"}}, {"applications", {app("A", "high", 0, 10, {kernel(1, 32, 1)})}}}),
             Contains("policies[0]") && Contains("fifo, priority_streams, split"));
  // Application names are unique (the tables name applications): a listed one twice, and a listed one
  // with a generated one's name (templates[0] drawn for application 0: "t#0").
  CHECK_THAT(err({{"applications", {app("B", "high", 0, 10, {kernel(1, 32, 1)}), app("B", "low", 5, 10, {kernel(1, 32, 1)})}}}),
             Contains("apps.json: applications[1].name: \"B\" is the name of applications[0].name too"));
  nlohmann::json tmpl = app("t", "high", 0, 10, {kernel(1, 32, 1)});
  tmpl.erase("release_us");
  CHECK_THAT(err({{"applications", {app("t#0", "high", 0, 10, {kernel(1, 32, 1)})}},
                  {"random", {{"seed", 1}, {"count", 1}, {"window_us", 10}, {"templates", {tmpl}}}}}),
             Contains("apps.json: random.templates[0].name (its application 0): \"t#0\" is the name of applications[0].name too"));
  nlohmann::json k = kernel(2, 32, 1);
  k["profile_us"] = {1};
  CHECK_THAT(err({{"applications", {app("A", "high", 0, 10, {k})}}}), Contains("profile_us") && Contains("2 times"));
}

// Measured profiles: 4 blocks of 1024 threads spinning 100 µs take 2 waves (200 µs) on 1 SM and one
// (100 µs) on 2, from the kernel's arrival in the queues to its completion, plus the blocks' fixed costs.
TEST_CASE("deadline: measured profiles E(K, n) on 1 and 2 SMs") {
  nlohmann::json j = {{"policies", {"fifo"}}, {"profiles", "measured"},
                      {"applications", {app("M", "medium", 0, 500, {kernel(4, 1024, 100)})}}};
  // Measured here, not read from a profile cache an earlier build wrote.
  const std::string cache = "/tmp/gpuvp_test_profiles_" + std::to_string(getpid());
  setenv("GPUVP_PROFILE_CACHE", cache.c_str(), 1);
  std::filesystem::remove_all(cache);
  const Config cfg = Config::preset("tx2");
  AppSet set = parse_apps(j, cfg, "test");
  run_set(cfg, set);
  const auto& e = set.apps[0].kernels[0].profile_ns;
  REQUIRE(e.size() == 2);
  check_at(us(e[0]), 200, 2);
  check_at(us(e[1]), 100, 1);
  std::filesystem::remove_all(cache);
}

// 13 SMs (the published evaluation's count), 40 applications of experiments/deadline_random_100.json,
// seed 2: split once met one high-priority deadline fewer than FIFO, because an application left
// without SMs kept its launched-ahead sub-kernel on its old SMs, whose blocks then took an SM a
// high-priority application had been given (docs/deadline.md, "Evaluation").
TEST_CASE("deadline: 13 SMs, 40 applications (seed 2): rules hold, split meets no fewer high-priority deadlines than FIFO") {
  const std::string file = std::string(GPUVP_SOURCE_DIR) + "/experiments/deadline_random_100.json";
  std::ifstream in(file);
  REQUIRE(in);
  nlohmann::json j = nlohmann::json::parse(in);
  j["random"]["seed"] = 2;
  j["random"]["count"] = 40;
  Config cfg = Config::preset("tx2");
  cfg.set("sm.count=13");
  AppSet set = parse_apps(j, cfg, file);
  const auto r = run_set(cfg, set);
  REQUIRE(r.size() == 3);
  for (const PolicyResult& p : r) check_rules(set, p);
  INFO("high met fifo " << r[0].met[0] << ", split " << r[2].met[0]);
  CHECK(r[2].met[0] >= r[0].met[0]);
}

// An application file mixing the three kinds of kernel (experiments/deadline_mixed.json: a timer-spin
// kernel, vectorAdd's PTX as a launch description, the matrixMul workload) runs under every policy
// with measured profiles: every block of every kernel once, by the rules; every application finishes.
TEST_CASE("deadline: PTX, workload and timer-spin kernels in one file run under every policy") {
  const std::string cache = "/tmp/gpuvp_test_profiles_mixed_" + std::to_string(getpid());
  setenv("GPUVP_PROFILE_CACHE", cache.c_str(), 1);
  const Config cfg = Config::preset("tx2");
  AppSet set = load_apps(std::string(GPUVP_SOURCE_DIR) + "/experiments/deadline_mixed.json", cfg);
  const auto r = run_set(cfg, set);
  REQUIRE(r.size() == 3);
  // vectorAdd: 64 blocks as the file says; matrixMul "rect" (M 64, N 32) as its host program launches
  // it: tiles of 16 x 16, a grid of 32/16 x 64/16 = 8 blocks of 256 threads.
  CHECK(set.apps[1].kernels[0].blocks == 64);
  CHECK(set.apps[2].kernels[0].blocks == 8);
  CHECK(set.apps[2].kernels[0].threads == 256);
  for (const App& a : set.apps)
    for (const Kernel& k : a.kernels) {
      REQUIRE(k.profile_ns.size() == 2);
      CHECK(k.profile_ns[0] >= k.profile_ns[1]);  // one SM is never faster than two
    }
  for (const PolicyResult& p : r) {
    check_rules(set, p);
    for (const AppResult& a : p.apps) CHECK(a.completion_ns > a.release_ns);
  }
  std::filesystem::remove_all(cache);
}

// Bad PTX and workload kernels are refused naming the file and the key, when the file is read.
TEST_CASE("deadline: bad PTX and workload kernels are refused naming the file and key") {
  const Config cfg = Config::preset("tx2");
  auto err = [&](const nlohmann::json& k, const char* profiles = "measured") {
    return refusal({{"profiles", profiles}, {"applications", {app("A", "high", 0, 10, {k})}}}, cfg);
  };
  using Catch::Matchers::Contains;
  CHECK_THAT(err({{"launch", {{"ptx", "/nonexistent/k.ptx"}, {"kernel", "k"}}}}),
             Contains("apps.json") && Contains("applications[0].kernels[0].launch") && Contains("/nonexistent/k.ptx"));
  CHECK_THAT(err({{"workload", "vectorAdd2"}}),
             Contains("apps.json") && Contains("applications[0].kernels[0].workload") && Contains("vectorAdd2") && Contains("known:"));
  CHECK_THAT(err({{"workload", "vectorAdd"}, {"size", "huge"}}),
             Contains("apps.json") && Contains("applications[0].kernels[0].size") && Contains("huge"));
  CHECK_THAT(err({{"workload", "vectorAdd"}}, "computed"), Contains("applications[0].kernels[0]") && Contains("profile_us"));
}

// A workload whose host program launches more than one kernel (bfs: a step and an update per level) is
// refused when its program runs, naming the file and the key.
TEST_CASE("deadline: a workload of several launches is refused naming the file and key") {
  const Config cfg = Config::preset("tx2");
  nlohmann::json j = {{"profiles", "measured"}, {"applications", {app("A", "high", 0, 10, {{{"workload", "bfs"}, {"size", "full"}}})}}};
  AppSet set = parse_apps(j, cfg, "apps.json");
  try {
    run_set(cfg, set);
    FAIL("accepted");
  } catch (const ConfigError& e) {
    using Catch::Matchers::Contains;
    CHECK_THAT(std::string(e.what()), Contains("apps.json: applications[0].kernels[0]") && Contains("one launch"));
  }
}
