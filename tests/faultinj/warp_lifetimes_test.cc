// Lifetimes of the SM's warp control state (models/sm/simt_core_warp_access.cc): for a kernel whose
// warp diverges at a branch and reconverges (tests/data/ptx/warp_control.ptx), which divergence
// groups' PCs and masks, the group count, the live lanes and the scheduling state are live when,
// worked out by hand from the thread-frontier rules (warp.h); and end to end, the same fault list on
// warp control state gives the same outcome for every fault with and without pruning (dense listed
// faults and drawn ones, flexgrip and tx2).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <regex>
#include <string>

#include "common/subprocess.h"
#include "export_csv.h"
#include "faultinj/lifetimes.h"
#include "faultinj/temp_dir.h"
#include "pruning_compare.h"
#include "recorded_golden.h"

using namespace gpuvp;
using gpuvp::fi::Lifetimes;
using gpuvp::fi::LiveInterval;
using gpuvp::fi::test::Recorded;
using gpuvp::fi::test::TempDir;

namespace {
const std::string kPtx = std::string(GPUVP_TEST_DATA) + "/ptx/warp_control.ptx";
const std::string kW = "gpu.sm0.warp[0].";

// warp_control.ptx's `div`, instructions in execution order.
enum : unsigned { kMov = 0, kSetp, kBra, kAddElse, kBraJoin, kAddThen, kAddJoin, kRet, kInsts };

Recorded record_div(const std::string& preset) { return fi::test::record_kernel(preset, kPtx, "div"); }

void check_div_intervals(const std::string& preset) {
  const Recorded r = record_div(preset);
  const auto& t = r.t;
  REQUIRE(t.size() == kInsts);
  const Lifetimes lt(r.g);
  for (const char* f : {"group_pc", "group_mask", "ngroups", "live", "state"}) CHECK(lt.observed(kW + f));
  // An instant after instruction k executed and before k + 1 read anything.
  auto before = [&](unsigned k) { return t[k] - 1; };
  auto iv = [&](const std::string& f, uint64_t idx, uint64_t ps) { return lt.interval(kW + f, idx, ps); };
  // Group 1 is pushed by the branch (2) with lanes 0-15 at THEN and waits while group 0 (lanes 16-31,
  // lower PC) runs 3 and 4; 5 reads its mask (its active lanes), merges it into group 0 at JOIN and
  // pops it. Its mask: dead before the push (the placement's zero is never read), one live interval
  // from the push to 5 (the faults in it share a run), dead after the pop.
  CHECK(iv("group_mask", 1, before(kBra)).kind == LiveInterval::Dead);
  const LiveInterval m1 = iv("group_mask", 1, before(kAddElse));
  REQUIRE(m1.kind == LiveInterval::Live);
  CHECK(m1.shared);
  CHECK(m1.next_ps >= t[kAddThen]);
  CHECK(m1.next_ps < t[kAddJoin]);
  for (unsigned k : {kBraJoin, kAddThen}) {
    const LiveInterval same = iv("group_mask", 1, before(k));
    CHECK(same.kind == LiveInterval::Live);
    CHECK(same.next_ps == m1.next_ps);
  }
  CHECK(iv("group_mask", 1, before(kAddJoin)).kind == LiveInterval::Dead);
  // Its PC is read at every issue while there are two groups (the frontier rule compares them).
  const LiveInterval p1 = iv("group_pc", 1, before(kAddElse));
  REQUIRE(p1.kind == LiveInterval::Live);
  CHECK(p1.next_ps >= t[kAddElse]);
  CHECK(p1.next_ps < t[kBraJoin]);
  CHECK(iv("group_pc", 1, before(kBra)).kind == LiveInterval::Dead);
  CHECK(iv("group_pc", 1, before(kAddJoin)).kind == LiveInterval::Dead);
  // Entries never pushed are dead throughout.
  for (unsigned k = 0; k < kInsts; ++k) {
    CHECK(iv("group_pc", 2, before(k)).kind == LiveInterval::Dead);
    CHECK(iv("group_mask", 2, before(k)).kind == LiveInterval::Dead);
  }
  // Group 0, the count and the live lanes are read up to the exit (7), which reads and rewrites
  // `live` and empties the groups: all dead after it. The live lanes are read by nothing before it.
  const LiveInterval lv = iv("live", 0, before(kMov));
  REQUIRE(lv.kind == LiveInterval::Live);
  CHECK(lv.shared);
  CHECK(lv.next_ps >= t[kRet]);
  CHECK(iv("live", 0, before(kRet)).next_ps == lv.next_ps);
  const uint64_t exited = lv.next_ps + 1;
  for (const char* f : {"group_pc", "group_mask", "ngroups", "live"}) {
    INFO(f);
    CHECK(iv(f, 0, before(kRet)).kind == LiveInterval::Live);
    CHECK(iv(f, 0, exited).kind == LiveInterval::Dead);
  }
  const LiveInterval n = iv("ngroups", 0, before(kAddElse));
  CHECK(n.kind == LiveInterval::Live);
  CHECK(n.next_ps < t[kBraJoin]);
  // The schedulers read the state of a resident warp at every pick: live, each fault on its own. A
  // free warp slot's state is read by no one.
  const LiveInterval s = iv("state", 0, before(kAddElse));
  CHECK(s.kind == LiveInterval::Live);
  CHECK_FALSE(s.shared);
  CHECK(iv("state", 0, exited).kind == LiveInterval::Live);  // until the batch ends / the block leaves
  CHECK(lt.interval("gpu.sm0.warp[1].state", 0, before(kAddElse)).kind == LiveInterval::Dead);
  CHECK(lt.interval("gpu.sm0.warp[1].group_pc", 0, before(kAddElse)).kind == LiveInterval::Dead);
}
}  // namespace

