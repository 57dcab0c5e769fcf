// Divergence and reconvergence through PTX text: nested if/else, loops with thread-dependent trip
// counts, break/continue, early return, barriers and warp-wide operations after reconvergence.
#include <catch2/catch.hpp>

#include "ptx_test_util.h"

using namespace ptxtest;

namespace {

const char* kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n";

const char* kNested = R"(
.visible .entry nested(.param .u64 out)
{
	.reg .pred %p<4>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	setp.lt.u32 %p1, %r1, 16;
	@!%p1 bra ELSE;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p2, %r2, 0;
	@%p2 bra EVEN;
	mov.u32 %r3, 1;
	bra JOIN;
EVEN:
	and.b32 %r4, %r1, 2;
	setp.ne.u32 %p3, %r4, 0;
	@%p3 bra E2;
	mov.u32 %r3, 2;
	bra JOIN;
E2:
	mov.u32 %r3, 3;
JOIN:
	add.u32 %r3, %r3, 100;
	bra END;
ELSE:
	mov.u32 %r3, 4;
END:
	activemask.b32 %r5;
	popc.b32 %r6, %r5;
	mad.lo.u32 %r3, %r6, 1000, %r3;
	st.global.u32 [%rd3], %r3;
	ret;
}
)";

TEST_CASE("PTX nested if/else reconverges before a warp-wide activemask", "[ptx][divergence]") {
  Dev d(std::string(kHeader) + kNested);
  for (unsigned n : {32u, 48u, 70u}) {
    uint64_t out = d.alloc(n * 4);
    REQUIRE(d.launch("nested", {1}, {n}, out));
    auto o = d.download<uint32_t>(out, n);
    for (unsigned t = 0; t < n; ++t) {
      uint32_t v = t < 16 ? ((t & 1) ? 101 : (t & 2) ? 103 : 102) : 4;
      uint32_t warp_lanes = std::min(32u, n - t / 32 * 32);
      INFO("n " << n << " thread " << t);
      CHECK(o[t] == v + 1000 * warp_lanes);
    }
  }
}

// for (i = 0; i < tid; ++i) { if (i % 3 == 1) continue; if (i * i > 5 * tid) break; sum += i; }
// then bar.sync after the divergent loop, neighbour exchange through shared memory, bar.sync again.
const char* kLoops = R"(
.visible .entry loops(.param .u64 out)
{
	.reg .pred %p<5>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<8>;
	.shared .align 4 .b8 sh[1024];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, 0;
	mov.u32 %r3, 0;
	mul.lo.u32 %r10, %r1, 5;
LOOP:
	setp.ge.u32 %p1, %r3, %r1;
	@%p1 bra DONE;
	rem.u32 %r4, %r3, 3;
	setp.eq.u32 %p2, %r4, 1;
	@%p2 bra NEXT;
	mul.lo.u32 %r5, %r3, %r3;
	setp.gt.u32 %p3, %r5, %r10;
	@%p3 bra DONE;
	add.u32 %r2, %r2, %r3;
NEXT:
	add.u32 %r3, %r3, 1;
	bra LOOP;
DONE:
	bar.sync 0;
	mov.u32 %r6, sh;
	shl.b32 %r7, %r1, 2;
	add.u32 %r8, %r6, %r7;
	st.shared.u32 [%r8], %r2;
	bar.sync 0;
	mov.u32 %r9, %ntid.x;
	add.u32 %r11, %r1, 1;
	rem.u32 %r11, %r11, %r9;
	shl.b32 %r11, %r11, 2;
	add.u32 %r12, %r6, %r11;
	ld.shared.u32 %r13, [%r12];
	mul.wide.u32 %rd2, %r1, 8;
	add.s64 %rd3, %rd1, %rd2;
	st.global.v2.u32 [%rd3], {%r2, %r13};
	ret;
}
)";

uint32_t loop_ref(uint32_t t) {
  uint32_t sum = 0;
  for (uint32_t i = 0; i < t; ++i) {
    if (i % 3 == 1) continue;
    if (i * i > 5 * t) break;
    sum += i;
  }
  return sum;
}

