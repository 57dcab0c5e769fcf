// The memory profiler, the protection of data objects by duplication / triplication and the fault
// models of the data-centric protection study (docs/reliability.md).
//
// The kernel (tests/data/ptx/scaleByWeight.ptx): out[i] = in[i] * w[0], 8 blocks of 32 threads,
// n = 256, on tx2 (32-byte coalescing segments; plain global loads not cached in the L1, so every
// load transaction leaves the SM). Hand count, per warp (one per block): in: 128 bytes = 4
// transactions, all in the warp's 128-byte block; w: one 4-byte transaction in w's only block; out:
// 4 write transactions. Addresses by the runtime's allocator (first fit from gmem base + 0x100,
// 256-aligned, a free byte after each allocation, in argument order; a protected object's copies are
// allocated at the launch, after the program's buffers): in 0x100 (1 KiB), w 0x600 (16 B), out 0x700
// (1 KiB), unused 0xc00 (256 B; the byte after it pushes the next to 0xe00), then w's copies at
// 0xe00 and 0xf00.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>

#include "faultinj/job.h"
#include "faultinj/mem_campaign.h"
#include "platform/platform.h"
#include "sw/runtime/object_host.h"
#include "sw/isa/address_map.h"
#include "common/subprocess.h"

using namespace gpuvp;
using namespace gpuvp::fi;

namespace {
constexpr uint64_t kIn = amap::kGlobalBase + 0x100, kW = amap::kGlobalBase + 0x600, kRep1 = amap::kGlobalBase + 0xe00,
                   kRep2 = amap::kGlobalBase + 0xf00;

nlohmann::json scale_desc() {
  return {{"ptx", std::string(GPUVP_TEST_DATA) + "/ptx/scaleByWeight.ptx"},
          {"kernel", "scaleByWeight"},
          {"grid", {8}},
          {"block", {32}},
          {"args",
           {{{"buffer", {{"type", "f32"}, {"count", 256}, {"init", "iota"}}}},
            {{"buffer", {{"type", "f32"}, {"count", 4}, {"init", "const"}, {"value", 2.0}}}},
            {{"buffer", {{"type", "f32"}, {"count", 256}}}},
            {{"buffer", {{"type", "f32"}, {"count", 64}}}},
            {{"i32", 256}}}}};
}

Config tx2(const std::string& dup = "", const std::string& trip = "") {
  Config c = Config::preset("tx2");
  c.set("protect.duplicate", dup, "test");
  c.set("protect.triplicate", trip, "test");
  return c;
}

// out[i] = atomicAdd(&w[i % 8], 1) over 64 threads: w (64 u32 from 0) at kIn, out 64 u32.
nlohmann::json atomic_desc() {
  return {{"ptx", std::string(GPUVP_TEST_DATA) + "/ptx/atomicCount.ptx"},
          {"kernel", "atomicCount"},
          {"grid", {2}},
          {"block", {32}},
          {"args",
           {{{"buffer", {{"type", "u32"}, {"count", 64}, {"init", "zero"}}}},
            {{"buffer", {{"type", "u32"}, {"count", 64}}}}}}};
}

JobFactory factory(const Config& c, const nlohmann::json& desc = scale_desc()) {
  return [c, desc] { return exec_job(c, desc, "memprot test"); };
}

MemCampaignResult campaign(const Config& c, const std::vector<StuckSet>& sets, const nlohmann::json& desc = scale_desc(),
                           std::vector<std::string> outputs = {}) {
  MemCampaignOptions o;
  o.workers = 2;
  o.check.outputs = std::move(outputs);
  return run_mem_campaign(factory(c, desc), sets, o);
}

bool masked(const RunResult& r) { return r.outcome == Outcome::Masked || r.outcome == Outcome::MaskedTiming; }
}  // namespace

