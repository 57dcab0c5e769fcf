// Lifetimes of registered state (faultinj/lifetimes.h): the interval a fault falls in and the ACE
// figures of hand-made access logs, worked by hand; and end to end, the same fault list run with and
// without pruning gives the same outcome for every fault, on the block scheduler model and on the RTL.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <regex>
#include <string>
#include <utility>

#include "common/subprocess.h"
#include "export_csv.h"
#include "faultinj/lifetimes.h"
#include "faultinj/temp_dir.h"
#include "pruning_compare.h"

using namespace gpuvp;
using gpuvp::fi::AceFigure; using gpuvp::fi::Fault; using gpuvp::fi::FaultModel; using gpuvp::fi::GoldenRun;
using gpuvp::fi::last_edge_before; using gpuvp::fi::Lifetimes; using gpuvp::fi::LiveInterval; using gpuvp::fi::Outcome; using gpuvp::fi::PrunePlan; using gpuvp::fi::RunResult;
using Catch::Matchers::Contains;
using gpuvp::fi::test::TempDir;

namespace {

// One observed 8-bit register "r" (serial 0) and one unobserved "u" (serial 1).
GoldenRun golden_of(std::vector<AccessEvent> ev) {
  GoldenRun g;
  g.start_ps = 0;
  g.end_ps = 1000;
  g.targets = {{"r", 8, 1, 0, true}, {"u", 4, 1, 1, false}};
  g.accesses = std::move(ev);
  return g;
}

AccessEvent at(uint64_t t, Access k, uint64_t until = 0) { return {t, until, 0, 0, 0, k}; }

}  // namespace

TEST_CASE("lifetimes: a fault is dead before a write, live before a read, shared strictly between accesses") {
  // r: written at 100, read at 300, read at 500, written at 700, read every edge from 800 to 900.
  // Recorded out of order (a span is reported when it ends): the index sorts them.
  const GoldenRun g = golden_of({at(100, Access::Write), at(300, Access::Read), at(800, Access::ReadSpan, 900),
                                 at(500, Access::Read), at(700, Access::Write)});
  const Lifetimes lt(g);
  auto iv = [&](uint64_t t) { return lt.interval("r", 0, t); };
  CHECK(iv(50).kind == LiveInterval::Dead);  // next access: the write at 100
  CHECK(iv(50).next_ps == 100);
  CHECK(iv(100).kind == LiveInterval::Unknown);  // at the write's instant: before or after it, unknown
  CHECK(iv(200).kind == LiveInterval::Live);
  CHECK(iv(200).shared);
  CHECK(iv(200).next_ps == 300);
  CHECK(iv(250).next_ps == 300);  // one class with 200
  CHECK(iv(300).kind == LiveInterval::Live);  // a read at its own instant: live, its own class
  CHECK_FALSE(iv(300).shared);
  CHECK(iv(400).next_ps == 500);
  CHECK(iv(600).kind == LiveInterval::Dead);
  CHECK(iv(750).next_ps == 800);
  CHECK(iv(850).kind == LiveInterval::Live);  // inside the span of reads
  CHECK_FALSE(iv(850).shared);
  CHECK(iv(950).kind == LiveInterval::Dead);  // no access before the end
  CHECK(iv(950).next_ps == 0);
  CHECK(lt.interval("u", 0, 200).kind == LiveInterval::Unknown);  // not observed: never pruned

  // ACE over [0, 1000): live 100..300, 300..500, 700..900 = 600 ps of 1000, times 8 bits.
  const AceFigure a = lt.ace("r", 0, 1000);
  CHECK(a.bits == 8);
  CHECK(a.live_bit_ps == Approx(8 * 600));
  CHECK(a.total_bit_ps == Approx(8 * 1000));
  // Over [400, 850): 400..500 and 700..850 (the span is clipped) = 250 ps.
  CHECK(lt.ace("r", 400, 850).live_bit_ps == Approx(8 * 250));
  CHECK(lt.observed_targets() == std::vector<std::string>{"r"});
  CHECK(lt.unobserved_targets() == std::vector<std::string>{"u"});
}

