// Lifetimes of the memories (models/memory/memory.cc): a tiny vectorAdd's buffers in global memory
// have the live intervals worked out by hand from the host program and the kernel (an input word is
// dead before its host copy writes it, live from there to the kernel's load of it, dead after; an
// output word is dead until the kernel's store, live from there to the host's copy back, which is
// what the campaign's output check compares, and dead after), a word written in part by the host is
// read, not replaced; and end to end, the same fault lists on global memory give the same outcome for
// every fault with and without pruning on flexgrip (batch scheduler) and tx2 (concurrent dispatcher,
// caches: the memory sees L2 refills and write-backs), dense lists (every bit of some words of each
// buffer at many instants) and drawn ones, and drawn ones over system memory (the kernel's code) and
// constant memory. Shared memory likewise (gpu.sm0.smem, simt_core_access.cc): a
// hand-written kernel's bytes (block header, parameter, a tile stored to and loaded from) have the
// hand-worked live intervals and live bit-time, and dense and drawn fault lists the same outcomes.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "common/subprocess.h"
#include "export_csv.h"
#include "faultinj/lifetimes.h"
#include "faultinj/temp_dir.h"
#include "platform/forked_json.h"
#include "pruning_compare.h"
#include "recorded_golden.h"
#include "sw/isa/address_map.h"

using namespace gpuvp;
using gpuvp::fi::GoldenRun;
using gpuvp::fi::Lifetimes;
using gpuvp::fi::LiveInterval;
using gpuvp::fi::test::TempDir;