TEST_CASE("memory profile: hand-counted accesses, L1 misses and warps of scaleByWeight on tx2") {
  const MemoryProfile p = profile_job(factory(tx2()), 0.1);
  REQUIRE(p.objects.size() == 4);
  const ObjectProfile &in = p.objects[0], &w = p.objects[1], &out = p.objects[2], &unused = p.objects[3];
  CHECK(in.name == "args[0]");
  CHECK(w.name == "args[1]");
  CHECK(in.base == kIn);
  CHECK(w.base == kW);
  REQUIRE(in.blocks.size() == 8);
  REQUIRE(w.blocks.size() == 1);
  REQUIRE(out.blocks.size() == 8);
  REQUIRE(unused.blocks.size() == 2);
  // The L1 takes a warp's access a 128-byte line at a time: one access per block and warp.
  for (const auto& b : in.blocks) CHECK((b.accesses == 1 && b.l1_misses == 1 && b.warps == 1));
  for (const auto& b : out.blocks) CHECK((b.accesses == 1 && b.l1_misses == 0 && b.warps == 1));
  for (const auto& b : unused.blocks) CHECK((b.accesses == 0 && b.l1_misses == 0 && b.warps == 0));
  CHECK(w.blocks[0].accesses == 8);
  CHECK(w.blocks[0].l1_misses == 8);
  CHECK(w.blocks[0].warps == 8);
  CHECK(p.accesses == 24);
  CHECK(p.bytes == 1024 + 16 + 1024 + 256);
  CHECK(in.read_only);
  CHECK(w.read_only);
  CHECK_FALSE(out.read_only);
  CHECK(std::fabs(w.access_share - 8.0 / 24) < 1e-12);
  CHECK(std::fabs(w.footprint_share - 16.0 / 2320) < 1e-12);
  // 10 % of 24 accesses: w's block alone (8 >= 2.4) is hot, so w is the one hot object.
  CHECK(p.hot_objects() == std::vector<std::string>{"args[1]"});
}

TEST_CASE("memory profile: ranking, hot blocks and hot objects of a constructed profile") {
  MemoryProfile p;
  auto obj = [&](const char* name, bool ro, std::vector<BlockProfile> blocks) {
    ObjectProfile o;
    o.name = name;
    o.read_only = ro;
    o.base = 0x1000 * (p.objects.size() + 1);
    o.size = blocks.size() * kProfileBlockBytes;
    for (auto& b : blocks) o.accesses += b.accesses;
    o.blocks = std::move(blocks);
    p.accesses += o.accesses;
    p.objects.push_back(o);
  };
  obj("big", true, {{5, 0, 1}, {5, 0, 1}, {5, 0, 1}, {5, 0, 1}});  // 20
  obj("table", true, {{50, 2, 30}});                                // 50
  obj("out", false, {{30, 0, 1}});                                   // 30
  p.hot_share = 0.6;  // 60 of 100: table (50) then out (30): 80 >= 60 after two blocks
  const auto r = p.ranked();
  REQUIRE(r.size() == 6);
  CHECK(p.objects[r[0].object].name == "table");
  CHECK(p.objects[r[1].object].name == "out");
  CHECK((r[2].object == 0 && r[2].block == 0));  // ties: lower address first
  CHECK((r[5].object == 0 && r[5].block == 3));
  CHECK(p.hot_blocks().size() == 2);
  for (auto& o : p.objects) o.hot = false;
  for (auto& b : p.hot_blocks()) p.objects[b.object].hot |= p.objects[b.object].read_only;
  CHECK(p.hot_objects() == std::vector<std::string>{"table"});  // out is written: never protected
  p.hot_share = 0.5;  // table's block alone holds 50 %
  CHECK(p.hot_blocks().size() == 1);
}

TEST_CASE("duplication: a stuck word in either copy of a protected object is detected, never an SDC") {
  // w[0] = 2.0f = 0x40000000: bit 0 stuck at 1 (in the original, then in the copy) and bits 16, 18
  // stuck at 1 change the word, so every warp's comparison of the two copies of w fails.
  const std::vector<StuckSet> sets = {{{kW, 0x1, 0x1}}, {{kRep1, 0x1, 0x1}}, {{kW, 0x50000, 0x50000}}};
  const auto dup = campaign(tx2("args[1]"), sets);
  for (const auto& r : dup.runs) {
    INFO(r.fault_id << " " << to_string(r.outcome) << " " << r.detail);
    CHECK(r.outcome == Outcome::DUE);
    // Recorded as its own DUE kind (through the engine's child-to-leader record), not as `other`.
    CHECK(r.due == DueKind::Detected);
    CHECK(detected_error(r));
    // The kind prefixes the message once.
    CHECK(r.detail.find("detected error: the two copies of 'args[1]' differ in [") != std::string::npos);
    CHECK(r.detail.find("detected error: detected error") == std::string::npos);
  }
  CHECK(dup.by_due[size_t(DueKind::Detected)] == 3);
  CHECK(dup.by_due[size_t(DueKind::Other)] == 0);
  CHECK(parse_due_kind(to_string(DueKind::Detected)) == DueKind::Detected);  // the store's text
  CHECK(due_kind_of("detected") == DueKind::Detected);
  CHECK(due_kind_of("no such kind") == DueKind::Other);
  // The same stuck bit without protection: w[0] = 2.0f becomes 0x40000001, every out[i > 0] differs.
  const auto plain = campaign(tx2(), {sets[0]});
  CHECK(plain.runs[0].outcome == Outcome::SDC);
}