TEST_CASE("lifetimes: pruning plans dead faults as masked and one run per live interval and bits") {
  const GoldenRun g = golden_of({at(100, Access::Write), at(300, Access::Read)});
  const Lifetimes lt(g);
  auto fault = [](uint64_t id, const char* target, unsigned bit, uint64_t t) {
    Fault f;
    f.id = id, f.target = target, f.bit = bit, f.time_ps = t;
    return f;
  };
  // 0: dead; 1, 2: same bit, same live interval (one run); 3: another bit; 4: unobserved; 5: after the end.
  PrunePlan p = plan_pruning({fault(2, "r", 1, 250), fault(0, "r", 1, 50), fault(1, "r", 1, 150), fault(3, "r", 2, 150),
                              fault(4, "u", 0, 150), fault(5, "r", 0, 400)},
                             lt, g);
  REQUIRE(p.dead.size() == 2);
  CHECK(p.dead[0].fault_id == 0);
  CHECK(p.dead[1].fault_id == 5);
  CHECK(p.dead[0].outcome == Outcome::Masked);
  REQUIRE(p.to_run.size() == 3);
  CHECK(p.to_run[0].id == 1);
  CHECK(p.to_run[1].id == 3);
  CHECK(p.to_run[2].id == 4);
  REQUIRE(p.followers.size() == 1);
  CHECK(p.followers.at(1) == std::vector<uint64_t>{2});
  RunResult rep;
  rep.fault_id = 1, rep.outcome = Outcome::SDC, rep.detail = "3 elements differ";
  const RunResult s = shared_result(rep, 2);
  CHECK(s.fault_id == 2);
  CHECK(s.outcome == Outcome::SDC);
  CHECK_THAT(s.detail, Contains("same live interval as fault 1"));
}

TEST_CASE("lifetimes: the run of a shared live interval is injected at the interval's last clock edge") {
  // Clock edges every 10 ps; the word is written at 100 and read at 305 (off the grid) and 500 (on it).
  GoldenRun g = golden_of({at(100, Access::Write), at(305, Access::Read), at(500, Access::Read),
                           at(600, Access::ReadSpan, 700)});
  g.period_ps = 10;
  const Lifetimes lt(g);
  auto fault = [](uint64_t id, const char* target, uint64_t t) {
    Fault f;
    f.id = id, f.target = target, f.bit = 1, f.time_ps = t;
    return f;
  };
  PrunePlan p = plan_pruning({fault(0, "r", 150), fault(1, "r", 250), fault(2, "r", 310), fault(3, "r", 300),
                              fault(4, "r", 500), fault(5, "r", 650), fault(6, "u", 150)},
                             lt, g);
  std::map<uint64_t, uint64_t> at_of;
  for (const Fault& f : p.to_run) at_of[f.id] = f.time_ps;
  // (100, 305): the edges 110 .. 300 are one class; its run (fault 0, the lowest id) is injected at 300.
  CHECK(at_of.at(0) == 300);
  CHECK(p.followers.at(0) == std::vector<uint64_t>{1, 3});
  CHECK(at_of.at(2) == 490);  // (305, 500): the read is on an edge, the last edge before it is 490
  CHECK(at_of.at(4) == 500);  // at the read's own edge: its own class, not moved
  CHECK(at_of.at(5) == 650);  // inside a span of reads: runs on its own, where it was drawn
  CHECK(at_of.at(6) == 150);  // unobserved target: never moved
  CHECK(last_edge_before(305, 150, 10) == 300);
  CHECK(last_edge_before(300, 150, 10) == 290);
  CHECK(last_edge_before(300, 290, 10) == 290);
  CHECK(last_edge_before(300, 150, 0) == 150);  // no clock: where it was drawn
}

