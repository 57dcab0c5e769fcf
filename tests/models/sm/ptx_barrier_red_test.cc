// bar.red (popc, and, or) through PTX on the SIMT core, against block reductions computed in C++:
// two resident blocks of three warps, lanes and warps that exited before it, a negated predicate, the
// thread-count operand, and the barrier error of a diverged warp (as for bar.sync).
#include <catch2/catch.hpp>

#include <random>

#include "ptx_test_util.h"

using namespace ptxtest;

namespace {

// out[tid] = popc * 4 + and * 2 + or(!p) for p = v[tid] != 0; lanes >= `live` of each warp and the
// whole warp `gone` exit first.
const char* kRed = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry red(.param .u64 pv, .param .u64 po, .param .u32 live, .param .u32 gone)
{
  .reg .pred %p<5>;
  .reg .b32 %r<14>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r9, %ctaid.x;
  mov.u32 %r10, %ntid.x;
  mad.lo.s32 %r1, %r9, %r10, %r1;
  mov.u32 %r11, %tid.x;
  and.b32 %r2, %r11, 31;
  ld.param.u32 %r3, [live];
  setp.ge.u32 %p1, %r2, %r3;
  @%p1 exit;
  shr.u32 %r12, %r11, 5;
  ld.param.u32 %r13, [gone];
  setp.eq.u32 %p1, %r12, %r13;
  @%p1 exit;
  ld.param.u64 %rd1, [pv];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r4, [%rd3];
  setp.ne.u32 %p2, %r4, 0;
  bar.red.popc.u32 %r5, 0, %p2;
  bar.red.and.pred %p3, 1, %r10, %p2;
  barrier.red.or.pred %p4, 2, !%p2;
  selp.u32 %r6, 2, 0, %p3;
  selp.u32 %r7, 1, 0, %p4;
  shl.b32 %r5, %r5, 2;
  add.s32 %r5, %r5, %r6;
  add.s32 %r5, %r5, %r7;
  ld.param.u64 %rd4, [po];
  add.s64 %rd5, %rd4, %rd2;
  st.global.u32 [%rd5], %r5;
  ret;
}
)";

}  // namespace

TEST_CASE("PTX bar.red.popc/and/or: block-wide results to every live thread, exited lanes and warps left out", "[ptx][inst][barrier]") {
  const unsigned kBlocks = 2, kThreads = 96;
  std::mt19937 rng(13);
  struct Pattern {
    const char* name;
    std::vector<uint32_t> v;
  } patterns[] = {{"random", {}}, {"all nonzero", std::vector<uint32_t>(kBlocks * kThreads, 3)},
                  {"all zero", std::vector<uint32_t>(kBlocks * kThreads, 0)}, {"one zero", {}}};
  for (unsigned i = 0; i < kBlocks * kThreads; ++i) patterns[0].v.push_back(rng() % 2);
  patterns[3].v.assign(kBlocks * kThreads, 1);
  patterns[3].v[kThreads + 40] = 0;  // block 1 only
  for (auto& p : patterns) {
    for (auto exits : {std::pair{32u, 3u}, std::pair{7u, 3u}, std::pair{32u, 1u}, std::pair{5u, 0u}}) {
      const uint32_t live = exits.first, gone = exits.second;  // lanes kept per warp, warp that exits
      Dev d(kRed);
      uint64_t pv = d.upload(p.v), po = d.alloc(kBlocks * kThreads * 4);
      bool ok = d.launch("red", {kBlocks}, {kThreads}, pv, po, live, gone);
      INFO(p.name << ", live lanes per warp " << live << ", warp " << gone << " exited: " << d.error);
      auto takes_part = [&](unsigned t) { return t % 32 < live && t / 32 != gone; };
      REQUIRE(ok);
      auto o = d.download<uint32_t>(po, kBlocks * kThreads);
      for (unsigned b = 0; b < kBlocks; ++b) {
        uint32_t count = 0, n = 0;
        for (unsigned t = 0; t < kThreads; ++t)
          if (takes_part(t)) ++n, count += p.v[b * kThreads + t] != 0;
        uint32_t expect = count * 4 + (count == n ? 2 : 0) + (count < n ? 1 : 0);
        for (unsigned t = 0; t < kThreads; ++t) {
          INFO("block " << b << " thread " << t);
          CHECK(o[b * kThreads + t] == (takes_part(t) ? expect : 0));
        }
      }
    }
  }
}

TEST_CASE("PTX bar.red in a diverged warp is a barrier error, as bar.sync", "[ptx][inst][barrier][error]") {
  Dev d(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u32 unused)
{
  .reg .pred %p<3>;
  .reg .b32 %r<3>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra $L__skip;
  bar.red.popc.u32 %r2, 0, %p1;
$L__skip:
  ret;
}
)");
  CHECK_FALSE(d.launch("k", {1}, {32}, uint32_t(0)));
  CHECK(d.error.find("diverged warp") != std::string::npos);
}