TEST_CASE("triplication: one faulty copy is corrected, the same bit stuck in two copies is not") {
  const std::vector<StuckSet> sets = {{{kW, 0x1, 0x1}},
                                      {{kRep1, 0x1, 0x1}},
                                      {{kRep2, 0x80000000, 0x80000000}},
                                      {{kW, 0x1, 0x1}, {kRep2, 0x1, 0x1}}};
  const auto trip = campaign(tx2("", "args[1]"), sets);
  CHECK(masked(trip.runs[0]));
  CHECK(masked(trip.runs[1]));
  CHECK(masked(trip.runs[2]));
  // Two copies agree on the faulty bit: the majority is the faulty value (a documented limit).
  CHECK(trip.runs[3].outcome == Outcome::SDC);
}

TEST_CASE("protection: faults in an unprotected object give the outcomes of a plain run") {
  SplitMix64 rng(7);
  std::vector<StuckSet> sets;
  for (int i = 0; i < 24; ++i) {
    const uint32_t m = non_adjacent_bits(rng, 2 + unsigned(i % 3));
    sets.push_back({{kIn + 4 * rng.uniform(256), m, uint32_t(rng.next()) & m}});
  }
  const auto plain = campaign(tx2(), sets), dup = campaign(tx2("args[1]"), sets);
  std::map<Outcome, int> seen;
  for (size_t i = 0; i < sets.size(); ++i) {
    CHECK(plain.runs[i].outcome == dup.runs[i].outcome);
    ++seen[plain.runs[i].outcome];
  }
  CHECK(seen[Outcome::SDC] > 0);  // the comparison covers corrupted outputs, not only masked runs
}

TEST_CASE("protection: fault-free outputs identical, and no protected access costs no extra cycle") {
  const GoldenRun plain = run_golden(factory(tx2()));
  const GoldenRun dup = run_golden(factory(tx2("args[1]")));
  const GoldenRun trip = run_golden(factory(tx2("", "args[1]")));
  const GoldenRun idle = run_golden(factory(tx2("args[3]")));  // the kernel never reads args[3]
  CHECK(dup.output_hash == plain.output_hash);
  CHECK(trip.output_hash == plain.output_hash);
  CHECK(idle.output_hash == plain.output_hash);
  CHECK(idle.kernel_cycles == plain.kernel_cycles);
  // The copies' reads cross the arbiter, L2 and DRAM: protecting the weight costs cycles.
  CHECK(dup.kernel_cycles > plain.kernel_cycles);
  CHECK(trip.kernel_cycles >= dup.kernel_cycles);
}

TEST_CASE("protection: atomics on a protected object compare (duplication) or vote (triplication) old values") {
  // w[0] bit 31 stuck at 1 in the original: its atomics return 0x80000000 + k, the copies' k. The
  // check compares out only (w, which the atomics write, keeps the stuck bit whatever the protection).
  const std::vector<StuckSet> sets = {{{kIn, 0x80000000, 0x80000000}}};
  const std::vector<std::string> out{"args[1]"};
  const auto dup = campaign(tx2("args[0]"), sets, atomic_desc(), out);
  INFO(dup.runs[0].detail);
  CHECK(detected_error(dup.runs[0]));
  CHECK(dup.runs[0].detail.find("the two copies of 'args[0]' differ at") != std::string::npos);
  CHECK(masked(campaign(tx2("", "args[0]"), sets, atomic_desc(), out).runs[0]));
  CHECK(campaign(tx2(), sets, atomic_desc(), out).runs[0].outcome == Outcome::SDC);
  // Fault-free: the same output as the plain run.
  CHECK(run_golden(factory(tx2("args[0]"), atomic_desc())).output_hash ==
        run_golden(factory(tx2(), atomic_desc())).output_hash);
}

