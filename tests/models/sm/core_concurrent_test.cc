// The SIMT core's concurrent mode (add_block, room_for, run_blocks): blocks of several kernels
// resident at once, added while others run, against CPU references; room counted from the SM's
// limits by hand; idle waits the environment interrupts; errors naming the block and its launch.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <sstream>

#include "ptx_test_util.h"

using namespace ptxtest;

namespace {

using Completed = SimtCore::Completed;

// vectorAdd and scalarProd of sw/kernels in one module (scalarProd without its module header).
std::string two_kernels() {
  std::string text = read_text(GPUVP_TEST_DATA "/../../sw/kernels/vectorAdd.ptx");
  std::istringstream prod(read_text(GPUVP_TEST_DATA "/../../sw/kernels/scalarProd.ptx"));
  for (std::string line; std::getline(prod, line);)
    if (line.rfind(".version", 0) && line.rfind(".target", 0) && line.rfind(".address_size", 0)) text += line + "\n";
  return text;
}

// C = A + B over kN floats (vectorAdd, launch 1) and kVecs dot products of kElems (scalarProd,
// launch 2), blocks of kThreads. Inputs are small integers, so any summation order gives the
// exact CPU result.
struct TwoKernels {
  static constexpr unsigned kThreads = 64, kN = 256, kVecs = 4, kElems = 256;
  Dev d{two_kernels(), "two.ptx"};
  std::vector<float> a, b, x, y;
  uint64_t da = 0, db = 0, dc = 0, dx = 0, dy = 0, dz = 0;
  std::shared_ptr<const LaunchParams> add, prod;

  TwoKernels() {
    for (unsigned i = 0; i < kN; ++i) a.push_back(float(i % 13)), b.push_back(float((3 * i) % 7));
    for (unsigned i = 0; i < kVecs * kElems; ++i) x.push_back(float(i % 5)), y.push_back(float((i / 3) % 6));
    da = d.upload(a), db = d.upload(b), dc = d.alloc(kN * 4);
    dx = d.upload(x), dy = d.upload(y), dz = d.alloc(kVecs * 4);
    add = vector_add(da, 1);
    prod = scalar_prod(kVecs, 2);
  }
  std::shared_ptr<const LaunchParams> vector_add(uint64_t in_a, uint64_t launch_id) const {
    const ptx::KernelInfo& k = d.kernel("vectorAdd");
    LaunchParams lp = d.params(k, {kN / kThreads}, {kThreads}, d.pack(k, in_a, db, dc, uint32_t(kN)));
    lp.launch_id = launch_id;
    return std::make_shared<const LaunchParams>(lp);
  }
  // Blocks with ctaid >= vectors exit at once.
  std::shared_ptr<const LaunchParams> scalar_prod(uint32_t vectors, uint64_t launch_id) const {
    const ptx::KernelInfo& k = d.kernel("scalarProd");
    LaunchParams lp = d.params(k, {kVecs}, {kThreads}, d.pack(k, dz, dx, dy, vectors, uint32_t(kElems)));
    lp.launch_id = launch_id;
    return std::make_shared<const LaunchParams>(lp);
  }
  void check_sums(unsigned blocks) {
    auto c = d.download<float>(dc, kN);
    for (unsigned i = 0; i < blocks * kThreads; ++i) {
      INFO("vectorAdd element " << i);
      CHECK(c[i] == a[i] + b[i]);
    }
  }
  void check_dots(const std::vector<unsigned>& vecs) {
    auto z = d.download<float>(dz, kVecs);
    for (unsigned v : vecs) {
      long dot = 0;
      for (unsigned i = v * kElems; i < (v + 1) * kElems; ++i) dot += long(x[i]) * long(y[i]);
      INFO("scalarProd vector " << v);
      CHECK(z[v] == float(dot));
    }
  }
};

// A kernel that only has its room counted: threads per block, 32-bit registers per thread,
// parameter bytes and static shared memory.
std::shared_ptr<const LaunchParams> unrun(uint32_t threads, uint32_t regs, uint32_t param_bytes, uint32_t shared) {
  auto lp = std::make_shared<LaunchParams>();
  lp->entry = kCode;
  lp->block[0] = threads;
  lp->regs_per_thread = regs;
  lp->num_regs = 4;
  lp->num_preds = 2;
  lp->params.assign(param_bytes, 0);
  lp->static_shared = shared;
  return lp;
}

// Runs until no block is resident (the environment never interrupts); the completions in order.
std::vector<Completed> drain(SimtCore& core) {
  std::vector<Completed> all;
  for (unsigned turns = 0; core.resident_blocks() && turns < 1000; ++turns) {
    bool ok = core.run_blocks();
    INFO((core.error() ? core.error()->message : ""));
    REQUIRE(ok);
    for (const Completed& c : core.take_completed()) all.push_back(c);
  }
  REQUIRE(core.resident_blocks() == 0);
  return all;
}

// Memories of `mem`, global reads taking 5000 cycles more: long waits, of which the first one
// beyond cycle `at` ends at `at` (work arrived then).
struct InterruptingEnv : CoreEnv {
  static constexpr uint64_t kReadLatency = 5000;
  ArrayEnv& mem;
  uint64_t at;
  std::vector<uint64_t> waits;  // the `until` of every idle call
  InterruptingEnv(ArrayEnv& m, uint64_t cycle) : mem(m), at(cycle) {}
  uint64_t access(Port port, uint64_t addr, uint8_t* data, unsigned len, bool write, AtomicExtension* atomic,
                  uint64_t t, Fault& f) override {
    const uint64_t r = mem.access(port, addr, data, len, write, atomic, t, f);
    return r != kFail && port == Port::GlobalRead ? r + kReadLatency : r;
  }
  uint64_t idle(uint64_t until) override {
    waits.push_back(until);
    if (at == 0 || until <= at) return until;
    const uint64_t r = at;
    at = 0;
    return r;
  }
};

}  // namespace