// One platform per process (SystemC): one test case per preset.
TEST_CASE("warp lifetimes: a divergent branch's reconvergence group is live from its push to its merge, dead before and after (flexgrip)") {
  check_div_intervals("flexgrip");
}

TEST_CASE("warp lifetimes: a divergent branch's reconvergence group is live from its push to its merge, dead before and after (tx2)") {
  check_div_intervals("tx2");
}

TEST_CASE("warp lifetimes: ACE of the divergent kernel's warp control state, hand-worked over its issue instants (tx2)") {
  // On tx2 the kernel makes no memory access, so every access is at its instruction's issue instant.
  // Over [t0, end): group 0's PC and mask, the count and the live lanes are live from t0 to the exit
  // (7), group 1's PC and mask from the branch that pushes it (2) to the add that merges it (5).
  const Recorded r = record_div("tx2");
  const auto& t = r.t;
  REQUIRE(t.size() == kInsts);
  const Lifetimes lt(r.g);
  const uint64_t end = t[kRet] + 1'000'000'000;
  const double kernel = double(t[kRet] - t[kMov]), pushed = double(t[kAddThen] - t[kBra]);
  CHECK(lt.ace(kW + "group_pc", t[kMov], end).live_bit_ps == 40 * (kernel + pushed));
  CHECK(lt.ace(kW + "group_mask", t[kMov], end).live_bit_ps == 32 * (kernel + pushed));
  CHECK(lt.ace(kW + "ngroups", t[kMov], end).live_bit_ps == 6 * kernel);
  CHECK(lt.ace(kW + "live", t[kMov], end).live_bit_ps == 32 * kernel);
  CHECK(lt.ace(kW + "state", t[kMov], end).live_bit_ps >= 2 * kernel);
  CHECK(lt.ace(kW + "group_pc", t[kMov], end).total_bit_ps == 40.0 * 32 * double(end - t[kMov]));
  CHECK(lt.ace("gpu.sm0.warp[1].state", t[kMov], end).live_bit_ps == 0);
}