namespace {
// scaleByWeight (8 blocks of 32 threads) with w duplicated, launched twice; `between` runs between the
// launches. Simulated in a child process (run_golden: SystemC elaborates once per process); the
// second launch's out[1] and out[5] come back as the golden run's info.
class TwoLaunchJob : public Job {
 public:
  using Between = std::function<void(Platform&, rt::Runtime&, rt::DevPtr w)>;
  // Before the first launch: writes w and returns the stream the first launch goes to.
  using Before = std::function<rt::Stream(rt::Runtime&, rt::DevPtr w)>;
  explicit TwoLaunchJob(Between b, Before first = {})
      : Job(tx2("w"), "two launches"), between_(std::move(b)), before_(std::move(first)) {}
  void attach(Platform& p) override { p_ = &p; }
  void run(rt::Runtime& rt) override {
    rt::Module m = rt.load_module(test::slurp(std::string(GPUVP_TEST_DATA) + "/ptx/scaleByWeight.ptx"),
                                  "scaleByWeight.ptx");
    std::vector<float> in(256);
    for (int i = 0; i < 256; ++i) in[i] = float(i);
    const rt::DevPtr din = rt.upload(in), w = rt.upload(std::vector<float>{2, 0, 0, 0}), dout = rt.malloc(1024),
                     unused = rt.malloc(256);
    rt::name_allocation(rt, w, "w");
    rt::KernelArgs a;
    a.ptr(din).ptr(w).ptr(dout).ptr(unused).i32(256);
    if (before_) rt.launch_async(before_(rt, w), m, "scaleByWeight", {8}, {32}, a);
    else rt.launch(m, "scaleByWeight", {8}, {32}, a);
    rt.synchronize();
    between_(*p_, rt, w);
    rt.launch(m, "scaleByWeight", {8}, {32}, a);
    rt.synchronize();
    out_ = rt.download<float>(dout, 256);
  }
  std::vector<uint8_t> output() const override {
    const auto* b = reinterpret_cast<const uint8_t*>(out_.data());
    return {b, b + out_.size() * 4};
  }
  nlohmann::json golden_info() const override {
    uint32_t bits = 0;
    std::memcpy(&bits, &out_[1], 4);
    return {{"out1_bits", bits}, {"out5", out_[5]}};
  }

 private:
  Between between_;
  Before before_;
  Platform* p_ = nullptr;
  std::vector<float> out_;
};

nlohmann::json two_launches(const TwoLaunchJob::Between& between, const TwoLaunchJob::Before& first = {}) {
  return run_golden([between, first] { return std::make_unique<TwoLaunchJob>(between, first); }).info;
}
}  // namespace

TEST_CASE("protection: every host write reaches every copy, and the copies are never refreshed from the original") {
  // An asynchronous copy (tx2: concurrent mode) rewrites w[0]: no false mismatch, out[i] = 3 i.
  nlohmann::json out = two_launches([](Platform&, rt::Runtime& rt, rt::DevPtr w) {
    static const float three = 3.0f;
    rt.memcpy_h2d_async(w, &three, 4, 0);
    rt.stream_synchronize(0);
  });
  CHECK(out.at("out5").get<float>() == 15.0f);
  // So does a memset: w[0] = 0x01010101, out[1] = 1 * w[0] bit for bit.
  out = two_launches([](Platform&, rt::Runtime& rt, rt::DevPtr w) { rt.memset(w, 1, 4); });
  CHECK(out.at("out1_bits").get<uint32_t>() == 0x01010101u);
  // A stuck bit in the original's w[0] after the first launch, then a host write of w[0]: the copy
  // holds the host's 3.0f, the original 3.0f with bit 0 forced: detected, not spread into the copy.
  CHECK_THROWS_WITH(two_launches([](Platform& p, rt::Runtime& rt, rt::DevPtr w) {
                      static const float three = 3.0f;
                      p.stick_global(w, 0x1, 0x1);
                      rt.memcpy_h2d(w, &three, 4);
                    }),
                    Catch::Contains("the two copies of 'w' differ"));
  // w written by a copy still queued in a non-blocking stream when that stream's launch makes the copy
  // of w: the copy is made of w as that copy leaves it (w[0] = 3), not of the bytes before it.
  out = two_launches([](Platform&, rt::Runtime&, rt::DevPtr) {},
                     [](rt::Runtime& rt, rt::DevPtr w) {
                       static const float three = 3.0f;
                       const rt::Stream s = rt.create_stream(0, true);
                       rt.memcpy_h2d_async(w, &three, 4, s);
                       return s;
                     });
  CHECK(out.at("out5").get<float>() == 15.0f);
}