TEST_CASE("PTX loop with per-thread trip count, continue and break, then barriers", "[ptx][divergence]") {
  Dev d(std::string(kHeader) + kLoops);
  for (unsigned n : {32u, 64u, 200u}) {
    uint64_t out = d.alloc(n * 8);
    REQUIRE(d.launch("loops", {2}, {n}, out));
    auto o = d.download<uint32_t>(out, 2 * n);
    for (unsigned t = 0; t < n; ++t) {
      INFO("n " << n << " thread " << t);
      CHECK(o[2 * t] == loop_ref(t));
      CHECK(o[2 * t + 1] == loop_ref((t + 1) % n));
    }
  }
}

// do { acc = acc * 3 + i; } while (++i < (tid % 7) + 1);  (bottom-tested loop), then an early
// return for tid % 4 == 3 and for tid >= 40, then ballot/shfl among the survivors.
const char* kEarly = R"(
.visible .entry early(.param .u64 out)
{
	.reg .pred %p<6>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 8;
	add.s64 %rd3, %rd1, %rd2;
	rem.u32 %r2, %r1, 7;
	add.u32 %r2, %r2, 1;
	mov.u32 %r3, 0;
	mov.u32 %r4, 0;
TOP:
	mad.lo.u32 %r4, %r4, 3, %r3;
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p1, %r3, %r2;
	@%p1 bra TOP;
	and.b32 %r5, %r1, 3;
	setp.ne.u32 %p2, %r5, 3;
	@%p2 bra L1;
	mov.u32 %r6, 77777;
	st.global.v2.u32 [%rd3], {%r4, %r6};
	ret;
L1:
	setp.lt.u32 %p3, %r1, 40;
	@%p3 bra L2;
	mov.u32 %r6, 88888;
	st.global.v2.u32 [%rd3], {%r4, %r6};
	exit;
L2:
	activemask.b32 %r7;
	setp.gt.u32 %p4, %r4, 100;
	vote.sync.ballot.b32 %r8, %p4, %r7;
	shfl.sync.idx.b32 %r9, %r4, 0, 31, %r7;
	add.u32 %r10, %r8, %r9;
	xor.b32 %r10, %r10, %r7;
	st.global.v2.u32 [%rd3], {%r4, %r10};
	ret;
}
)";

TEST_CASE("PTX bottom-tested loop, early ret/exit, vote and shfl among the survivors", "[ptx][divergence]") {
  Dev d(std::string(kHeader) + kEarly);
  unsigned n = 64;
  uint64_t out = d.alloc(n * 8);
  REQUIRE(d.launch("early", {1}, {n}, out));
  auto o = d.download<uint32_t>(out, 2 * n);
  std::vector<uint32_t> acc(n);
  for (unsigned t = 0; t < n; ++t) {
    uint32_t a = 0;
    for (uint32_t i = 0; i < t % 7 + 1; ++i) a = a * 3 + i;
    acc[t] = a;
  }
  for (unsigned t = 0; t < n; ++t) {
    INFO("thread " << t);
    CHECK(o[2 * t] == acc[t]);
    if (t % 4 == 3) {
      CHECK(o[2 * t + 1] == 77777u);
    } else if (t >= 40) {
      CHECK(o[2 * t + 1] == 88888u);
    } else {
      unsigned w = t / 32 * 32;
      uint32_t active = 0, ballot = 0;
      for (unsigned l = 0; l < 32; ++l) {
        unsigned u = w + l;
        if (u < n && u % 4 != 3 && u < 40) {
          active |= 1u << l;
          if (acc[u] > 100) ballot |= 1u << l;
        }
      }
      CHECK(o[2 * t + 1] == ((ballot + acc[w]) ^ active));  // idx 0: lane 0 survives in both warps
    }
  }
}

TEST_CASE("PTX bar.sync in a diverged warp is a detected error", "[ptx][divergence][errors]") {
  Dev d(std::string(kHeader) + R"(
.visible .entry badbar(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 5;
	@%p1 bra SKIP;
	bar.sync 0;
SKIP:
	ret;
}
)");
  uint64_t out = d.alloc(64);
  CHECK_FALSE(d.launch("badbar", {1}, {32}, out));
  CHECK(d.error.find("barrier") != std::string::npos);
}

}  // namespace