TEST_CASE("SimtCore concurrent: vectorAdd and scalarProd blocks resident together compute their CPU results",
          "[core][concurrent]") {
  TwoKernels t;
  SimtCore core(t.d.cfg, t.d.env);
  for (unsigned j = 0; j < 4; ++j) {  // interleaved: warps of both kernels side by side
    REQUIRE(core.add_block(t.add, j, 0));
    REQUIRE(core.add_block(t.prod, j, 0));
  }
  CHECK(core.resident_blocks() == 8);
  CHECK(core.room_for(*t.add) == 0);  // max_blocks 8
  auto done = drain(core);
  REQUIRE(done.size() == 8);
  std::map<std::pair<uint64_t, uint64_t>, unsigned> seen;
  for (const Completed& c : done) {
    ++seen[{c.launch_id, c.block}];
    CHECK(c.start == 0);
    CHECK(c.end > c.start);
  }
  for (uint64_t j = 0; j < 4; ++j) {
    CHECK(seen[{1, j}] == 1);
    CHECK(seen[{2, j}] == 1);
  }
  t.check_sums(4);
  t.check_dots({0, 1, 2, 3});
}

TEST_CASE("SimtCore concurrent: blocks added while others run start at the cycle given", "[core][concurrent]") {
  TwoKernels t;
  t.d.cfg.max_blocks = 2;
  SimtCore core(t.d.cfg, t.d.env);
  std::vector<std::pair<std::shared_ptr<const LaunchParams>, uint64_t>> queue;
  for (uint64_t j = 0; j < 4; ++j) queue.push_back({t.add, j}), queue.push_back({t.prod, j});
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> started;
  size_t next = 0, added_beside_others = 0;
  auto add_what_fits = [&] {
    while (next < queue.size() && core.room_for(*queue[next].first) > 0) {
      const uint64_t at = core.now();
      added_beside_others += core.resident_blocks() > 0 && at > 0;
      REQUIRE(core.add_block(queue[next].first, queue[next].second, at));
      started[{queue[next].first->launch_id, queue[next].second}] = at;
      ++next;
    }
  };
  add_what_fits();
  CHECK(core.resident_blocks() == 2);
  std::vector<Completed> done;
  for (unsigned turns = 0; done.size() < queue.size() && turns < 1000; ++turns) {
    bool ok = core.run_blocks();
    INFO((core.error() ? core.error()->message : ""));
    REQUIRE(ok);
    for (const Completed& c : core.take_completed()) done.push_back(c);
    add_what_fits();
  }
  REQUIRE(done.size() == queue.size());
  CHECK(added_beside_others >= 4);
  for (const Completed& c : done) {
    INFO("launch " << c.launch_id << " block " << c.block);
    CHECK(c.start == started.at({c.launch_id, c.block}));
    CHECK(c.end > c.start);
  }
  t.check_sums(4);
  t.check_dots({0, 1, 2, 3});
}