namespace {
// Chi-square statistic of observed counts against expected probabilities.
double chi_square(const std::vector<uint64_t>& seen, const std::vector<double>& p, uint64_t n) {
  double x = 0;
  for (size_t i = 0; i < seen.size(); ++i) {
    const double e = p[i] * double(n);
    x += (double(seen[i]) - e) * (double(seen[i]) - e) / e;
  }
  return x;
}

MemoryProfile five_block_profile() {
  MemoryProfile p;
  ObjectProfile o;
  o.name = "x";
  o.base = 0x10000;
  o.size = 5 * kProfileBlockBytes;
  o.blocks = {{40, 1, 1}, {30, 2, 1}, {20, 3, 1}, {6, 4, 1}, {4, 0, 1}};
  o.accesses = 100;
  p.accesses = 100;
  p.objects.push_back(o);
  p.hot_share = 0.6;  // blocks 0 and 1 (70 >= 60) are hot
  return p;
}

std::vector<uint64_t> histogram(const BlockSelector& s, uint64_t n, unsigned per_draw = 1) {
  SplitMix64 rng(99);
  std::vector<uint64_t> h(5, 0);
  for (uint64_t i = 0; i < n; ++i)
    for (const BlockRef& b : s.draw(rng, per_draw)) ++h[b.block];
  return h;
}
}  // namespace

TEST_CASE("fault models: block choices draw with their documented distributions (chi-square)") {
  const MemoryProfile p = five_block_profile();
  const uint64_t n = 20000;
  // Critical values at the 0.1 % level: 1 degree of freedom 10.83, 2: 13.82, 3: 16.27.
  const auto hot = histogram(*hot_block_selector(p), n);
  CHECK(hot[2] + hot[3] + hot[4] == 0);
  CHECK(chi_square({hot[0], hot[1]}, {0.5, 0.5}, n) < 10.83);
  const auto cold = histogram(*cold_block_selector(p), n);
  CHECK(cold[0] + cold[1] == 0);
  CHECK(chi_square({cold[2], cold[3], cold[4]}, {1.0 / 3, 1.0 / 3, 1.0 / 3}, n) < 13.82);
  // L1 misses 1, 2, 3, 4, 0: block 4 never, the others with probability misses / 10.
  const auto miss = histogram(*miss_weighted_block_selector(p), n);
  CHECK(miss[4] == 0);
  CHECK(chi_square({miss[0], miss[1], miss[2], miss[3]}, {0.1, 0.2, 0.3, 0.4}, n) < 16.27);
  // Several blocks per run are distinct; asking for more blocks than there are is an error.
  SplitMix64 rng(5);
  for (int i = 0; i < 100; ++i) {
    auto d = cold_block_selector(p)->draw(rng, 3);
    CHECK((d[0].block != d[1].block && d[1].block != d[2].block && d[0].block != d[2].block));
  }
  CHECK_THROWS(hot_block_selector(p)->draw(rng, 3));
}

TEST_CASE("fault models: stuck bits are k, pairwise non-adjacent, in a word of the block") {
  SplitMix64 rng(3);
  std::vector<uint64_t> per_bit(32, 0);
  for (unsigned k = 2; k <= 4; ++k)
    for (int i = 0; i < 3000; ++i) {
      const uint32_t m = non_adjacent_bits(rng, k);
      CHECK(unsigned(__builtin_popcount(m)) == k);
      CHECK((m & (m >> 1)) == 0);
      for (unsigned b = 0; b < 32; ++b) per_bit[b] += (m >> b) & 1;
    }
  for (uint64_t c : per_bit) CHECK(c > 0);
  const MemoryProfile p = five_block_profile();
  for (int i = 0; i < 200; ++i) {
    const StuckWord w = stuck_at_bits(rng, p, {0, 3, 0x10000 + 3 * kProfileBlockBytes}, 3);
    CHECK(w.addr % 4 == 0);
    CHECK(w.addr >= 0x10000 + 3 * kProfileBlockBytes);
    CHECK(w.addr < 0x10000 + 4 * kProfileBlockBytes);
    CHECK((w.values & ~w.mask) == 0);
  }
}

