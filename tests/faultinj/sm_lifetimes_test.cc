// Lifetimes of SM state (models/sm/simt_core_access.cc): the register file's recorded accesses give,
// for a hand-written kernel, the live time of each value from the instruction that produces it to the
// last one that reads it (hand-worked def/use chains over the SM's issue instants), through loads,
// an atomic, a predicate and a guarded store too; and end to end, the same fault list on SM registers
// and predicates gives the same outcome for every fault with and without pruning, with the batch
// scheduler (flexgrip) and the concurrent dispatcher (tx2): drawn lists, and dense lists (a few words
// at every few cycles of the kernel) where faults share live intervals.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <string>

#include "common/subprocess.h"
#include "export_csv.h"
#include "faultinj/lifetimes.h"
#include "faultinj/temp_dir.h"
#include "pruning_compare.h"
#include "recorded_golden.h"

using namespace gpuvp;
using gpuvp::fi::GoldenRun;
using gpuvp::fi::Lifetimes;
using gpuvp::fi::LiveInterval;
using gpuvp::fi::test::TempDir;

namespace {
// One warp, straight-line: each value's producer and last consumer (instruction numbers from 0):
//   %r1 = 7 (0), read by 2 and 3;  %r2 = 5 (1), read by 2 and 4;  %r3 (2) read by 3;  %r4 (3) read by 4;
//   %r5 (4) read by 5;  %r1 again (5) never read (dead).
const char* kChainPtx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry chain()
{
  .reg .b32 %r<6>;
  mov.u32 %r1, 7;
  mov.u32 %r2, 5;
  add.u32 %r3, %r1, %r2;
  mul.lo.u32 %r4, %r3, %r1;
  add.u32 %r5, %r4, %r2;
  mov.u32 %r1, %r5;
  ret;
}
)";

GoldenRun recorded_chain(Platform& p) {
  return fi::test::record_golden(p, [&](rt::Runtime& rt) {
           auto m = rt.load_module(kChainPtx, "chain.ptx");
           rt.launch(m, "chain", {1}, {32}, rt::KernelArgs{});
           rt.synchronize();
         }).g;
}
}  // namespace

TEST_CASE("sm lifetimes: ACE live time of a hand-written kernel's registers is producer to last consumer") {
  Platform p(Config::preset("flexgrip"));
  const GoldenRun g = recorded_chain(p);
  const std::vector<uint64_t> t = p.issue_times(0);
  REQUIRE(t.size() == 7);
  const Lifetimes lt(g);
  CHECK(lt.observed("gpu.sm0.regs"));
  CHECK(lt.observed("gpu.sm0.preds"));
  // Live values (producer, last consumer): (0,3) (1,4) (2,3) (3,4) (4,5); each 32 lanes x 64 bits.
  // An instruction's accesses are at the instant it executes: on flexgrip, a fixed time after its issue
  // (its instruction words cross the bus first), so the live times are differences of issue instants.
  const uint64_t live_ps = (t[3] - t[0]) + (t[4] - t[1]) + (t[3] - t[2]) + (t[4] - t[3]) + (t[5] - t[4]);
  const uint64_t end = t.back() + 1000 * p.clock_period_ps();
  CHECK(lt.ace("gpu.sm0.regs", 0, end).live_bit_ps == double(live_ps * 32 * 64));
  CHECK(lt.ace("gpu.sm0.preds", 0, end).live_bit_ps == 0);  // no predicate is read
  // The instruction whose accesses an instant is: the last one issued at or before it. t[k + 1] lies
  // after instruction k executed and before k + 1 did.
  auto inst_of = [&](uint64_t ps) { return size_t(std::upper_bound(t.begin(), t.end(), ps) - t.begin()) - 1; };
  // Lane 7 of %r2 (its slot: the first source of instruction 4, found as the one live to 4 from
  // after 1): every instant strictly between its write and its last read is one class, live.
  bool found = false;
  for (uint64_t w = 0; w < 2 * 6 * 32 && !found; w += 2) {
    const LiveInterval iv = lt.interval("gpu.sm0.regs", w, t[2]);
    if (iv.kind != LiveInterval::Live || !iv.shared || inst_of(iv.next_ps) != 2) continue;
    // r1 and r2 are both read next by instruction 2; r2 alone is read again by 4 after that.
    const LiveInterval after = lt.interval("gpu.sm0.regs", w, t[3]);
    if (after.kind == LiveInterval::Live && inst_of(after.next_ps) == 4) found = true;
    else if (after.kind == LiveInterval::Live) CHECK(inst_of(after.next_ps) == 3);  // r1, read by 3
  }
  CHECK(found);
  // After its last read every register is dead, and the rewritten %r1 is never read.
  for (uint64_t w = 0; w < 2 * 6 * 32; ++w) CHECK(lt.interval("gpu.sm0.regs", w, t[6]).kind == LiveInterval::Dead);
}

