// Lifetimes of the caches' arrays (models/cache/cache_record.cc): for a hand-written kernel that misses
// a word in the L1 and then hits it, the recorded accesses give the hand-worked live intervals (the
// sector written at the refill, the word read at the hit, the tag read at each lookup of its set, the
// L2's dirty word read when the host reads it back); and end to end, the same fault list on every
// array of the L1 data, instruction and constant caches and of the L2 gives the same outcome for every
// fault with and without pruning, on tx2 (write-through L1) and gtx480 (a write-back L1, L2 slices):
// dense lists (both end bits of accessed words at many instants, live and dead) and drawn faults.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "common/subprocess.h"
#include "export_csv.h"
#include "faultinj/lifetimes.h"
#include "faultinj/temp_dir.h"
#include "pruning_compare.h"
#include "recorded_golden.h"
#include "sw/isa/address_map.h"

using namespace gpuvp;
using gpuvp::fi::Lifetimes;
using gpuvp::fi::LiveInterval;
using gpuvp::fi::test::Recorded;
using gpuvp::fi::test::TempDir;

namespace {
const std::string kPtx = std::string(GPUVP_TEST_DATA) + "/ptx/cache_hit.ptx";
enum : size_t { kLd1 = 6, kLd2 = 8, kSt = 10, kInsts = 12 };

struct Run {
  Recorded r;
  uint64_t a = 0, out = 0;  // the buffers' device addresses
  std::vector<uint64_t> tags, valid;  // L1 and L2 state after the run (to find the lines)
};

// As the campaigns' exec job runs it: a (32 words, iota) and out (32 words, zero) allocated and copied
// in that order, one block of `threads`, both read back.
Run record_hit(Platform& p, unsigned threads) {
  Run run;
  run.r = fi::test::record_golden(p, [&](rt::Runtime& rt) {
    auto m = rt.load_module(fi::test::file_text(kPtx), kPtx);
    std::vector<uint32_t> a(32), out(32, 0);
    for (uint32_t i = 0; i < 32; ++i) a[i] = i;
    run.a = rt.malloc(128);
    rt.memcpy_h2d(run.a, a.data(), 128);
    run.out = rt.malloc(128);
    rt.memcpy_h2d(run.out, out.data(), 128);
    rt.launch(m, "hit", {1}, {threads}, rt::KernelArgs{}.ptr(run.a).ptr(run.out));
    rt.synchronize();
    rt.memcpy_d2h(a.data(), run.a, 128);
    rt.memcpy_d2h(out.data(), run.out, 128);
  });
  return run;
}

uint32_t serial_of(const fi::GoldenRun& g, const std::string& target) {
  for (const auto& t : g.targets)
    if (t.name == target) return t.serial;
  FAIL("no target " << target);
  return 0;
}

// The recorded accesses of one word, in time order (as Lifetimes orders them).
std::vector<AccessEvent> events(const fi::GoldenRun& g, const std::string& target, uint64_t word) {
  const uint32_t serial = serial_of(g, target);
  std::vector<AccessEvent> v;
  for (const AccessEvent& e : g.accesses) {
    if (e.target != serial) continue;
    const bool hit = !e.lanes ? e.index == word
                              : word >= e.index && (word - e.index) / e.stride < 32 &&
                                    (e.lanes >> ((word - e.index) / e.stride) & 1);
    if (hit) v.push_back(e);
  }
  std::stable_sort(v.begin(), v.end(), [](const AccessEvent& x, const AccessEvent& y) { return x.time_ps < y.time_ps; });
  return v;
}

std::string kinds(const std::vector<AccessEvent>& v) {
  std::string s;
  for (const AccessEvent& e : v) s += e.kind == Access::Write ? 'W' : 'R';
  return s;
}

// The line of a cache holding address `addr`: the valid line of the set whose tag is addr's (sets of
// `ways` lines of 128 bytes; index bits `index_bits`; the set may be XOR-hashed with the tag).
uint64_t line_of(const Registry& reg, const std::string& cache, uint64_t addr, unsigned ways, unsigned index_bits) {
  const uint64_t number = addr / 128, tag = number >> index_bits, sets = uint64_t(1) << index_bits;
  for (uint64_t set : {number % sets, (number ^ tag) % sets})
    for (unsigned w = 0; w < ways; ++w) {
      const uint64_t l = set * ways + w;
      if (reg.read(cache + ".valid", l) && reg.read(cache + ".tag", l) == tag) return l;
    }
  FAIL(cache << " holds no line of " << addr);
  return 0;
}
}  // namespace