namespace {
const std::string kPtx = std::string(GPUVP_TEST_DATA) + "/ptx/vectorAdd.ptx";
constexpr unsigned kN = 32;

// Host instants (ps) around each step of the program, and where its buffers are.
struct Program {
  uint64_t a = 0, b = 0, c = 0, d = 0;  // word indexes in gpu.gmem
  uint64_t copy_a[2], copy_b[2], part[2], launch[2], back[2];
};

uint64_t ps(rt::Runtime& rt) { return uint64_t(rt.now_ns() * 1000 + 0.5); }

// c = a + b for 32 floats, one block of one warp; d: a buffer the host writes 2 bytes of (in its word
// 1) after writing its words 0..3 whole, and the kernel never touches.
fi::test::Recorded record_vector_add(const std::string& preset, Program& pr) {
  Platform p(Config::preset(preset));
  return fi::test::record_golden(p, [&](rt::Runtime& rt) {
    auto m = rt.load_module(fi::test::file_text(kPtx), "vectorAdd.ptx");
    std::vector<float> a(kN), b(kN), c(kN);
    for (unsigned i = 0; i < kN; ++i) a[i] = float(i), b[i] = float(2 * i);
    const rt::DevPtr da = rt.malloc(kN * 4), db = rt.malloc(kN * 4), dc = rt.malloc(kN * 4), dd = rt.malloc(16);
    auto word = [](rt::DevPtr x) { return (x - amap::kGlobalBase) / 4; };
    pr.a = word(da), pr.b = word(db), pr.c = word(dc), pr.d = word(dd);
    const uint32_t four[4] = {1, 2, 3, 4};
    rt.memcpy_h2d(dd, four, 16);
    pr.copy_a[0] = ps(rt);
    rt.memcpy_h2d(da, a.data(), kN * 4);
    pr.copy_a[1] = pr.copy_b[0] = ps(rt);
    rt.memcpy_h2d(db, b.data(), kN * 4);
    pr.copy_b[1] = pr.part[0] = ps(rt);
    const uint16_t half = 7;
    rt.memcpy_h2d(dd + 6, &half, 2);  // the upper half of word 1
    pr.part[1] = pr.launch[0] = ps(rt);
    rt.launch(m, "vectorAdd", {1}, {kN}, rt::KernelArgs{}.ptr(da).ptr(db).ptr(dc).u32(kN));
    rt.synchronize();
    pr.launch[1] = pr.back[0] = ps(rt);
    rt.memcpy_d2h(c.data(), dc, kN * 4);
    pr.back[1] = ps(rt);
    for (unsigned i = 0; i < kN; ++i) REQUIRE(c[i] == float(3 * i));
  });
}

bool within(uint64_t t, const uint64_t (&w)[2]) { return t >= w[0] && t <= w[1]; }

void check_vector_add(const std::string& preset) {
  Program pr;
  const fi::test::Recorded r = record_vector_add(preset, pr);
  const Lifetimes lt(r.g, {"gpu.gmem"});
  REQUIRE(lt.observed("gpu.gmem"));
  const auto& t = r.t;  // SM 0's issue instants: the kernel's instructions
  REQUIRE(!t.empty());
  const uint64_t kstart = t.front(), kend = pr.launch[1];
  for (unsigned i : {0u, 5u, 31u}) {
    INFO("word " << i);
    // Input a[i]: before its copy, the next access is the copy's write: dead.
    LiveInterval iv = lt.interval("gpu.gmem", pr.a + i, pr.copy_a[0] > 0 ? pr.copy_a[0] - 1 : 0);
    CHECK(iv.kind == LiveInterval::Dead);
    CHECK(within(iv.next_ps, pr.copy_a));
    // After the copy, before the kernel: live, next read by the kernel's load of a (after its first issue).
    iv = lt.interval("gpu.gmem", pr.a + i, pr.copy_a[1] + 1);
    CHECK(iv.kind == LiveInterval::Live);
    CHECK(iv.next_ps >= kstart);
    CHECK(iv.next_ps <= kend);
    // Every instant between the copy and that load is one class (live, shared).
    CHECK(iv.shared);
    CHECK(lt.interval("gpu.gmem", pr.a + i, kstart).next_ps == iv.next_ps);
    // After the kernel, no one reads a again: dead to the end.
    CHECK(lt.interval("gpu.gmem", pr.a + i, kend + 1).kind == LiveInterval::Dead);
    CHECK(lt.interval("gpu.gmem", pr.a + i, kend + 1).next_ps == 0);
    // b likewise.
    CHECK(lt.interval("gpu.gmem", pr.b + i, pr.copy_b[0] - 1).kind == LiveInterval::Dead);
    CHECK(lt.interval("gpu.gmem", pr.b + i, pr.copy_b[1] + 1).kind == LiveInterval::Live);
    // Output c[i]: without caches (flexgrip), dead until the kernel's store ...
    iv = lt.interval("gpu.gmem", pr.c + i, pr.copy_a[0]);
    if (preset == "flexgrip") {
      CHECK(iv.kind == LiveInterval::Dead);
      CHECK(iv.next_ps >= kstart);
      CHECK(iv.next_ps <= kend);
    }
    // ... then live until the host copies it back (what the output check compares), dead after. With
    // tx2's write-back L2 the memory sees the stored line only when the copy back pulls it through the
    // L2: its word is never written by the kernel, and read (conservatively live) by the copy back.
    iv = lt.interval("gpu.gmem", pr.c + i, kend - 1);
    CHECK(iv.kind == LiveInterval::Live);
    CHECK(within(iv.next_ps, pr.back));
    CHECK(lt.interval("gpu.gmem", pr.c + i, pr.back[1] + 1).kind == LiveInterval::Dead);
  }
  // d: words 0 and 2 were written whole before the program's other copies and never read: dead from
  // their write on. Word 1 was written whole, then in part (2 bytes): the part-write keeps its other
  // half, so a fault before it is live (its lower half is still there), though no one reads it later.
  CHECK(lt.interval("gpu.gmem", pr.d + 0, pr.copy_a[0]).kind == LiveInterval::Dead);
  CHECK(lt.interval("gpu.gmem", pr.d + 2, pr.copy_a[0]).kind == LiveInterval::Dead);
  const LiveInterval part = lt.interval("gpu.gmem", pr.d + 1, pr.copy_a[0]);
  CHECK(part.kind == LiveInterval::Live);
  CHECK(within(part.next_ps, pr.part));
  CHECK(lt.interval("gpu.gmem", pr.d + 1, pr.part[1] + 1).kind == LiveInterval::Dead);
  // A word of gmem no one touched: dead.
  CHECK(lt.interval("gpu.gmem", pr.d + 64, kstart).kind == LiveInterval::Dead);
  // ACE of a's 32 words over the run: each live from its copy to its load, no more, no less than from
  // the copy's end to the kernel's first issue and at most from the copy's start to the kernel's end.
  const fi::WordRanges a_words{{pr.a, pr.a + kN}};
  const double live = lt.ace("gpu.gmem", 0, pr.back[1] + 1, a_words).live_bit_ps;
  CHECK(live >= double(kstart - pr.copy_a[1]) * 32 * kN);
  CHECK(live <= double(kend - pr.copy_a[0]) * 32 * kN);
  // And c: on flexgrip from the store to the copy back (whose read is at its call: the host keeps
  // simulated time), at most from the kernel's start; on tx2 never: the L2 writes the line back at the
  // instant the copy back reads it, the memory's word is replaced before it is read.
  const double live_c = lt.ace("gpu.gmem", 0, pr.back[1] + 1, {{pr.c, pr.c + kN}}).live_bit_ps;
  if (preset == "flexgrip") {
    CHECK(live_c > 0);
    CHECK(live_c <= double(pr.back[0] - kstart) * 32 * kN);
  } else {
    CHECK(live_c == 0);
  }
}
}  // namespace