TEST_CASE("sm pruning: the same fault list on SM registers gives the same outcome for every fault, flexgrip and tx2") {
  TempDir d("sm-pruning");
  const size_t count = fi::test::ci_or_dense<size_t>(80, 300);
  for (const std::string preset : {"flexgrip", "tx2"}) {
    INFO(preset);
    std::vector<fi::test::Row> rows[2];
    fi::test::run_both(d, preset, fmt::format(R"({{"name": "sm pruning {}", "platform": {{"preset": "{}"}},
  "workload": {{"name": "vectorAdd", "launch": "fi32"}}, "targets": ["gpu.sm0.regs", "gpu.sm0.preds"],
  "size": {{"count": {}}}, "seed": 24, "workers": 2)",
                                              preset, preset, count),
                       rows, false);
    REQUIRE(rows[0].size() == count);
    const fi::test::Compared c = fi::test::compare_runs(rows);
    CHECK(c.not_masked > 0);  // some of the list matters: the comparison says something
    // Most allocated words of vectorAdd are dead most of the time (a value lives from its producer to
    // its last consumer, a few instructions), and most predicate words are never used.
    CHECK(c.dead > count / 2);
  }
}

namespace {
// tests/data/ptx/sm_access.ptx (one warp): the instructions, numbered from 0, and the register slots.
enum : unsigned { kLdA = 0, kLdB, kTid, kMul, kAdd, kLdG, kAtom, kSetp, kSt, kRet, kInsts };
enum : unsigned { kR1 = 1, kR2 = 2, kR3 = 3, kRd2 = 7, kRd4 = 9 };

using fi::test::Recorded;

Recorded recorded_access(const std::string& preset) {
  Platform p(Config::preset(preset));
  return fi::test::record_golden(p, [&](rt::Runtime& rt) {
    auto m = rt.load_module(fi::test::file_text(std::string(GPUVP_TEST_DATA) + "/ptx/sm_access.ptx"), "sm_access.ptx");
    std::vector<uint32_t> a(32);
    for (uint32_t i = 0; i < 32; ++i) a[i] = i;
    const rt::DevPtr da = rt.malloc(a.size() * 4), db = rt.malloc(4);
    rt.memcpy_h2d(da, a.data(), a.size() * 4);
    const uint32_t zero = 0;
    rt.memcpy_h2d(db, &zero, 4);
    rt.launch(m, "acc", {1}, {32}, rt::KernelArgs{}.ptr(da).ptr(db));
    rt.synchronize();
  });
}

// The recorded accesses of one word, in time order, in the order reported at one instant (as Lifetimes).
std::vector<AccessEvent> word_events(const GoldenRun& g, const std::string& target, uint64_t word) {
  uint32_t serial = 0;
  for (const auto& t : g.targets)
    if (t.name == target) serial = t.serial;
  std::vector<AccessEvent> v;
  for (const AccessEvent& e : g.accesses) {
    if (e.target != serial) continue;
    if (!e.lanes) {
      if (e.index == word) v.push_back(e);
      continue;
    }
    if (word < e.index || (word - e.index) / e.stride >= 32) continue;
    if (e.lanes >> ((word - e.index) / e.stride) & 1) v.push_back(e);
  }
  std::stable_sort(v.begin(), v.end(), [](const AccessEvent& a, const AccessEvent& b) { return a.time_ps < b.time_ps; });
  // An instruction that waited reports its reads at its start and again as a span from there: one read.
  std::vector<AccessEvent> merged;
  for (const AccessEvent& e : v) {
    AccessEvent* last = merged.empty() ? nullptr : &merged.back();
    if (last && last->kind != Access::Write && e.kind == Access::ReadSpan && e.time_ps == last->time_ps) *last = e;
    else merged.push_back(e);
  }
  return merged;
}

std::string kinds(const std::vector<AccessEvent>& v) {
  std::string s;
  for (const AccessEvent& e : v) s += e.kind == Access::Write ? 'W' : 'R';
  return s;
}

uint64_t reg_word(unsigned slot, unsigned lane) { return 2 * (uint64_t(slot) * 32 + lane); }
uint64_t end_of(const AccessEvent& e) { return e.kind == Access::ReadSpan ? e.until_ps : e.time_ps; }
}  // namespace