TEST_CASE("lifetimes: xor_mask and zero_value faults of one live interval share a run whatever their bit") {
  // The models ignore the bit (an exhaustive campaign lists them at every bit of the word): faults 0..2
  // are one fault applied three times, so one run; a bit flip keeps its bit in the class.
  const GoldenRun g = golden_of({at(100, Access::Write), at(300, Access::Read)});
  const Lifetimes lt(g);
  auto fault = [](uint64_t id, FaultModel m, unsigned bit) {
    Fault f;
    f.id = id, f.target = "r", f.bit = bit, f.time_ps = 200, f.model = m, f.mask = m == FaultModel::XorMask ? 5 : 0;
    return f;
  };
  for (FaultModel m : {FaultModel::XorMask, FaultModel::ZeroValue}) {
    PrunePlan p = plan_pruning({fault(0, m, 0), fault(1, m, 3), fault(2, m, 7)}, lt, g);
    REQUIRE(p.to_run.size() == 1);
    CHECK(p.followers.at(0) == std::vector<uint64_t>{1, 2});
  }
  CHECK(plan_pruning({fault(0, FaultModel::BitFlip, 0), fault(1, FaultModel::BitFlip, 3)}, lt, g).to_run.size() == 2);
  // At the read's instant (its own class): the copies of one instant run once, another instant apart.
  auto at_read = [&](uint64_t id, unsigned bit, uint64_t t) {
    Fault f = fault(id, FaultModel::XorMask, bit);
    f.time_ps = t;
    return f;
  };
  PrunePlan p = plan_pruning({at_read(0, 0, 300), at_read(1, 4, 300), at_read(2, 0, 100)}, lt, g);
  REQUIRE(p.to_run.size() == 2);
  CHECK(p.followers.at(0) == std::vector<uint64_t>{1});
}

namespace {

std::string campaign(const std::string& impl, size_t count, bool pruning) {
  return fmt::format(R"({{
  "name": "pruning {}",
  "platform": {{"preset": "flexgrip", "set": {{"sm.count": 2, "scheduler.impl": "{}"}}}},
  "workload": {{"name": "vectorAdd", "launch": "fi32"}},
  "targets": ["gpu.sched.*"],
  "exclude": ["gpu.sched.prng"],
  "size": {{"count": {}}},
  "seed": 24,
  "workers": 2,
  "pruning": {}
}}
)",
                     impl, impl, count, pruning ? "true" : "false");
}

std::vector<fi::test::Row> run_campaign(const TempDir& d, const std::string& impl, size_t count, bool pruning,
                                        std::string& report) {
  const std::string name = fmt::format("{}-{}", impl, pruning ? "on" : "off");
  fi::test::write_file(d(name + ".json"), campaign(impl, count, pruning));
  gpuvp::test::RunResult r = gpuvp::test::run_gpuvp(fmt::format("campaign run {} --db {} -q", d(name + ".json"), d(name + ".db")));
  INFO(r.err);
  REQUIRE(r.status == 0);
  report = gpuvp::test::run_gpuvp("report " + d(name + ".db")).out;
  return fi::test::export_table(d(name + ".db")).rows;
}

size_t count_detail(const std::vector<fi::test::Row>& rows, const std::string& prefix) {
  size_t n = 0;
  for (auto& r : rows) n += r.at("detail").rfind(prefix, 0) == 0;
  return n;
}

}  // namespace

TEST_CASE("pruning: the same fault list with and without it gives the same outcome for every fault, model and RTL") {
  TempDir d("pruning");
  const size_t count = fi::test::ci_or_dense<size_t>(150, 600);
  for (const std::string impl : {"model", "rtl"}) {
    INFO(impl);
    std::string rep_on, rep_off;
    std::vector<fi::test::Row> rows[2];
    rows[1] = run_campaign(d, impl, count, true, rep_on);
    rows[0] = run_campaign(d, impl, count, false, rep_off);
    REQUIRE(rows[0].size() == count);
    fi::test::compare_runs(rows);
    CHECK(count_detail(rows[0], "pruned:") == 0);
    CHECK_THAT(rep_on, Contains("ACE analysis of the golden run"));
    CHECK_THAT(rep_off, Contains("pruning: off"));
    // Most scheduler registers are rewritten at each configuration before the SMs read them again; the
    // RTL's fates are found by evaluating its edges (docs/rtl.md), the model's by its next-state function.
    CHECK(count_detail(rows[1], "pruned: dead") > count / 2);
    CHECK(count_detail(rows[1], "pruned: same live") > 0);
    // Every register of the scheduler is observed now (state, rdy, kernel_done, smp_en and smp_reset as
    // read at every instant).
    CHECK_THAT(rep_on, Contains("not observed (reads not all seen: no ACE figure, never pruned): none"));
  }
}