TEST_CASE("cache lifetimes: an L1 miss then hit: the sector written at the refill, the word read at the hit, the tag read at each lookup, the L2's dirty word read by the host (tx2)") {
  Platform p(Config::preset("tx2"));
  const Run run = record_hit(p, 1);
  const std::vector<uint64_t>& t = run.r.t;
  REQUIRE(t.size() == kInsts);
  const Lifetimes lt(run.r.g);
  for (const char* a : {"tag", "valid", "lru", "data"}) {
    CHECK(lt.observed(fmt::format("gpu.sm0.l1d.{}", a)));
    CHECK(lt.observed(fmt::format("gpu.sm0.icache.{}", a)));
    CHECK(lt.observed(fmt::format("gpu.sm0.ccache.{}", a)));
    CHECK(lt.observed(fmt::format("gpu.l2.{}", a)));
  }
  CHECK(lt.observed("gpu.l2.dirty"));

  // tx2's L1: 24 KiB of 6 ways of 128-byte lines, 32 sets (5 index bits), 32-byte sectors. a is
  // 128-byte aligned: a[0] is word 0 of its line, a[0..7] its sector 0, the only one fetched.
  REQUIRE(run.a % 128 == 0);
  const uint64_t line = line_of(p.registry(), "gpu.sm0.l1d", run.a, 6, 5), w0 = line * 32;
  const auto e0 = events(run.r.g, "gpu.sm0.l1d.data", w0);
  // Filled by the miss and read by it (its request replayed once the sector is there), read by the hit.
  REQUIRE(kinds(e0) == "WRR");
  const uint64_t fill = e0[0].time_ps;
  CHECK(fill >= t[kLd1]);
  CHECK(fill < t[kLd2]);
  CHECK(e0[1].time_ps == fill);
  CHECK(e0[2].time_ps == t[kLd2]);  // the hit, at its instruction's instant (the core is ahead)
  for (uint64_t w = 1; w < 8; ++w) CHECK(kinds(events(run.r.g, "gpu.sm0.l1d.data", w0 + w)) == "W");  // filled, never read
  for (uint64_t w = 8; w < 32; ++w) CHECK(events(run.r.g, "gpu.sm0.l1d.data", w0 + w).empty());      // never fetched
  // The word is live from the refill to the hit, then dead; its neighbours are dead once filled. Only
  // this word of the L1 is ever read: the data array's live bit-time is 32 bits x that interval.
  const uint64_t mid = (fill + t[kLd2]) / 2;
  const LiveInterval live = lt.interval("gpu.sm0.l1d.data", w0, mid);
  CHECK(live.kind == LiveInterval::Live);
  CHECK(live.next_ps == t[kLd2]);
  CHECK(lt.interval("gpu.sm0.l1d.data", w0, t[kLd2] + 1).kind == LiveInterval::Dead);
  CHECK(lt.interval("gpu.sm0.l1d.data", w0 + 1, mid).kind == LiveInterval::Dead);
  // Before the fill: the fill's write kills a fault, but for a0 the same instant reads it too (the miss's
  // replay), and Lifetimes does not order the accesses of one instant: live, conservatively.
  CHECK(lt.interval("gpu.sm0.l1d.data", w0 + 1, fill - 1).kind == LiveInterval::Dead);
  CHECK(lt.interval("gpu.sm0.l1d.data", w0 + 1, fill - 1).next_ps == fill);
  CHECK(lt.interval("gpu.sm0.l1d.data", w0, fill - 1).kind == LiveInterval::Live);
  CHECK(lt.ace("gpu.sm0.l1d.data", 0, t.back() + 1000000).live_bit_ps == double(32 * (t[kLd2] - fill)));
  // The tag: written by the refill, read by the lookups of the miss's replay and of the hit (the
  // timing's presence check, the access); never before the fill (the way held no line).
  const auto tag = events(run.r.g, "gpu.sm0.l1d.tag", line);
  REQUIRE(tag.size() >= 3);
  CHECK(tag[0].kind == Access::Write);
  CHECK(tag[0].time_ps == fill);
  for (size_t i = 1; i < tag.size(); ++i) {
    CHECK(tag[i].kind == Access::Read);
    CHECK((tag[i].time_ps == fill || tag[i].time_ps == t[kLd2]));
  }
  CHECK(tag[1].time_ps == fill);
  CHECK(tag.back().time_ps == t[kLd2]);
  // The valid word: read by every lookup of the set (the launch's invalidation reads every line's, then
  // the miss's), written once, by the refill.
  const auto valid = events(run.r.g, "gpu.sm0.l1d.valid", line);
  CHECK(std::count_if(valid.begin(), valid.end(), [](const AccessEvent& e) { return e.kind == Access::Write; }) == 1);
  CHECK(valid.front().kind == Access::Read);
  CHECK(valid.front().time_ps < t[kLd1]);
  CHECK(valid.back().time_ps == t[kLd2]);

  // tx2's L2: 512 KiB of 16 ways, 256 sets (8 index bits). a[0]: filled from memory and read for the
  // L1 in one call, never again (the host's read-back finds it clean: only its dirty bits are read).
  const uint64_t la = line_of(p.registry(), "gpu.l2", run.a, 16, 8);
  const auto l2a = events(run.r.g, "gpu.l2.data", la * 32);
  REQUIRE(kinds(l2a) == "WR");
  CHECK(l2a[0].time_ps == l2a[1].time_ps);
  CHECK(l2a[0].time_ps >= t[kLd1]);
  CHECK(l2a[0].time_ps <= fill);
  // out[0]: the store's word is written in the L2 (a whole word), the line dirty; the host's read-back
  // after the kernel writes it back: a read, the word's last access. Live between them.
  const uint64_t lo = line_of(p.registry(), "gpu.l2", run.out, 16, 8);
  const auto l2o = events(run.r.g, "gpu.l2.data", lo * 32);
  REQUIRE(l2o.size() >= 2);
  CHECK(l2o.back().kind == Access::Read);
  CHECK(l2o.back().time_ps > t.back());
  const AccessEvent& stored = l2o[l2o.size() - 2];
  CHECK(stored.kind == Access::Write);
  CHECK(stored.time_ps >= t[kSt]);
  const LiveInterval dirty_word = lt.interval("gpu.l2.data", lo * 32, (stored.time_ps + l2o.back().time_ps) / 2);
  CHECK(dirty_word.kind == LiveInterval::Live);
  CHECK(dirty_word.next_ps == l2o.back().time_ps);
  CHECK(lt.interval("gpu.l2.data", lo * 32, l2o.back().time_ps + 1).kind == LiveInterval::Dead);
  const auto dirty = events(run.r.g, "gpu.l2.dirty", lo);
  REQUIRE(!dirty.empty());
  CHECK(dirty.back().kind == Access::Write);  // cleaned by the read-back
  CHECK(dirty.back().time_ps == l2o.back().time_ps);
}