namespace {
void check_access_chains(const std::string& preset) {
  {
    const Recorded r = recorded_access(preset);
    const auto& t = r.t;
    REQUIRE(t.size() == kInsts);
    const Lifetimes lt(r.g);
    auto ev = [&](unsigned slot, unsigned lane) { return word_events(r.g, "gpu.sm0.regs", reg_word(slot, lane)); };
    // Every register is zeroed when the block is placed (W), then (hand-worked from the PTX):
    // %rd4 = a + 4 tid (add), read as the load's address and, for lanes below 16 only (setp), as the
    // store's; lane 31's store is guarded off, so its last read is the load's.
    const auto rd4_0 = ev(kRd4, 0), rd4_31 = ev(kRd4, 31);
    REQUIRE(kinds(rd4_0) == "WWRR");
    REQUIRE(kinds(rd4_31) == "WWR");
    CHECK(rd4_0[1].time_ps >= t[kAdd]);
    CHECK(rd4_0[2].time_ps >= t[kLdG]);  // never before the instruction issued
    CHECK(rd4_0[3].time_ps >= t[kSt]);
    // %r2 = the loaded value (written when the data arrive), read by the atomic only.
    const auto r2_31 = ev(kR2, 31);
    REQUIRE(kinds(r2_31) == "WWR");
    CHECK(r2_31[1].time_ps >= t[kLdG]);
    CHECK(r2_31[2].time_ps >= std::max(t[kAtom], r2_31[1].time_ps));
    // %r3 = the atomic's old value, read by the store for lanes below 16: lane 31's is never read.
    const auto r3_0 = ev(kR3, 0), r3_31 = ev(kR3, 31);
    REQUIRE(kinds(r3_0) == "WWR");
    REQUIRE(kinds(r3_31) == "WW");
    // The atomic reads lane 31's operand just before lane 31's transaction, after those of lanes 0..30,
    // and writes its destinations after the last: its reads reach the instant of its writes.
    CHECK(end_of(r2_31[2]) == r3_31[1].time_ps);
    CHECK(end_of(ev(kRd2, 0).back()) == r3_31[1].time_ps);
    // %p1 = tid < 16 for all 32 lanes (a full write), read as the store's guard.
    const auto p1 = word_events(r.g, "gpu.sm0.preds", 1);
    REQUIRE(kinds(p1) == "WWR");
    CHECK(p1[1].time_ps >= t[kSetp]);
    CHECK(p1[2].time_ps >= t[kSt]);
    // Intervals: after %rd4's write its next access is the load's read (live), then the store's;
    // after its last read, and %r3 of lane 31 after the atomic wrote it, dead to the end.
    const LiveInterval a = lt.interval("gpu.sm0.regs", reg_word(kRd4, 0), rd4_0[1].time_ps + 1);
    CHECK(a.kind == LiveInterval::Live);
    CHECK(a.next_ps == rd4_0[2].time_ps);
    const LiveInterval b = lt.interval("gpu.sm0.regs", reg_word(kRd4, 0), end_of(rd4_0[2]) + 1);
    CHECK(b.kind == LiveInterval::Live);
    CHECK(b.next_ps == rd4_0[3].time_ps);
    CHECK(lt.interval("gpu.sm0.regs", reg_word(kRd4, 0), end_of(rd4_0[3]) + 1).kind == LiveInterval::Dead);
    CHECK(lt.interval("gpu.sm0.regs", reg_word(kRd4, 31), end_of(rd4_31[2]) + 1).kind == LiveInterval::Dead);
    CHECK(lt.interval("gpu.sm0.regs", reg_word(kR3, 31), r3_31[1].time_ps + 1).kind == LiveInterval::Dead);
    // %r1 = tid, read by mul.wide and setp: dead after setp.
    const auto r1 = ev(kR1, 0);
    REQUIRE(kinds(r1) == "WWRR");
    CHECK(r1[3].time_ps >= t[kSetp]);
    CHECK(lt.interval("gpu.sm0.regs", reg_word(kR1, 0), end_of(r1[3]) + 1).kind == LiveInterval::Dead);
  }
}
}  // namespace

// One platform per process (SystemC): one test case per preset.
TEST_CASE("sm lifetimes: through loads and an atomic and a predicate and a guarded store each register's accesses follow its hand-worked def/use chain (flexgrip)") {
  check_access_chains("flexgrip");
}

TEST_CASE("sm lifetimes: through loads and an atomic and a predicate and a guarded store each register's accesses follow its hand-worked def/use chain (tx2)") {
  check_access_chains("tx2");
}