TEST_CASE("SimtCore concurrent: room counted by threads, registers, shared memory and block slots",
          "[core][concurrent]") {
  SmConfig cfg;
  cfg.warp_size = 32;
  cfg.max_threads = 1024;  // 32 warp slots
  cfg.max_blocks = 8;
  cfg.registers = 16384;
  cfg.shared_bytes = cfg.shared_per_block = 16384;
  ArrayEnv env;
  SimtCore core(cfg, env);
  auto threads = unrun(256, 8, 0, 0);  // 1024 / 256 threads; registers would allow 8, warps 4
  auto regs = unrun(64, 64, 0, 0);     // 16384 / (64 x 64) registers
  auto smem = unrun(32, 0, 8, 5000);   // header + params 32 bytes + 5000 -> 5120 per block: 16384 / 5120
  auto slots = unrun(32, 0, 0, 0);
  CHECK(core.room_for(*threads) == 4);
  CHECK(core.room_for(*regs) == 4);
  CHECK(core.room_for(*smem) == 3);
  CHECK(core.room_for(*slots) == 8);
  auto wide = std::make_shared<LaunchParams>(*smem);
  wide->smem_per_block = 6000;  // the scheduler's stride counts: 16384 / 6000
  CHECK(core.room_for(*wide) == 2);

  // Two blocks of 256 threads: 512 threads, 16 warps, 4096 registers and 2 x 256 bytes in use.
  REQUIRE(core.add_block(threads, 0, 0));
  REQUIRE(core.add_block(threads, 1, 0));
  CHECK(core.room_for(*threads) == 2);
  CHECK(core.room_for(*regs) == 3);   // (16384 - 4096) / 4096
  CHECK(core.room_for(*smem) == 3);   // (16384 - 512) / 5120
  CHECK(core.room_for(*slots) == 6);  // 8 - 2
  REQUIRE(core.add_block(threads, 2, 0));
  REQUIRE(core.add_block(threads, 3, 0));
  CHECK(core.room_for(*threads) == 0);
  CHECK(core.room_for(*slots) == 0);  // no thread left
  CHECK_FALSE(core.add_block(threads, 4, 0));
  CHECK_FALSE(core.add_block(slots, 0, 0));
  CHECK(core.error() == nullptr);
  CHECK(core.resident_blocks() == 4);
}

TEST_CASE("SimtCore concurrent: kernels no SM runs are resource errors", "[core][concurrent]") {
  SmConfig cfg;
  cfg.max_threads_per_block = 512;
  cfg.shared_per_block = 4096;
  cfg.shared_bytes = 2048;  // less than the per-block limit: a block of 2064 bytes fits no SM
  ArrayEnv env;
  const std::pair<std::shared_ptr<const LaunchParams>, const char*> cases[] = {
      {unrun(0, 0, 0, 0), "empty block"},
      {unrun(513, 0, 0, 0), "threads per block: 513 > max_threads_per_block 512"},
      {unrun(32, 0, 0, 4096), "shared memory per block: 4112 bytes > shared_per_block 4096"},
      {unrun(32, 0, 0, 2048), "needs more shared memory than the SM has"}};
  for (const auto& c : cases) {
    SimtCore core(cfg, env);
    CHECK(core.room_for(*c.first) == 0);
    CHECK_FALSE(core.add_block(c.first, 0, 0));
    REQUIRE(core.error());
    CHECK(core.error()->kind == "resource");
    CHECK_THAT(core.error()->message, Catch::Contains(c.second));
    CHECK(core.resident_blocks() == 0);
  }
  SmConfig fg = cfg;
  fg.timing = SmTiming::Flexgrip;
  SimtCore core(fg, env);
  CHECK_FALSE(core.add_block(unrun(32, 0, 0, 0), 0, 0));
  REQUIRE(core.error());
  CHECK_THAT(core.error()->message, Catch::Contains("flexgrip timing runs batches only"));
}

TEST_CASE("SimtCore concurrent: a completed block's room is free at once", "[core][concurrent]") {
  TwoKernels t;
  t.d.cfg.max_threads = 2 * TwoKernels::kThreads;
  SimtCore core(t.d.cfg, t.d.env);
  REQUIRE(core.add_block(t.add, 0, 0));
  REQUIRE(core.add_block(t.add, 1, 0));
  CHECK(core.room_for(*t.add) == 0);
  CHECK_FALSE(core.add_block(t.add, 2, 0));
  CHECK(core.error() == nullptr);
  std::vector<Completed> done;
  while (done.empty()) {
    REQUIRE(core.run_blocks());
    done = core.take_completed();
  }
  CHECK(done.size() == 1);
  CHECK(core.resident_blocks() == 1);
  CHECK(core.room_for(*t.add) == 1);
  REQUIRE(core.add_block(t.add, 2, core.now()));
  drain(core);
  t.check_sums(3);
}