namespace {

// The golden run's execution window of a campaign file, from `gpuvp campaign check`.
std::pair<uint64_t, uint64_t> window_of(const std::string& file) {
  const gpuvp::test::RunResult r = gpuvp::test::run_gpuvp("campaign check " + file);
  INFO(r.err);
  REQUIRE(r.status == 0);
  const size_t at = r.out.find("golden run ");
  REQUIRE(at != std::string::npos);
  uint64_t from = 0, to = 0;
  REQUIRE(std::sscanf(r.out.c_str() + at, "golden run %lu to %lu ps", &from, &to) == 2);
  return {from, to};
}

// The golden run's execution window of vectorAdd fi32 on 1 SM.
std::pair<uint64_t, uint64_t> golden_window(const TempDir& d) {
  fi::test::write_file(d("probe.json"), R"({"name": "probe", "platform": {"preset": "flexgrip"},
    "workload": {"name": "vectorAdd", "launch": "fi32"}, "targets": ["gpu.sched.*"], "size": {"count": 1}})");
  return window_of(d("probe.json"));
}

std::string exhaustive(const std::string& targets, uint64_t from_ns, uint64_t to_ns, bool pruning) {
  return fmt::format(R"({{
  "name": "exhaustive",
  "platform": {{"preset": "flexgrip"}},
  "workload": {{"name": "vectorAdd", "launch": "fi32"}},
  "targets": [{}],
  "size": {{"exhaustive": true}},
  "window": {{"from_ns": {}, "to_ns": {}}},
  "workers": 2,
  "pruning": {}
}}
)",
                     targets, from_ns, to_ns, pruning ? "true" : "false");
}

}  // namespace

TEST_CASE("exhaustive: one run per class gives, run by run, the brute-force campaign over every (bit, cycle) pair") {
  TempDir d("exhaustive");
  const uint64_t start_ns = golden_window(d).first / 1000;
  // The full list: the first 30 edges of the kernel (10 ns each): configuration, dispatch, then the
  // wait. The counter stays live across the wait (shared classes), block_x is written, read at dispatch,
  // then dead, num_blocks[0] and smp_done_array are read at every edge of the wait. CI's: edges 3 to 8
  // (the dispatch, then the wait) without num_blocks[0] (read at every edge, as smp_done_array): live
  // edges run one by one, dead ones after block_x's read, one class per counter bit over the wait.
  const bool dense = fi::test::dense_lists();
  const std::string targets = fmt::format(R"("gpu.sched.blocks_scheduled_cnt", {}"gpu.sched.smp_done_array", "gpu.sched.block_x")",
                                          dense ? R"("gpu.sched.num_blocks[0]", )" : "");
  const uint64_t bits = dense ? 32 + 8 + 1 + 16 : 32 + 1 + 16, first = dense ? 0 : 3, edges = dense ? 30 : 6;
  std::vector<fi::test::Row> rows[2];
  for (int pruning = 0; pruning < 2; ++pruning) {
    const std::string name = pruning ? "classes" : "brute";
    fi::test::write_file(d(name + ".json"), exhaustive(targets, start_ns + 10 * first, start_ns + 10 * (first + edges), pruning));
    const gpuvp::test::RunResult r = gpuvp::test::run_gpuvp(fmt::format("campaign run {} --db {} -q", d(name + ".json"), d(name + ".db")));
    INFO(r.err);
    REQUIRE(r.status == 0);
    rows[pruning] = fi::test::export_table(d(name + ".db")).rows;
    const std::string report = gpuvp::test::run_gpuvp("report " + d(name + ".db")).out;
    CHECK_THAT(report, Contains("each AVF above is exact"));
    // The header names the exhaustive size, not a margin of 0 at a confidence of 0.
    CHECK_THAT(report, Contains("size: exhaustive (every bit"));
    CHECK_THAT(report, !Contains("margin 0 at confidence 0"));
    // A kernel's ACE row has the three columns its header names (no stray '-  0  -').
    CHECK(std::regex_search(report, std::regex("\n  kernel                +bits +ACE AVF\n  kernel 0 +[0-9]+ +[0-9.]+\n")));
  }
  // Every (bit, edge) pair, one fault each.
  REQUIRE(rows[0].size() == bits * edges);
  const fi::test::Compared c = fi::test::compare_runs(rows);
  CHECK(c.dead > 0);
  CHECK(c.shared > 0);
  CHECK(rows[1].size() - c.dead - c.shared < rows[1].size() / 2);  // simulated
}