namespace {
// Dense listed faults on sm_access.ptx: a few words (an address register, a loaded value, an atomic's
// result and operand, a 64-bit high half, the predicate's lanes 0 and 31) at every 16th clock edge of
// the kernel: many faults share a live interval, many fall in dead ones.
std::string dense_list(const TempDir& d, const std::string& preset) {
  const std::string head = fmt::format(R"({{"name": "dense", "platform": {{"preset": "{}"}},
  "exec": {{"ptx": "{}/ptx/sm_access.ptx", "kernel": "acc", "grid": [1], "block": [32],
           "args": [{{"buffer": {{"type": "u32", "count": 32, "init": "iota"}}}}, {{"buffer": {{"type": "u32", "count": 1}}}}]}},
  "workers": 2, )",
                                       preset, GPUVP_TEST_DATA);
  fi::test::write_file(d(preset + "-check.json"), head + R"("targets": ["gpu.sm0.regs"], "size": {"count": 1}})");
  const auto r = gpuvp::test::run_gpuvp("campaign check " + d(preset + "-check.json"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex("golden run ([0-9]+) to ([0-9]+) ps")));
  const uint64_t from = std::stoull(m[1].str()), to = std::stoull(m[2].str());
  const double period = 1e6 / (preset == "tx2" ? 1300.0 : 100.0);  // the presets' clocks
  std::string csv = "target,idx,bit,trigger,time_ps\n";
  const std::pair<uint64_t, unsigned> regs[] = {{reg_word(kRd4, 0), 2},  {reg_word(kR2, 31), 0}, {reg_word(kR3, 0), 5},
                                                {reg_word(kRd2, 31), 3}, {reg_word(kRd4, 0) + 1, 0}};
  for (uint64_t k = 0; from + uint64_t(double(k) * period) < to; k += 16) {
    const uint64_t at = from + uint64_t(double(k) * period);
    uint64_t j = 0;  // CI's list: a quarter of the words at each instant, in turn
    for (auto [w, bit] : regs)
      if (fi::test::kept(k / 16, j++, 4)) csv += fmt::format("gpu.sm0.regs,{},{},time,{}\n", w, bit, at);
    for (unsigned lane : {0u, 31u})
      if (fi::test::kept(k / 16, j++, 4)) csv += fmt::format("gpu.sm0.preds,1,{},time,{}\n", lane, at);
  }
  fi::test::write_file(d(preset + ".csv"), csv);
  return head + fmt::format(R"("faults": "{}")", d(preset + ".csv"));
}

void same_outcomes_dense(const std::string& preset) {
  TempDir d("sm-dense-" + preset);  // one folder per test: ctest runs them at once
  const std::string head = dense_list(d, preset);
  std::vector<fi::test::Row> rows[2];
  fi::test::run_both(d, preset, head, rows, true);
  REQUIRE(rows[0].size() > 150);
  const fi::test::Compared c = fi::test::compare_runs(rows);
  CHECK(c.dead > c.n / 3);
  CHECK(c.shared > c.n / 20);
  CHECK(c.not_masked > c.n / 20);
}
}  // namespace

TEST_CASE("sm pruning: dense faults over the address, loaded, atomic and predicate words of a kernel give the same outcome with and without pruning (flexgrip)") {
  same_outcomes_dense("flexgrip");
}

TEST_CASE("sm pruning: dense faults over the address, loaded, atomic and predicate words of a kernel give the same outcome with and without pruning (tx2)") {
  same_outcomes_dense("tx2");
}

TEST_CASE("sm pruning: the fault an ld.global reads after the core fell behind simulated time is live (flexgrip, vectorAdd fi32)") {
  // The load of block 4 (warp slot 4) issues at a cycle simulated time has already passed (the
  // previous instruction's transactions waited): its address %rd8 (slot 18, lane 8: word
  // 2 x (4 x 21 x 32 + 18 x 32 + 8) + 1, the high half) is read after a fault at an instant
  // between the issue cycle and the simulated time; the list spans both around it.
  TempDir d("sm-lag");
  std::string csv = "target,idx,bit,trigger,time_ps\n";
  for (uint64_t at = 190'000'000; at < 216'000'000; at += 200'000) csv += fmt::format("gpu.sm0.regs,6545,5,time,{}\n", at);
  fi::test::write_file(d("list.csv"), csv);
  std::vector<fi::test::Row> rows[2];
  for (bool pruning : {true, false}) {
    const std::string name = pruning ? "on" : "off";
    fi::test::write_file(d(name + ".json"), fmt::format(R"({{"name": "lag", "platform": {{"preset": "flexgrip"}},
  "workload": {{"name": "vectorAdd", "launch": "fi32"}}, "faults": "{}", "workers": 2, "pruning": {}}})",
                                                        d("list.csv"), pruning));
    const auto r = gpuvp::test::run_gpuvp(fmt::format("campaign run {} --db {} -q", d(name + ".json"), d(name + ".db")));
    INFO(r.err);
    REQUIRE(r.status == 0);
    rows[pruning] = fi::test::export_table(d(name + ".db")).rows;
  }
  REQUIRE(rows[0].size() == rows[1].size());
  size_t due = 0;
  for (size_t i = 0; i < rows[0].size(); ++i) {
    INFO("at " << rows[1][i].at("time_ps") << ": " << rows[1][i].at("detail"));
    CHECK(rows[1][i].at("outcome") == rows[0][i].at("outcome"));
    due += rows[0][i].at("outcome") == "due";
  }
  CHECK(due > 0);  // a wrong address: the list does reach the read
}