TEST_CASE("SimtCore concurrent: shared memory first fit reuses the hole a block left", "[core][concurrent]") {
  TwoKernels t;
  // scalarProd: header and 32 parameter bytes (48), 2048 bytes of accum: 2304 bytes per block.
  const uint32_t stride = 2304;
  t.d.cfg.shared_bytes = 3 * stride;
  SimtCore core(t.d.cfg, t.d.env);
  auto quick = t.scalar_prod(0, 3);  // every block exits at once
  REQUIRE(core.add_block(t.prod, 0, 0));
  REQUIRE(core.add_block(quick, 1, 0));
  REQUIRE(core.add_block(t.prod, 2, 0));
  CHECK(core.room_for(*t.prod) == 0);
  REQUIRE(core.run_blocks());
  auto done = core.take_completed();
  REQUIRE(done.size() == 1);
  CHECK(done[0].launch_id == 3);
  CHECK(done[0].block == 1);
  CHECK(core.room_for(*t.prod) == 1);
  REQUIRE(core.add_block(t.prod, 3, core.now()));
  auto header_block = [&](uint32_t base) {
    uint32_t lin = 0;
    std::memcpy(&lin, core.smem().data() + base + 12, 4);  // linear block index in the block header
    return lin;
  };
  CHECK(header_block(0) == 0);
  CHECK(header_block(stride) == 3);  // the hole of block 1
  CHECK(header_block(2 * stride) == 2);
  drain(core);
  t.check_dots({0, 2, 3});
}

TEST_CASE("SimtCore concurrent: an interrupted idle wait returns, and a block added then starts there",
          "[core][concurrent]") {
  TwoKernels t;
  InterruptingEnv env(t.d.env, 1000);  // block 0's warps issue their loads well before cycle 1000
  SimtCore core(t.d.cfg, env);
  std::vector<uint64_t> issues;
  core.set_issue_log(&issues);
  REQUIRE(core.add_block(t.add, 0, 0));
  REQUIRE(core.run_blocks());
  REQUIRE(env.waits.size() == 1);
  CHECK(env.waits[0] > InterruptingEnv::kReadLatency);
  CHECK(core.now() == 1000);
  CHECK(core.take_completed().empty());
  CHECK(core.resident_blocks() == 1);
  const size_t before = issues.size();
  REQUIRE(core.add_block(t.add, 1, core.now()));
  auto done = drain(core);
  REQUIRE(issues.size() > before);
  CHECK(issues[before] == 1000);  // the new block's first instruction, while block 0 still waits
  REQUIRE(done.size() == 2);
  for (const Completed& c : done) CHECK(c.start == (c.block == 1 ? 1000 : 0));
  t.check_sums(2);
}

TEST_CASE("SimtCore concurrent: an error names its block and the block's launch", "[core][concurrent]") {
  TwoKernels t;
  SimtCore core(t.d.cfg, t.d.env);
  auto bad = t.vector_add(kGlob - 0x10000, 7);  // A below global memory: the first load faults
  REQUIRE(core.add_block(t.prod, 0, 0));
  REQUIRE(core.add_block(bad, 2, 0));
  REQUIRE(core.add_block(t.add, 1, 0));
  bool ok = true;
  for (unsigned turns = 0; ok && core.resident_blocks() && turns < 100; ++turns) ok = core.run_blocks();
  REQUIRE_FALSE(ok);
  REQUIRE(core.error());
  CHECK(core.error()->kind == "address");
  CHECK(core.error()->block == 2);
  CHECK(core.error()->launch_id == 7);
  CHECK_FALSE(core.add_block(t.add, 3, core.now()));  // the SM stopped
}

TEST_CASE("SimtCore concurrent: %gridid and shared memory sizes come from each block's kernel", "[core][concurrent]") {
  Dev d(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry ids(.param .u64 out)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %ctaid.x;
  mul.wide.u32 %rd2, %r1, 12;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r2, %gridid;
  mov.u32 %r3, %total_smem_size;
  mov.u32 %r4, %dynamic_smem_size;
  st.global.u32 [%rd3], %r2;
  st.global.u32 [%rd3+4], %r3;
  st.global.u32 [%rd3+8], %r4;
  ret;
}
)");
  const ptx::KernelInfo& k = d.kernel("ids");
  uint64_t out = d.alloc(2 * 12);
  LaunchParams lp = d.params(k, {2}, {32}, d.pack(k, out), 100);
  lp.launch_id = 11;
  auto first = std::make_shared<const LaunchParams>(lp);
  lp.dyn_shared = 1000;
  lp.launch_id = 12;
  auto second = std::make_shared<const LaunchParams>(lp);
  SimtCore core(d.cfg, d.env);
  REQUIRE(core.add_block(first, 0, 0));
  REQUIRE(core.add_block(second, 1, 0));
  drain(core);
  auto v = d.download<uint32_t>(out, 6);
  // Header and 8 parameter bytes: the user region at 32; + 100 -> 256, + 1000 -> 1280 bytes.
  CHECK(v == std::vector<uint32_t>{11, 256, 100, 12, 1280, 1000});
}