TEST_CASE("exhaustive: refused with the number of classes and their cost when they exceed the limit") {
  TempDir d("exhaustive_refused");
  const auto [from, to] = golden_window(d);
  // num_blocks[0] is read at every edge of every wait: nearly every (bit, edge) point is its own class.
  fi::test::write_file(d("big.json"), exhaustive(R"("gpu.sched.num_blocks[0]")", from / 1000, to / 1000, true));
  const gpuvp::test::RunResult r = gpuvp::test::run_gpuvp("campaign check " + d("big.json"));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Contains("size.exhaustive: the"));
  CHECK_THAT(r.err, Contains("classes to simulate"));
  CHECK_THAT(r.err, Contains("CPU-hours"));
}

TEST_CASE("pruning: a dense fault list on the RTL scheduler (every bit at every Nth edge, and multi-bit masks) gives the same outcome with and without it") {
  TempDir d("pruning-rtl-dense");
  const std::string head = R"({"name": "rtl dense",
  "platform": {"preset": "flexgrip", "set": {"sm.count": 2, "scheduler.impl": "rtl"}},
  "workload": {"name": "vectorAdd", "launch": "fi32"}, "workers": 2, )";
  fi::test::write_file(d("check.json"), head + R"("targets": ["gpu.sched.*"], "size": {"count": 1}})");
  const auto [from, to] = window_of(d("check.json"));
  const uint64_t period = 10000;  // flexgrip: 100 MHz
  // Every bit of every observed register (2 SMs) at 12 instants spread over the kernel with an odd
  // stride (configuration, dispatch, wait and exchange edges alike); xor masks over several bits of
  // the words whose reads are comparisons (population count, non-zero, >=) at every instant too. CI's
  // list: 6 instants, a quarter of the bits at each, shifted at every instant (so that every bit is in
  // it, at 4 consecutive ones), every mask at every instant.
  const std::vector<std::pair<std::string, unsigned>> regs = {
      {"blocks_scheduled_cnt", 32}, {"num_blocks[0]", 8}, {"num_blocks[1]", 8}, {"smp_done_array", 2},
      {"block_idx[0]", 32}, {"block_idx[1]", 32}, {"block_x", 16}, {"block_y", 16}, {"block_z", 16},
      {"grid_x", 16}, {"grid_y", 16}, {"grid_z", 16}, {"threads_per_block", 32}, {"shmem_per_block", 32}};
  const std::vector<std::pair<std::string, uint64_t>> masks = {
      {"blocks_scheduled_cnt", 0xffffffff}, {"blocks_scheduled_cnt", 0x1f}, {"smp_done_array", 3},
      {"num_blocks[0]", 0xff}, {"num_blocks[1]", 0x81}, {"block_idx[0]", 0xf0f0f0f0}};
  const uint64_t stride = ((to - from) / period / fi::test::ci_or_dense<uint64_t>(6, 12)) | 1;
  std::string csv = "target,bit,model,mask,trigger,time_ps\n";
  size_t n = 0;
  for (uint64_t t = from, k = 0; t < to; t += stride * period, ++k) {
    uint64_t j = 0;  // the bit's place in the list of every register's bits
    for (const auto& [r, width] : regs)
      for (unsigned b = 0; b < width; ++b)
        if (fi::test::kept(2 * k, j++, 4)) ++n, csv += fmt::format("gpu.sched.{},{},bit_flip,0,time,{}\n", r, b, t);
    for (const auto& [r, mask] : masks) ++n, csv += fmt::format("gpu.sched.{},0,xor_mask,{},time,{}\n", r, mask, t);
  }
  fi::test::write_file(d("dense.csv"), csv);
  std::vector<fi::test::Row> rows[2];
  fi::test::run_both(d, "dense", head + R"("faults": "dense.csv")", rows, false);
  REQUIRE(rows[0].size() == n);
  const fi::test::Compared c = fi::test::compare_runs(rows);
  CHECK(c.not_masked > 0);  // some faults matter: the comparison says something
  CHECK(c.dead > n / 3);
  CHECK(c.shared > 0);
}