TEST_CASE("mem lifetimes: vectorAdd's buffers in global memory are live from producer to last consumer (flexgrip)") {
  check_vector_add("flexgrip");
}

TEST_CASE("mem lifetimes: vectorAdd's buffers in global memory are live from producer to last consumer (tx2)") {
  check_vector_add("tx2");
}

TEST_CASE("mem lifetimes: recording leaves the golden run unchanged") {
  for (const std::string preset : {"flexgrip", "tx2"}) {
    INFO(preset);
    std::string runs[2];
    for (int rec = 0; rec < 2; ++rec) {
      runs[rec] = json_in_child([&] {
        Platform p(Config::preset(preset));
        std::vector<AccessEvent> log;
        if (rec) p.registry().record_accesses(&log);
        std::vector<float> c(kN);
        p.run([&](rt::Runtime& rt) {
          auto m = rt.load_module(fi::test::file_text(kPtx), "vectorAdd.ptx");
          std::vector<float> a(kN, 1.5f);
          const rt::DevPtr da = rt.malloc(kN * 4), dc = rt.malloc(kN * 4);
          rt.memcpy_h2d(da, a.data(), kN * 4);
          rt.launch(m, "vectorAdd", {1}, {kN}, rt::KernelArgs{}.ptr(da).ptr(da).ptr(dc).u32(kN));
          rt.synchronize();
          rt.memcpy_d2h(c.data(), dc, kN * 4);
        });
        p.registry().record_accesses(nullptr);
        return nlohmann::json{{"run", fmt::format("end {} hash {} c {} log {}", p.kernel_windows().back().second,
                                                  p.state_hash(), fmt::join(c, ","), log.empty() ? "empty" : "some")}};
      }, "recording").at("run").get<std::string>();
    }
    CHECK(runs[0].find("log empty") != std::string::npos);
    CHECK(runs[1].find("log some") != std::string::npos);
    CHECK(runs[0].substr(0, runs[0].find(" log")) == runs[1].substr(0, runs[1].find(" log")));
    CHECK(runs[0].find(" c 3,3,3") != std::string::npos);
  }
}

namespace {
using fi::test::Compared;
using fi::test::compare_runs;

// The exec job of vectorAdd (n = 64, two warps): args[0] = a, args[1] = b, args[2] = c.
std::string exec_head(const std::string& preset) {
  return fmt::format(R"({{"name": "mem pruning", "platform": {{"preset": "{}"}},
  "exec": {{"ptx": "{}", "kernel": "vectorAdd", "grid": [1], "block": [64],
           "args": [{{"buffer": {{"type": "f32", "count": 64, "init": "iota"}}}},
                    {{"buffer": {{"type": "f32", "count": 64, "init": "iota"}}}},
                    {{"buffer": {{"type": "f32", "count": 64}}}}, {{"u32": 64}}]}},
  "workers": 2, )",
                     preset, kPtx);
}

