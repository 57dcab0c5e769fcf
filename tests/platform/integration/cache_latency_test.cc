// Load-to-use latency of each level of the tk1/tx2 memory hierarchy, by a dependent pointer chase
// (docs/caches.md, "Latencies"): one thread follows a chain of 64 pointers 128 bytes apart (8 KiB:
// inside every L1 and L2 of the presets) three times, reading %clock64 around each pass (after a
// first round over a short chain of other lines that brings the code in):
//   1. ld.global.nc, cold: every load misses the L1 and the L2 (the host's copy left no line): DRAM;
//   2. ld.global.nc again: every line is in the L1: L1 hits;
//   3. ld.global (plain loads are not cached in the L1 on either preset): L2 hits.
// Expected: the cycles measured by pointer chasing on desktop chips of the same architectures,
// Pascal (tx2) L1 82, L2 252, DRAM 486; Kepler (tk1) L1 32, L2 188, DRAM 331. Tolerance 3 %. And a
// chase through constant memory: constant-cache hits, Pascal 12, Kepler 16 cycles (tolerance 3 %).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "platform/platform.h"
#include "sw/isa/address_map.h"

using namespace gpuvp;

namespace {
const char* kChasePtx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry chase(.param .u64 out, .param .u64 warm, .param .u32 nwarm, .param .u64 start, .param .u32 n)
{
  .reg .pred %p<8>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<24>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd20, [warm];
  ld.param.u32 %r20, [nwarm];
  ld.param.u64 %rd21, [start];
  ld.param.u32 %r21, [n];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r5, 0;
$L_outer:
  setp.eq.u32 %p4, %r5, 0;
  selp.b64 %rd3, %rd20, %rd21, %p4;
  selp.b32 %r2, %r20, %r21, %p4;
  mov.u32 %r1, 0;
  mov.u64 %rd4, %clock64;
$L_dram:
  ld.global.nc.u64 %rd3, [%rd3];
  add.s32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, %r2;
  @%p1 bra $L_dram;
  add.u64 %rd10, %rd3, 0;
  mov.u64 %rd5, %clock64;
  mov.u32 %r1, 0;
$L_l1:
  ld.global.nc.u64 %rd3, [%rd3];
  add.s32 %r1, %r1, 1;
  setp.lt.u32 %p2, %r1, %r2;
  @%p2 bra $L_l1;
  add.u64 %rd11, %rd3, 0;
  mov.u64 %rd6, %clock64;
  mov.u32 %r1, 0;
$L_l2:
  ld.global.u64 %rd3, [%rd3];
  add.s32 %r1, %r1, 1;
  setp.lt.u32 %p3, %r1, %r2;
  @%p3 bra $L_l2;
  add.u64 %rd12, %rd3, 0;
  mov.u64 %rd7, %clock64;
  sub.u64 %rd8, %rd5, %rd4;
  st.global.u64 [%rd1], %rd8;
  sub.u64 %rd8, %rd6, %rd5;
  st.global.u64 [%rd1+8], %rd8;
  sub.u64 %rd8, %rd7, %rd6;
  st.global.u64 [%rd1+16], %rd8;
  add.u64 %rd8, %rd10, %rd11;
  add.u64 %rd8, %rd8, %rd12;
  st.global.u64 [%rd1+24], %rd8;
  add.s32 %r5, %r5, 1;
  setp.lt.u32 %p5, %r5, 2;
  @%p5 bra $L_outer;
  ret;
}
)";

constexpr uint32_t kLoads = 64, kStride = 128;
// The chain of the first round, which brings the code into the instruction buffer and caches; the
// second round, over the measured chain, runs the same code warm.
constexpr uint32_t kWarm = 4;

struct Latencies {
  double dram, l1, l2;
};

// A chain of `loads` pointers `kStride` bytes apart starting at `arr`, back to its start.
std::vector<uint64_t> chain(uint64_t arr, uint32_t loads) {
  std::vector<uint64_t> c(loads * kStride / 8, 0);
  for (uint32_t i = 0; i < loads; ++i) c[i * kStride / 8] = arr + uint64_t((i + 1) % loads) * kStride;
  return c;
}