namespace {

using fi::test::Compared;
using fi::test::compare_runs;

// Dense listed faults on div_store: group 0's and group 1's PC and mask, the count, the live lanes,
// the state, and a free slot's state, at every 8th clock edge of the kernel.
void same_outcomes_dense(const std::string& preset) {
  TempDir d("warp-dense-" + preset);
  const std::string head = fmt::format(R"({{"name": "warp dense", "platform": {{"preset": "{}"}},
  "exec": {{"ptx": "{}", "kernel": "div_store", "grid": [1], "block": [32],
           "args": [{{"buffer": {{"type": "u32", "count": 32}}}}]}},
  "workers": 2, )",
                                       preset, kPtx);
  fi::test::write_file(d("check.json"), head + R"("targets": ["gpu.sm0.warp[0].live"], "size": {"count": 1}})");
  const auto r = gpuvp::test::run_gpuvp("campaign check " + d("check.json"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex("golden run ([0-9]+) to ([0-9]+) ps")));
  const uint64_t from = std::stoull(m[1].str()), to = std::stoull(m[2].str());
  const double period = 1e6 / (preset == "tx2" ? 1300.0 : 100.0);  // the presets' clocks
  const struct {
    const char* target;
    unsigned idx, bit;
  } words[] = {{"warp[0].group_pc", 0, 2},   {"warp[0].group_pc", 1, 3}, {"warp[0].group_mask", 0, 20},
               {"warp[0].group_mask", 1, 5}, {"warp[0].ngroups", 0, 1},  {"warp[0].live", 0, 3},
               {"warp[0].live", 0, 20},      {"warp[0].state", 0, 0},    {"warp[0].state", 0, 1},
               {"warp[1].state", 0, 1}};
  std::string csv = "target,idx,bit,trigger,time_ps\n";
  for (uint64_t k = 0; from + uint64_t(double(k) * period) < to; k += 8)
    for (size_t j = 0; j < std::size(words); ++j)
      if (fi::test::kept(k / 8, j, 10))  // CI's list: each word at every 80th edge, in turn
        csv += fmt::format("gpu.sm0.{},{},{},time,{}\n", words[j].target, words[j].idx, words[j].bit,
                           from + uint64_t(double(k) * period));
  fi::test::write_file(d("list.csv"), csv);
  std::vector<fi::test::Row> rows[2];
  run_both(d, "dense", head + fmt::format(R"("faults": "{}")", d("list.csv")), rows, true);
  REQUIRE(rows[0].size() > 150);
  const Compared c = compare_runs(rows);
  CHECK(c.dead > c.n / 6);
  CHECK(c.shared > c.n / 6);
  CHECK(c.not_masked > c.n / 6);
}

// Drawn faults over every warp slot's control state of SM 0 (most slots are free: dead).
void same_outcomes_drawn(const std::string& preset) {
  TempDir d("warp-drawn-" + preset);
  const size_t count = fi::test::ci_or_dense<size_t>(150, 300);
  const std::string campaign = fmt::format(R"({{"name": "warp drawn", "platform": {{"preset": "{}"}},
  "workload": {{"name": "vectorAdd", "launch": "fi32"}}, "targets": ["gpu.sm0.warp[*].*"],
  "size": {{"count": {}}}, "seed": 24, "workers": 2)",
                                           preset, count);
  std::vector<fi::test::Row> rows[2];
  run_both(d, "drawn", campaign, rows, true);
  REQUIRE(rows[1].size() == count);
  const Compared c = compare_runs(rows);
  CHECK(c.dead > count / 2);
  CHECK(c.not_masked > 0);
}
}  // namespace

TEST_CASE("warp pruning: dense faults over a divergent warp's control state give the same outcome with and without pruning (flexgrip)") {
  same_outcomes_dense("flexgrip");
}

TEST_CASE("warp pruning: dense faults over a divergent warp's control state give the same outcome with and without pruning (tx2)") {
  same_outcomes_dense("tx2");
}

TEST_CASE("warp pruning: drawn faults over warp control state give the same outcome with and without pruning (flexgrip)") {
  same_outcomes_drawn("flexgrip");
}

TEST_CASE("warp pruning: drawn faults over warp control state give the same outcome with and without pruning (tx2)") {
  same_outcomes_drawn("tx2");
}