// Dense listed faults: bits of a word of each buffer (the first and the last of a and c, one of b; all
// eight nibbles' low bits of a[0]) and of an untouched word, at about 40 instants over the window.
void same_outcomes_dense(const std::string& preset) {
  TempDir d("mem-dense-" + preset);
  const std::string head = exec_head(preset);
  const auto [from, to] = fi::test::golden_window(d, head, "gpu.gmem");
  const double period = 1e6 / (preset == "tx2" ? 1300.0 : 100.0);  // the presets' clocks
  const uint64_t step = std::max<uint64_t>(1, uint64_t(double(to - from) / period / 40));
  // The runtime allocates first fit from 256 bytes into global memory, 256-byte aligned, never
  // adjacent: a (256 bytes) at byte 256, b at 768, c at 1280: words 64, 192, 320.
  const uint64_t words[] = {64, 127, 192 + 17, 320, 383, 4096};
  std::string csv = "target,idx,bit,trigger,time_ps\n";
  size_t n = 0;
  for (uint64_t k = 0, j = 0; from + uint64_t(double(k) * period) < to; k += step)
    for (uint64_t w : words)
      for (unsigned bit = 0; bit < 32; bit += (w == 64 ? 4 : 19))
        if (fi::test::kept(k / step, j++, 4))  // CI's list: a quarter of them, in turn
          ++n, csv += fmt::format("gpu.gmem,{},{},time,{}\n", w, bit, from + uint64_t(double(k) * period));
  fi::test::write_file(d("list.csv"), csv);
  std::vector<fi::test::Row> rows[2];
  run_both(d, "dense", head + fmt::format(R"("faults": "{}")", d("list.csv")), rows, true);
  REQUIRE(rows[0].size() == n);
  const Compared c = compare_runs(rows);
  // The untouched word is dead throughout, and each buffer word before the host writes it; a word is
  // live (one class) from its write to its read; a flipped input or output word is an SDC.
  CHECK(c.dead > n / 20);
  CHECK(c.shared > n / 8);
  CHECK(c.not_masked > n / 20);
}

// Drawn faults over the buffers' words (and some never used) of global memory.
void same_outcomes_drawn(const std::string& preset) {
  TempDir d("mem-drawn-" + preset);
  const size_t count = fi::test::ci_or_dense<size_t>(60, 200);
  const std::string campaign = exec_head(preset) + fmt::format(R"("targets": ["gpu.gmem[0:511]"], "size": {{"count": {}}}, "seed": 24)", count);
  std::vector<fi::test::Row> rows[2];
  run_both(d, "drawn", campaign, rows, true);
  REQUIRE(rows[1].size() == count);
  const Compared c = compare_runs(rows);
  CHECK(c.dead > count / 2);  // most of the range is outside the buffers or before their writes
  CHECK(c.not_masked > 0);
}
}  // namespace

TEST_CASE("mem pruning: drawn faults over system and constant memory give the same outcome with and without pruning (flexgrip and tx2)") {
  for (const std::string preset : {"flexgrip", "tx2"}) {
    INFO(preset);
    TempDir d("sysmem-drawn-" + preset);
    // The kernel's code is at the start of system memory: its words are read at every fetch or decode.
    const std::string campaign = exec_head(preset) + R"("targets": ["gpu.sysmem[0:255]", "gpu.cmem[0:63]"], "size": {"count": 150}, "seed": 5)";
    std::vector<fi::test::Row> rows[2];
    run_both(d, "drawn", campaign, rows, true);
    REQUIRE(rows[1].size() == 150);
    const Compared c = compare_runs(rows);
    CHECK(c.dead > 50);
    CHECK(c.not_masked > 0);
  }
}

TEST_CASE("mem pruning: dense faults over global memory give the same outcome with and without pruning (flexgrip)") {
  same_outcomes_dense("flexgrip");
}

TEST_CASE("mem pruning: dense faults over global memory give the same outcome with and without pruning (tx2)") {
  same_outcomes_dense("tx2");
}

TEST_CASE("mem pruning: drawn faults over global memory give the same outcome with and without pruning (flexgrip and tx2)") {
  same_outcomes_drawn("flexgrip");
  same_outcomes_drawn("tx2");
}