namespace {
// The campaign head of the kernel on `preset` (with the configuration assignments `set`, JSON members).
std::string exec_head(const std::string& preset, const std::string& set) {
  return fmt::format(R"({{"name": "cache", "platform": {{"preset": "{}", "set": {{{}}}}},
  "exec": {{"ptx": "{}", "kernel": "hit", "grid": [1], "block": [32],
           "args": [{{"buffer": {{"type": "u32", "count": 32, "init": "iota"}}}}, {{"buffer": {{"type": "u32", "count": 32}}}}]}},
  "workers": 2, )",
                     preset, set, kPtx);
}

}  // namespace

TEST_CASE("cache lifetimes: recording leaves the golden run unchanged (tx2)") {
  // Here without recording; the campaign's golden run (`campaign check`) records every access.
  Platform p(Config::preset("tx2"));
  std::vector<uint32_t> a(32), out(32, 0);
  for (uint32_t i = 0; i < 32; ++i) a[i] = i;
  p.run([&](rt::Runtime& rt) {
    auto m = rt.load_module(fi::test::file_text(kPtx), kPtx);
    const rt::DevPtr da = rt.malloc(128);
    rt.memcpy_h2d(da, a.data(), 128);
    const rt::DevPtr dout = rt.malloc(128);
    rt.memcpy_h2d(dout, out.data(), 128);
    rt.launch(m, "hit", {1}, {32}, rt::KernelArgs{}.ptr(da).ptr(dout));
    rt.synchronize();
    rt.memcpy_d2h(out.data(), dout, 128);
  });
  for (uint32_t i = 0; i < 32; ++i) CHECK(out[i] == 2 * i + 1);  // (a + 1) + a
  TempDir d("cache-unchanged");
  const auto w = p.kernel_windows();
  REQUIRE(w.size() == 1);
  CHECK(fi::test::golden_window(d, exec_head("tx2", ""), "gpu.l2.data") == w[0]);
}