Latencies chase(const char* preset) {
  Platform p(Config::preset(preset));
  std::vector<uint64_t> out(4);
  uint64_t base = 0;
  p.run([&](rt::Runtime& rt) {
    auto m = rt.load_module(kChasePtx, "chase.ptx");
    const rt::DevPtr warm = rt.malloc(kWarm * kStride), arr = rt.malloc(kLoads * kStride), o = rt.malloc(32);
    base = arr;
    const std::vector<uint64_t> w = chain(warm, kWarm), c = chain(arr, kLoads);
    rt.memcpy_h2d(warm, w.data(), w.size() * 8);
    rt.memcpy_h2d(arr, c.data(), c.size() * 8);
    rt::KernelArgs a;
    a.ptr(o).ptr(warm).u32(kWarm).ptr(arr).u32(kLoads);
    rt.launch(m, "chase", {1}, {1}, a);
    rt.synchronize();
    rt.memcpy_d2h(out.data(), o, 32);
  });
  // Each pass ends where it started: the three values summed are three times the start.
  CHECK(out[3] == 3 * base);
  return {double(out[0]) / kLoads, double(out[1]) / kLoads, double(out[2]) / kLoads};
}

// The constant cache: a chain of 16 pointers 8 bytes apart in constant memory (the module's table,
// at the start of constant memory: the first module loaded), followed twice by 64 unrolled loads;
// the second pass hits.
// Its entries are absolute addresses, so each load's address is the previous load's value.
constexpr unsigned kConstLoads = 64;

std::string const_chase_ptx() {
  std::string tab, loads;
  for (unsigned i = 0; i < 16; ++i) tab += fmt::format("{}{}", i ? ", " : "", amap::kConstBase + 8 * ((i + 1) % 16));
  // Unrolled (a loop's own dependences would take longer than a hit), four times around the ring.
  for (unsigned i = 0; i < kConstLoads; ++i) loads += "  ld.const.u64 %rd3, [%rd3];\n";
  return fmt::format(R"(
.version 8.0
.target sm_75
.address_size 64
.const .align 8 .u64 ctab[16] = {{{}}};
.visible .entry cchase(.param .u64 out)
{{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u64 %rd2, ctab;
  mov.u64 %rd3, %rd2;
  mov.u32 %r2, 0;
$L_outer:
  mov.u64 %rd4, %clock64;
{}  add.u64 %rd10, %rd3, 0;
  mov.u64 %rd5, %clock64;
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 2;
  @%p1 bra $L_outer;
  sub.u64 %rd6, %rd5, %rd4;
  st.global.u64 [%rd1], %rd6;
  st.global.u64 [%rd1+8], %rd2;
  st.global.u64 [%rd1+16], %rd10;
  ret;
}}
)",
                     tab, loads);
}

// Cycles per constant load of the second (warm) pass.
double const_chase(const char* preset) {
  Platform p(Config::preset(preset));
  std::vector<uint64_t> out(3);
  p.run([&](rt::Runtime& rt) {
    auto m = rt.load_module(const_chase_ptx(), "cchase.ptx");
    const rt::DevPtr o = rt.malloc(24);
    rt::KernelArgs a;
    a.ptr(o);
    rt.launch(m, "cchase", {1}, {1}, a);
    rt.synchronize();
    rt.memcpy_d2h(out.data(), o, 24);
  });
  CHECK(out[1] == amap::kConstBase);  // the table is where its entries say
  CHECK(out[2] == amap::kConstBase);  // whole turns of the ring of 16
  return double(out[0]) / kConstLoads;
}

void check(const Latencies& l, double l1, double l2, double dram) {
  INFO("per load: L1 " << l.l1 << ", L2 " << l.l2 << ", DRAM " << l.dram);
  CHECK(l.l1 == Approx(l1).epsilon(0.03));
  CHECK(l.l2 == Approx(l2).epsilon(0.03));
  CHECK(l.dram == Approx(dram).epsilon(0.03));
}
}  // namespace

TEST_CASE("cache latency: a pointer chase on tx2 gives Pascal's L1, L2 and DRAM latencies") {
  check(chase("tx2"), 82, 252, 486);
}

TEST_CASE("cache latency: a pointer chase on tk1 gives Kepler's L1, L2 and DRAM latencies") {
  check(chase("tk1"), 32, 188, 331);
}

TEST_CASE("cache latency: a constant-memory pointer chase on tx2 gives Pascal's constant-cache hit") {
  const double c = const_chase("tx2");
  INFO("per load " << c);
  CHECK(c == Approx(12).epsilon(0.03));
}

TEST_CASE("cache latency: a constant-memory pointer chase on tk1 gives Kepler's constant-cache hit") {
  const double c = const_chase("tk1");
  INFO("per load " << c);
  CHECK(c == Approx(16).epsilon(0.03));
}