namespace {
// Chi-square of `draws` masks of non_adjacent_bits(k, width) against the uniform distribution over
// the `sets` non-adjacent k-sets of `width` bits (C(width + 1 - k, k), counted by hand).
double non_adjacent_chi_square(unsigned k, unsigned width, size_t sets, uint64_t draws) {
  SplitMix64 rng(11);
  std::map<uint32_t, uint64_t> seen;
  for (uint64_t i = 0; i < draws; ++i) {
    const uint32_t m = non_adjacent_bits(rng, k, width);
    REQUIRE(unsigned(__builtin_popcount(m)) == k);
    REQUIRE((m & (m >> 1)) == 0);
    REQUIRE((width == 32 || m >> width == 0));
    ++seen[m];
  }
  REQUIRE(seen.size() == sets);  // every set drawn, no other
  std::vector<uint64_t> counts;
  for (const auto& [m, c] : seen) counts.push_back(c);
  return chi_square(counts, std::vector<double>(sets, 1.0 / double(sets)), draws);
}
}  // namespace

TEST_CASE("fault models: up to 16 non-adjacent bits drawn fast and uniformly (chi-square)") {
  // Critical values at the 0.1 % level: 16 degrees of freedom 39.25, 54: 91.87, 464: 563.86.
  // k = 16 of 32: 17 sets (which one of 17 even-spaced slots is skipped); rejection would never end.
  CHECK(non_adjacent_chi_square(16, 32, 17, 17000) < 39.25);
  // The direct draw (k > 8): k = 9 of 19 bits, C(11, 9) = 55 sets.
  CHECK(non_adjacent_chi_square(9, 19, 55, 27500) < 91.87);
  // The rejection draw the published tables used (k <= 8): k = 2 of 32, C(31, 2) = 465 sets.
  CHECK(non_adjacent_chi_square(2, 32, 465, 46500) < 563.86);
  SplitMix64 rng(1);
  CHECK_THROWS_WITH(non_adjacent_bits(rng, 5, 8), Catch::Contains("expected 1..4"));
}

TEST_CASE("fault models: a word partly past the object's end is stuck only in its bytes inside") {
  MemoryProfile p = five_block_profile();
  SplitMix64 rng(5);
  // 130 bytes: block 1 holds 2 bytes, one word with 16 bits inside the object.
  p.objects[0].size = 130;
  for (int i = 0; i < 300; ++i) {
    const StuckWord w = stuck_at_bits(rng, p, {0, 1, 0x10000 + kProfileBlockBytes}, 2);
    CHECK(w.addr == 0x10000 + 128);
    CHECK(w.mask >> 16 == 0);
  }
  // 133 bytes: block 1 is a full word and 1 byte (8 bits: room for 4 non-adjacent bits, not 5).
  p.objects[0].size = 133;
  std::map<uint64_t, int> words;
  for (int i = 0; i < 300; ++i) {
    const StuckWord w = stuck_at_bits(rng, p, {0, 1, 0x10000 + kProfileBlockBytes}, 2);
    ++words[w.addr];
    if (w.addr == 0x10000 + 132) CHECK(w.mask >> 8 == 0);
    CHECK(stuck_at_bits(rng, p, {0, 1, 0x10000 + kProfileBlockBytes}, 5).addr == 0x10000 + 128);
  }
  CHECK(words.size() == 2);
}