namespace {
// The observed cache arrays of SM 0 and the L2.
std::vector<std::string> cache_targets(const Registry& reg) {
  std::vector<std::string> v;
  for (const Target* t : reg.all()) {
    const std::string& n = t->name;
    const bool sm0 = n.rfind("gpu.sm0.l1d.", 0) == 0 || n.rfind("gpu.sm0.icache.", 0) == 0 ||
                     n.rfind("gpu.sm0.ccache.", 0) == 0;
    if (t->reads_observed && (sm0 || n.rfind("gpu.l2.", 0) == 0)) v.push_back(n);
  }
  return v;
}

// Per target, the first `count` words the golden run reads: words whose faults can matter, with live
// and dead intervals in turn.
std::vector<std::pair<std::string, uint64_t>> read_words(const fi::GoldenRun& g, const std::vector<std::string>& targets,
                                                         size_t count) {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const std::string& name : targets) {
    const uint32_t serial = serial_of(g, name);
    std::set<uint64_t> seen;
    for (const AccessEvent& e : g.accesses) {
      if (e.target != serial || e.kind == Access::Write || seen.size() == count) continue;
      const uint64_t w = e.lanes ? e.index + uint64_t(__builtin_ctz(e.lanes)) * e.stride : e.index;
      if (seen.insert(w).second) out.emplace_back(name, w);
    }
  }
  return out;
}

// Every bit of a tag, valid, dirty or age word; three of a data word. At the k-th instant of CI's list
// (a different choice at each): one of a data word's three and one in eight of a tag's; every bit of
// the narrow words (each a sector's valid or dirty bit, or an age: faults share a run only with faults
// in the same bit).
std::vector<unsigned> fault_bits(unsigned width, unsigned k) {
  std::vector<unsigned> all = {0, 7, 31};
  if (width != 32) all.resize(width), std::iota(all.begin(), all.end(), 0u);
  const unsigned every = width == 32 ? 3 : width > 4 ? 8 : 1;
  std::vector<unsigned> v;
  for (unsigned i = 0; i < all.size(); ++i)
    if (fi::test::kept(k, i, every)) v.push_back(all[i]);
  return v;
}