namespace {
// tests/data/ptx/smem_access.ptx: its instructions (numbered from 0) that touch shared memory, and the
// block's bytes (one block, at the start of SM 0's shared memory): the header (16 bytes: the special
// registers' block shape and index), the parameter (8 bytes), the user region from 32 (16 + 8 rounded
// up to 16): tile[k] at 32 + 4k, 192 bytes; the block's region is 256 bytes.
enum : unsigned { kLdParam = 0, kTid = 1, kStShared = 5, kBar = 6, kLdShared = 7, kSmemInsts = 14 };
constexpr uint64_t kHeader = 0, kParam = 16, kTile = 32;
const std::string kSmemPtx = std::string(GPUVP_TEST_DATA) + "/ptx/smem_access.ptx";

void check_smem(const std::string& preset) {
  std::vector<uint32_t> out(32);
  Platform p(Config::preset(preset));
  const fi::test::Recorded r = fi::test::record_golden(p, [&](rt::Runtime& rt) {
    auto m = rt.load_module(fi::test::file_text(kSmemPtx), "smem_access.ptx");
    const rt::DevPtr d = rt.malloc(32 * 4);
    rt.launch(m, "sh", {1}, {32}, rt::KernelArgs{}.ptr(d));
    rt.synchronize();
    rt.memcpy_d2h(out.data(), d, 32 * 4);
  });
  for (uint32_t k = 0; k < 32; ++k) CHECK(out[k] == (k < 31 ? 2 * k + 1 : 31));  // tile[32] is the placement's 0
  const auto& t = r.t;
  REQUIRE(t.size() == kSmemInsts);
  const Lifetimes lt(r.g, {"gpu.sm0.smem"});
  REQUIRE(lt.observed("gpu.sm0.smem"));
  auto inst_of = [&](uint64_t ps) { return size_t(std::upper_bound(t.begin(), t.end(), ps) - t.begin()) - 1; };
  auto at = [&](uint64_t byte, uint64_t ps) { return lt.interval("gpu.sm0.smem", byte, ps); };
  // The placement wrote the whole region before the first instruction: a byte no one reads is dead
  // from there, the next access of the others is their instruction's.
  const LiveInterval unused = at(200, 0);
  CHECK(unused.kind == LiveInterval::Dead);
  const uint64_t placed = unused.next_ps;
  CHECK(placed > 0);
  CHECK(placed <= t[0]);
  CHECK(at(200, placed + 1).kind == LiveInterval::Dead);
  CHECK(at(200, placed + 1).next_ps == 0);
  // Header: read by mov %tid.x, dead after.
  const LiveInterval hdr = at(kHeader + 3, placed + 1);
  CHECK(hdr.kind == LiveInterval::Live);
  CHECK(inst_of(hdr.next_ps) == kTid);
  CHECK(at(kHeader, t[kTid + 2]).kind == LiveInterval::Dead);
  // Parameter: read by ld.param, dead after.
  const LiveInterval par = at(kParam + 7, placed + 1);
  CHECK(par.kind == LiveInterval::Live);
  // (At its instant, never before its issue, never after the next instruction's; it may come after
  // the next one's issue on tx2, where the first instruction waits for its fetch after issuing.)
  CHECK(par.next_ps >= t[kLdParam]);
  CHECK(par.next_ps <= hdr.next_ps);
  CHECK(at(kParam, t[kTid + 1]).kind == LiveInterval::Dead);
  // tile[5]: the placement's zero is dead (the store replaces it), the stored value live to lane 4's load.
  const uint64_t t5 = kTile + 4 * 5;
  const LiveInterval before = at(t5 + 2, t[0]);
  CHECK(before.kind == LiveInterval::Dead);
  CHECK(inst_of(before.next_ps) == kStShared);
  const uint64_t stored = before.next_ps;
  const LiveInterval after = at(t5, t[kBar]);
  CHECK(after.kind == LiveInterval::Live);
  CHECK(after.shared);
  CHECK(inst_of(after.next_ps) == kLdShared);
  const uint64_t loaded = after.next_ps;
  CHECK(at(t5, stored + 1).next_ps == loaded);  // every instant from the store to the load: one class
  CHECK(at(t5, loaded + 1).kind == LiveInterval::Dead);
  // tile[0]: stored, no lane reads it. tile[32]: never stored, lane 31 reads the placement's zero.
  CHECK(at(kTile, stored + 1).kind == LiveInterval::Dead);
  const LiveInterval t32 = at(kTile + 4 * 32 + 1, placed + 1);
  CHECK(t32.kind == LiveInterval::Live);
  CHECK(t32.next_ps == loaded);
  // Live bit-time of the whole shared memory, hand-worked from those chains: 16 header bytes from the
  // placement to mov %tid.x, 8 parameter bytes to ld.param, tile[1..31] from the store to the load,
  // tile[32] from the placement to the load; nothing else.
  const double bytes_ps = 16.0 * double(hdr.next_ps - placed) + 8.0 * double(par.next_ps - placed) +
                          4.0 * 31 * double(loaded - stored) + 4.0 * double(loaded - placed);
  CHECK(lt.ace("gpu.sm0.smem", 0, t.back() + 1000000).live_bit_ps == Approx(8 * bytes_ps));
}
}  // namespace