TEST_CASE("mem-campaign: bad output checks and option combinations exit 2 naming the options") {
  const std::string base = "mem-campaign --preset tx2 --workload matVec --launch tall --runs 2 ";
  for (const char* bad : {"--output-type f33", "--max-share 2", "--max-share -0.5", "--rel -2", "--abs -1", "--hot-share 0"}) {
    const test::RunResult r = test::run_gpuvp(base + bad);
    INFO(bad << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find(std::string(bad).substr(0, std::string(bad).find(' '))) != std::string::npos);
  }
  CHECK(test::run_gpuvp(base + "--hot-share 0").err.find("(0, 1]") != std::string::npos);
  // --protect-hot chooses the objects itself: with protect.* it is refused, whichever key.
  for (const char* set : {"protect.duplicate=A", "protect.triplicate=A"}) {
    const test::RunResult r = test::run_gpuvp(base + "--protect-hot detect --set " + set);
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("--protect-hot detect and --set " + std::string(set)) != std::string::npos);
  }
  // matVec's hot blocks are x's two: three hot blocks per run cannot be drawn.
  test::RunResult r = test::run_gpuvp(base + "--blocks 3 --choice hot");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find("--blocks 3 --bits 2 --choice hot: 3 faulty blocks asked for, 2 blocks to choose from") !=
        std::string::npos);
  // A kernel that writes nothing (n = 0): the hint is mem-campaign's, not a campaign file's key.
  nlohmann::json d = scale_desc();
  d["args"][4] = {{"i32", 0}};
  const std::string file = test::temp_path("nowrite.json");
  std::ofstream(file) << d.dump();
  r = test::run_gpuvp(fmt::format("mem-campaign --preset tx2 --launch-file {} --runs 1", file));
  INFO(r.err);
  CHECK(r.status != 0);
  CHECK(r.err.find("the kernel wrote no buffer") != std::string::npos);
  CHECK(r.err.find("mem-campaign compares the buffers the kernel writes") != std::string::npos);
  CHECK(r.err.find("check.outputs") == std::string::npos);
  std::remove(file.c_str());
}

TEST_CASE("profile-memory and mem-campaign: output, and bad input exits 2 naming it") {
  const std::string csv = test::temp_path("blocks.csv");
  test::RunResult r = test::run_gpuvp(fmt::format("profile-memory --preset tx2 --workload matVec --launch tall --csv {}", csv));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  // x (64 floats, 2 blocks) is read by each of the 4 blocks' 2 warps in every one of the 64 loop steps,
  // one 4-byte transaction each: 256 accesses per block of x, 512 in all; A's blocks (256 x 64 floats,
  // 512 blocks) are each read far less often, so x's two blocks rank first.
  CHECK(r.out.find("hot objects: x\n") != std::string::npos);
  std::ifstream f(csv);
  std::string header, first;
  std::getline(f, header);
  std::getline(f, first);
  CHECK(header == "rank,object,block,addr,accesses,l1_misses,warps,hot");
  CHECK(first.rfind("0,x,0,", 0) == 0);
  CHECK(first.find(",256,256,8,1") != std::string::npos);
  std::remove(csv.c_str());
  r = test::run_gpuvp("profile-memory --workload nosuch");
  CHECK(r.status == 2);
  CHECK(r.err.find("nosuch") != std::string::npos);
  r = test::run_gpuvp("mem-campaign --workload matVec --choice warm");
  CHECK(r.status == 2);
  CHECK(r.err.find("--choice") != std::string::npos);
  r = test::run_gpuvp("run --workload matVec --set protect.duplicate=x,x");
  CHECK(r.status == 2);
  CHECK(r.err.find("'x' named twice") != std::string::npos);
  // A name no object of the program has (matVec's are A, x, y) would leave the object unprotected.
  r = test::run_gpuvp("run --preset tx2 --workload matVec --set protect.duplicate=X --set protect.triplicate=A");
  CHECK(r.status == 2);
  CHECK(r.err.find("protect.duplicate: 'X': no data object of the program has that name (its objects: A, x, y)") !=
        std::string::npos);
  CHECK(r.err.find("'A'") == std::string::npos);  // A is one: only X is named
  // mem-campaign refuses it after the profile, before any run.
  r = test::run_gpuvp("mem-campaign --preset tx2 --workload matVec --runs 5 --set protect.triplicate=q");
  CHECK(r.status == 2);
  CHECK(r.err.find("protect.triplicate: 'q': no data object") != std::string::npos);
  r = test::run_gpuvp("mem-campaign --preset tx2 --workload matVec --launch tall --runs 20 --blocks 1 --bits 2 --choice hot "
                      "--protect-hot detect --output-type f32");
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  // Every faulty block is in x, which is duplicated: no SDC, only detected errors and masked runs.
  CHECK(r.out.find("  sdc ") == std::string::npos);
  CHECK(r.out.find("  due (detected) ") != std::string::npos);
  CHECK(r.out.find("due (other)") == std::string::npos);
  CHECK(r.out.find("duplicated [x]") != std::string::npos);
}
