// A fault in a cached line reaches the program as the hardware would deliver it (docs/caches.md,
// "Registered state"). On tx2 a kernel reads in[0] (its line stays clean in the L2) and stores
// out[0] = in[0] + 1 (its line stays dirty in the write-back L2). Once the kernel has finished, and
// before the host's copies back (10 µs of copy latency later), a bit is flipped in the L2's copy of
// one of the words through the registry:
//  - in the dirty line, the host reads the flipped word: the copy engine's read writes the line back;
//  - in the clean line, the host reads the word unchanged: a clean line is never written back.
#include <catch2/catch.hpp>

#include <optional>
#include <utility>
#include <vector>

#include "platform/platform.h"

using namespace gpuvp;

namespace {
const char* kIncPtx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry inc(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  ld.global.u32 %r1, [%rd3];
  add.u32 %r2, %r1, 1;
  st.global.u32 [%rd4], %r2;
  ret;
}
)";
constexpr uint32_t kIn = 0x0BADF00D;

// Index of the 32-bit word of the L2's data holding `v` (exactly one).
uint64_t l2_word_holding(Registry& r, uint32_t v) {
  const uint64_t n = r.at("gpu.l2.data").count;
  std::vector<uint64_t> hits;
  for (uint64_t i = 0; i < n; ++i)
    if (r.read("gpu.l2.data", i) == v) hits.push_back(i);
  REQUIRE(hits.size() == 1);
  return hits[0];
}

// Runs `inc` and flips bit 4 of the L2's copy of `victim` once the kernel has finished; returns
// (in[0], out[0]) as the host reads them back.
std::pair<uint32_t, uint32_t> run_flipping(uint32_t victim) {
  Platform p(Config::preset("tx2"));
  uint32_t in = 0, out = 0;
  p.start([&](rt::Runtime& rt) {
    auto m = rt.load_module(kIncPtx, "inc.ptx");
    const rt::DevPtr di = rt.malloc(4), dout = rt.malloc(4);
    rt.memcpy_h2d(di, &kIn, 4);
    rt::KernelArgs a;
    a.ptr(di).ptr(dout);
    rt.launch(m, "inc", {1}, {1}, a);
    rt.synchronize();
    rt.memcpy_d2h(&in, di, 4);
    rt.memcpy_d2h(&out, dout, 4);
  });
  uint64_t t = 0;
  while (p.kernel_windows().empty()) REQUIRE(p.advance_to(t += 1000000));  // 1 µs steps
  p.registry().flip("gpu.l2.data", 4, l2_word_holding(p.registry(), victim));
  p.finish();
  return {in, out};
}
}  // namespace

TEST_CASE("cache fault: a bit flipped in a dirty L2 line reaches the host") {
  const auto [in, out] = run_flipping(kIn + 1);
  CHECK(in == kIn);
  CHECK(out == ((kIn + 1) ^ 0x10u));
}

TEST_CASE("cache fault: a bit flipped in a clean L2 line is lost") {
  const auto [in, out] = run_flipping(kIn);
  CHECK(in == kIn);
  CHECK(out == kIn + 1);
}

// The same for a write-back L1 (sm.l1d.write_policy=write_back, docs/caches.md "Write-back L1"). A
// kernel reads in[0] through the read-only path (its L1 line stays clean), stores out[0] = in[0] + 1
// (its L1 line stays dirty: write-allocate) and spins; while it spins a bit is flipped in SM 0's L1
// copy of one of the words. The kernel is launched twice, the second time storing to out2 (the
// launch drops the first kernel's L1 lines):
//  - in the dirty line, the flipped word reaches the host: the L1 writes it back at the kernel's end;
//  - in the clean line, it is lost: never written back, dropped, and the second kernel reads in[0]
//    unchanged from the L2.
namespace {
const char* kIncSpinPtx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry incspin(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  ld.global.nc.u32 %r1, [%rd3];
  add.u32 %r2, %r1, 1;
  st.global.u32 [%rd4], %r2;
  mov.u32 %r3, 0;
$L_spin:
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, 4000;
  @%p1 bra $L_spin;
  ret;
}
)";

struct L1Outputs {
  uint32_t in = 0, out = 0, out2 = 0;
};

// Index of the 32-bit word of SM 0's L1 data holding `v`, or none yet.
std::optional<uint64_t> l1_word_holding(Registry& r, uint32_t v) {
  const uint64_t n = r.at("gpu.sm0.l1d.data").count;
  for (uint64_t i = 0; i < n; ++i)
    if (r.read("gpu.sm0.l1d.data", i) == v) return i;
  return std::nullopt;
}

L1Outputs run_flipping_l1(uint32_t victim) {
  Config c = Config::preset("tx2");
  c.set("sm.l1d.write_policy=write_back");
  Platform p(c);
  L1Outputs o;
  p.start([&](rt::Runtime& rt) {
    auto m = rt.load_module(kIncSpinPtx, "incspin.ptx");
    const rt::DevPtr di = rt.malloc(4), dout = rt.malloc(4), dout2 = rt.malloc(4);
    rt.memcpy_h2d(di, &kIn, 4);
    for (rt::DevPtr d : {dout, dout2}) {
      rt::KernelArgs a;
      a.ptr(di).ptr(d);
      rt.launch(m, "incspin", {1}, {1}, a);
      rt.synchronize();
    }
    rt.memcpy_d2h(&o.in, di, 4);
    rt.memcpy_d2h(&o.out, dout, 4);
    rt.memcpy_d2h(&o.out2, dout2, 4);
  });
  // Both words are in the L1 once the store has been performed; the kernel still spins.
  uint64_t t = 0;
  std::optional<uint64_t> word;
  while (!(word = l1_word_holding(p.registry(), victim)) || !l1_word_holding(p.registry(), kIn + 1)) {
    REQUIRE(p.advance_to(t += 100000));  // 0.1 µs steps
    REQUIRE(p.kernel_windows().empty());
  }
  p.registry().flip("gpu.sm0.l1d.data", 4, *word);
  p.finish();
  return o;
}
}  // namespace

TEST_CASE("cache fault: a bit flipped in a dirty write-back L1 line reaches the host") {
  const L1Outputs o = run_flipping_l1(kIn + 1);
  CHECK(o.in == kIn);
  CHECK(o.out == ((kIn + 1) ^ 0x10u));
  CHECK(o.out2 == kIn + 1);
}

TEST_CASE("cache fault: a bit flipped in a clean write-back L1 line is lost") {
  const L1Outputs o = run_flipping_l1(kIn);
  CHECK(o.in == kIn);
  CHECK(o.out == kIn + 1);
  CHECK(o.out2 == kIn + 1);
}