// Warp slots and shared memory are counts, as the dispatcher keeps them: a block that fits the free
// total goes in even when the free slots lie in pieces. 4 warps' worth of threads per SM: quick
// blocks (exiting at once) between two long ones leave 2 one-warp holes; a 2-warp block then packs the
// long blocks down and still computes its result, as do the moved blocks.
TEST_CASE("SimtCore concurrent: a block that fits the free total goes in when the free room is in pieces",
          "[core][concurrent]") {
  TwoKernels t;
  t.d.cfg.max_threads = 4 * 32;
  const uint32_t stride = 2304;  // scalarProd's block (see the first-fit test)
  t.d.cfg.shared_bytes = 4 * stride;
  SimtCore core(t.d.cfg, t.d.env);
  const ptx::KernelInfo& k = t.d.kernel("scalarProd");
  auto prod32 = [&](uint32_t vectors, uint64_t launch) {  // 32-thread blocks: one warp each
    LaunchParams lp = t.d.params(k, {TwoKernels::kVecs}, {32}, t.d.pack(k, t.dz, t.dx, t.dy, vectors, uint32_t(TwoKernels::kElems)));
    lp.launch_id = launch;
    return std::make_shared<const LaunchParams>(lp);
  };
  auto quick = prod32(0, 3), slow = prod32(TwoKernels::kVecs, 4);
  REQUIRE(core.add_block(quick, 0, 0));  // warp 0
  REQUIRE(core.add_block(slow, 0, 0));   // warp 1
  REQUIRE(core.add_block(quick, 1, 0));  // warp 2
  REQUIRE(core.add_block(slow, 1, 0));   // warp 3
  std::vector<Completed> done;
  while (done.size() < 2) {
    REQUIRE(core.run_blocks());
    for (auto& c : core.take_completed()) done.push_back(c);
  }
  CHECK(done[0].launch_id == 3);
  CHECK(done[1].launch_id == 3);
  REQUIRE(core.resident_blocks() == 2);  // holes at warps 0 and 2
  CHECK(core.room_for(*t.prod) == 1);    // 64 threads, 2 warps: fits the total
  REQUIRE(core.add_block(t.prod, 2, core.now()));
  REQUIRE(core.add_block(t.prod, 3, core.now()) == false);  // now really full
  drain(core);
  t.check_dots({0, 1, 2});
}

// place_block zeroes only the register rows that may hold values (docs/sm.md, "Concurrent kernels"): the
// rows earlier blocks' instructions named, also those first named while a block ran, and words a
// registry write (fault injection) set. A placed block reads zero in all of its range all the same.
TEST_CASE("SimtCore concurrent: a placed block's register range is zero after other kernels' blocks and registry writes",
          "[core][concurrent]") {
  TwoKernels t;
  SimtCore core(t.d.cfg, t.d.env);
  Registry reg;
  core.register_state(reg, "sm");
  auto words = [](const LaunchParams& lp) { return uint64_t(2) * lp.num_regs * 32 * (TwoKernels::kThreads / 32); };
  auto nonzero = [&](uint64_t n) {
    uint64_t c = 0;
    for (uint64_t i = 0; i < n; ++i) c += reg.read("sm.regs", i) != 0;
    return c;
  };
  // vectorAdd's rows are first named while its block runs (nothing was decoded before).
  REQUIRE(core.add_block(t.add, 0, 0));
  drain(core);
  REQUIRE(nonzero(words(*t.add)) > 0);  // its registers keep their values after it left
  REQUIRE(core.add_block(t.prod, 0, 0));
  CHECK(nonzero(words(*t.prod)) == 0);
  drain(core);
  REQUIRE(nonzero(words(*t.prod)) > 0);
  // Every word set, also in rows neither kernel names.
  for (uint64_t i = 0; i < words(*t.prod); ++i) reg.write("sm.regs", 0xdeadbeef, i);
  REQUIRE(core.add_block(t.add, 1, 0));
  CHECK(nonzero(words(*t.add)) == 0);
  drain(core);
  t.check_sums(2);
}