// Dense listed faults (every bit of the first 2 read words of each target but data's three, at 12 clock
// edges over the golden run's window; CI's list: `ci_words` words, `ci_instants` edges, fewer bits) and
// drawn ones over the whole arrays (200; CI's: 16), each list run with and without pruning.
void same_outcomes(const std::string& preset, const std::string& set_json, const std::string& set_assign,
                   unsigned ci_instants, size_t ci_words) {
  const unsigned instants = fi::test::ci_or_dense(ci_instants, 12u), drawn_count = fi::test::ci_or_dense(16u, 200u);
  Config cfg = Config::preset(preset);
  if (!set_assign.empty()) cfg.set(set_assign);
  Platform p(cfg);
  const Run run = record_hit(p, 32);
  const std::vector<std::string> targets = cache_targets(p.registry());
  REQUIRE(targets.size() >= 13);
  TempDir d("cache-pruning-" + preset);  // one folder per test: ctest runs them at once
  const std::string head = exec_head(preset, set_json);
  const auto [from, to] = fi::test::golden_window(d, head, "gpu.l2.data");
  const uint64_t period = p.clock_period_ps();
  const auto words = read_words(run.r.g, targets, fi::test::ci_or_dense<size_t>(ci_words, 2));
  std::string csv = "target,idx,bit,trigger,time_ps\n";
  size_t listed = 0;
  for (unsigned k = 0; k < instants; ++k)
    for (const auto& [name, w] : words)
      for (unsigned bit : fault_bits(p.registry().at(name).width, k)) {
        // Clock edges spread over the window (odd edge counts from its start).
        csv += fmt::format("{},{},{},time,{}\n", name, w, bit, from + ((to - from) / period * k / instants | 1) * period);
        ++listed;
      }
  fi::test::write_file(d("dense.csv"), csv);
  std::vector<fi::test::Row> rows[2];
  fi::test::run_both(d, "dense", head + fmt::format(R"("faults": "{}")", d("dense.csv")), rows, true);
  REQUIRE(rows[0].size() == listed);
  const fi::test::Compared c = fi::test::compare_runs(rows);
  // A word is dead from its refill or eviction to its next read, and most of the listed ones are
  // refilled after their first instants; faults of two instants between the same accesses share a run
  // (fewer with 3 or 4 instants than with 12, and CI's list keeps few of a tag's bits, the words that
  // share most); the read data words, tags and valid bits of the hit lines matter. (Full lists, tx2: 2388
  // listed, 839 dead, 1054 sharing a run, 88 not masked; gtx480: 2892, 985, 1399, 240. CI's: 158,
  // 73, 27, 8; 127, 34, 35, 4.)
  CHECK(c.dead > listed / 4);
  CHECK(c.shared > listed / 10);
  CHECK(c.not_masked > listed / 50);
  std::string list;
  for (const std::string& t : targets) list += (list.empty() ? "\"" : ", \"") + t + "\"";
  std::vector<fi::test::Row> drawn[2];
  fi::test::run_both(d, "drawn", head + fmt::format(R"("targets": [{}], "size": {{"count": {}}}, "seed": 24)", list, drawn_count),
                     drawn, true);
  REQUIRE(drawn[0].size() == drawn_count);
  CHECK(fi::test::compare_runs(drawn).dead > drawn_count / 2);
}
}  // namespace

TEST_CASE("cache pruning: dense and drawn faults in the L1 data, instruction and constant caches and the L2 give the same outcome with and without pruning (tx2)") {
  same_outcomes("tx2", "", "", 4, 1);  // CI's list: 4 instants, a word per array
}

TEST_CASE("cache pruning: dense and drawn faults in a write-back L1 and the sliced L2 give the same outcome with and without pruning (gtx480)") {
  // A run costs 4 times tx2's here (15 SMs, a larger L2): CI's list has 3 instants and a word per array.
  same_outcomes("gtx480", R"("sm.l1d.write_policy": "write_back")", "sm.l1d.write_policy=write_back", 3, 1);
}

// The memory behind tx2's L2 orders the SM's load miss at the instant the SM puts on its transaction
// (RequesterInstant), forwarded by the L2 onto its refill: the gmem read is at the L2's instant of
// that miss (the later of simulated time and the load's issue instant), between the two loads.
TEST_CASE("cache lifetimes: the memory behind the L2 records an SM's load miss at the L2's instant of it (tx2)") {
  Platform p(Config::preset("tx2"));
  const Run run = record_hit(p, 1);
  const std::vector<uint64_t>& t = run.r.t;
  REQUIRE(t.size() == kInsts);
  const uint64_t la = line_of(p.registry(), "gpu.l2", run.a, 16, 8);
  const auto l2a = events(run.r.g, "gpu.l2.data", la * 32);
  REQUIRE(kinds(l2a) == "WR");
  // a[0] in gmem: the host's copy writes it, the L2's refill for the first load reads it, the host's
  // read-back reads it.
  const auto g = events(run.r.g, "gpu.gmem", (run.a - amap::kGlobalBase) / 4);
  REQUIRE(kinds(g) == "WRR");
  const AccessEvent& miss = g[1];
  const uint64_t at = miss.kind == Access::ReadSpan ? miss.until_ps : miss.time_ps;
  CHECK(at == l2a[0].time_ps);  // the L2's instant of the same miss
  CHECK(at >= t[kLd1]);
  CHECK(at < t[kLd2]);
}