TEST_CASE("mem lifetimes: shared memory of a kernel is live from producer to last consumer (flexgrip)") {
  check_smem("flexgrip");
}

TEST_CASE("mem lifetimes: shared memory of a kernel is live from producer to last consumer (tx2)") {
  check_smem("tx2");
}

namespace {
std::string smem_head(const std::string& preset) {
  return fmt::format(R"({{"name": "smem pruning", "platform": {{"preset": "{}"}},
  "exec": {{"ptx": "{}", "kernel": "sh", "grid": [1], "block": [32],
           "args": [{{"buffer": {{"type": "u32", "count": 32}}}}]}},
  "workers": 2, )",
                     preset, kSmemPtx);
}

// Dense listed faults over the header, the parameter, tile[0], tile[5], tile[32] and an unused byte,
// at about 40 instants of the window; then drawn ones over the block's region.
void same_outcomes_smem(const std::string& preset) {
  TempDir d("smem-" + preset);
  const std::string head = smem_head(preset);
  const auto [from, to] = fi::test::golden_window(d, head, "gpu.sm0.smem");
  const double period = 1e6 / (preset == "tx2" ? 1300.0 : 100.0);  // the presets' clocks
  const uint64_t step = std::max<uint64_t>(1, uint64_t(double(to - from) / period / 40));
  const uint64_t bytes[] = {kHeader, kHeader + 12, kParam, kParam + 4, kTile, kTile + 20, kTile + 128, 200};
  std::string csv = "target,idx,bit,trigger,time_ps\n";
  size_t n = 0;
  for (uint64_t k = 0, j = 0; from + uint64_t(double(k) * period) < to; k += step)
    for (uint64_t b : bytes)
      for (unsigned bit = 0; bit < 8; bit += 3)
        if (fi::test::kept(k / step, j++, 4))  // CI's list: a quarter of them, in turn
          ++n, csv += fmt::format("gpu.sm0.smem,{},{},time,{}\n", b, bit, from + uint64_t(double(k) * period));
  fi::test::write_file(d("list.csv"), csv);
  std::vector<fi::test::Row> rows[2];
  run_both(d, "dense", head + fmt::format(R"("faults": "{}")", d("list.csv")), rows, true);
  REQUIRE(rows[0].size() == n);
  Compared c = compare_runs(rows);
  CHECK(c.dead > n / 2);
  CHECK(c.shared > n / 40);
  CHECK(c.not_masked > n / 40);
  const size_t count = fi::test::ci_or_dense<size_t>(75, 150);
  run_both(d, "drawn", head + fmt::format(R"("targets": ["gpu.sm0.smem[0:255]"], "size": {{"count": {}}}, "seed": 24)", count), rows, true);
  REQUIRE(rows[1].size() == count);
  c = compare_runs(rows);
  CHECK(c.dead > count / 2);
  CHECK(c.not_masked > 0);
}
}  // namespace

TEST_CASE("mem pruning: faults over shared memory give the same outcome with and without pruning (flexgrip)") {
  same_outcomes_smem("flexgrip");
}

TEST_CASE("mem pruning: faults over shared memory give the same outcome with and without pruning (tx2)") {
  same_outcomes_smem("tx2");
}
