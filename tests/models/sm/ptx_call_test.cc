// __noinline__ device functions compiled by nvcc (tests/data/ptx/devcall.cu, committed .ptx) and
// hand-written .func/call/ret PTX, assembled with the call lowering (no call-site table installed)
// and run on the SIMT core.
#include <catch2/catch.hpp>

#include "ptx_test_util.h"
#include "sw/isa/encoding.h"

using namespace ptxtest;

namespace {

int leaf(int x, int y) {
  if (x < 0) return -x;
  int s = 0;
  for (int i = 0; i < (y & 7); ++i) s += x ^ i;
  return s;
}

void devcall_case(unsigned grid, unsigned block) {
  Dev d(read_text(GPUVP_TEST_DATA "/ptx/devcall.ptx"), "devcall.ptx");
  unsigned n = grid * block;
  std::vector<int32_t> out0(n);
  for (unsigned i = 0; i < n; ++i) out0[i] = int32_t(i * 3 + 1);
  uint64_t out = d.upload(out0), dout = d.alloc(n * 8), sout = d.alloc(n * 4);
  REQUIRE(d.launch("devcall", {grid}, {block}, out, dout, sout));
  INFO(d.error);
  auto o = d.download<int32_t>(out, n);
  auto dd = d.download<double>(dout, n);
  auto so = d.download<int32_t>(sout, n);
  std::vector<int> r(n);
  for (unsigned t = 0; t < n; ++t) r[t] = t % 3 == 0 ? leaf(int(t) - 10, int(t)) : t % 3 == 1 ? leaf(int(t), int(t) + 1) * 2 : 0;
  for (unsigned t = 0; t < n; ++t) {
    int rs = r[t] + r[t ^ 1];
    unsigned base = t / block * block, nb_t = base + (t - base + 1) % block;
    int nb = r[nb_t] + r[nb_t ^ 1];
    double mix = double(leaf(int(t) - 16, int(t))) * 1.5 + double(float(t) * 0.5f) - double(t) * 0.25;
    INFO("thread " << t);
    CHECK(so[t] == rs);
    CHECK(dd[t] == mix);
    CHECK(o[t] == out0[t] + ((t & 1) ? 0 : nb));
  }
}

}  // namespace

TEST_CASE("nvcc __noinline__ calls: struct by value and return, nested, divergent, then shfl and bar.sync", "[ptx][call]") {
  devcall_case(1, 32);
  devcall_case(3, 64);
  devcall_case(2, 96);
}

TEST_CASE("lowered calls: Call carries only its target, copies are plain local ld/st", "[ptx][call]") {
  Dev d(read_text(GPUVP_TEST_DATA "/ptx/devcall.ptx"), "devcall.ptx");
  const auto* k = d.img.find_kernel("devcall");
  REQUIRE(k);
  // The .funcs come first (callees before callers): every call target is below the kernel.
  unsigned calls = 0;
  for (uint64_t pc = k->entry; pc < k->end;) {
    isa::Inst in;
    std::string why;
    size_t off = size_t(pc - kCode);
    REQUIRE(isa::decode(d.img.code.data() + off, d.img.code.size() - off, in, &why));
    if (in.op == Opcode::Call) {
      ++calls;
      CHECK(in.nops == 1);
      CHECK(uint64_t(in.ops[0].imm) < k->entry);
    }
    pc += in.size;
  }
  CHECK(calls == 5);  // leaf, leaf, make, mix, accumulate
}

namespace {
// Hand-written: a function with two returns, a function calling another with a 16-byte .b8 array
// argument (copied in 8-byte pieces), a void function, a call under a guard, and a call in a loop
// with a thread-dependent trip count.
const char* kCalls = R"(
.version 9.0
.target sm_75
.address_size 64

.func (.param .b32 rv) sel(.param .b32 a, .param .b32 b)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	ld.param.u32 %r1, [a];
	ld.param.u32 %r2, [b];
	setp.gt.s32 %p1, %r1, %r2;
	@%p1 bra BIG;
	sub.s32 %r3, %r2, %r1;
	st.param.b32 [rv], %r3;
	ret;
BIG:
	mul.lo.s32 %r3, %r1, 2;
	st.param.b32 [rv], %r3;
	ret;
}

.func (.param .align 8 .b8 rv[16]) pairop(.param .align 8 .b8 v[16], .param .b8 c)
{
	.reg .b16 %h<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [v];
	ld.param.u32 %r1, [v+8];
	ld.param.u32 %r2, [v+12];
	ld.param.u8 %h1, [c];
	cvt.u32.u16 %r3, %h1;
	{
	.param .b32 p0;
	.param .b32 p1;
	.param .b32 r0;
	st.param.b32 [p0], %r1;
	st.param.b32 [p1], %r2;
	call.uni (r0), sel, (p0, p1);
	ld.param.b32 %r4, [r0];
	}
	add.s32 %r5, %r4, %r3;
	add.s64 %rd2, %rd1, 1000;
	st.param.b64 [rv], %rd2;
	st.param.b32 [rv+8], %r5;
	st.param.b32 [rv+12], %r3;
	ret;
}

.func bump(.param .b64 ptr)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [ptr];
	ld.global.u32 %r1, [%rd1];
	add.s32 %r2, %r1, 1;
	st.global.u32 [%rd1], %r2;
	ret;
}

.visible .entry k(.param .u64 out, .param .u64 cnt)
{
	.reg .pred %p<4>;
	.reg .b16 %h<2>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<10>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [cnt];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 16;
	add.s64 %rd4, %rd1, %rd3;
	mul.wide.u32 %rd5, %r1, 4;
	add.s64 %rd6, %rd2, %rd5;
	and.b32 %r2, %r1, 7;
	cvt.u16.u32 %h1, %r2;
	mul.wide.u32 %rd7, %r1, 3;
	xor.b32 %r3, %r1, 5;
	{
	.param .align 8 .b8 a0[16];
	.param .b8 a1;
	.param .align 8 .b8 r0[16];
	st.param.b64 [a0], %rd7;
	st.param.b32 [a0+8], %r3;
	st.param.b32 [a0+12], %r1;
	st.param.b8 [a1], %h1;
	call.uni (r0), pairop, (a0, a1);
	ld.param.b64 %rd8, [r0];
	ld.param.b32 %r4, [r0+8];
	ld.param.b32 %r5, [r0+12];
	}
	st.global.u64 [%rd4], %rd8;
	st.global.u32 [%rd4+8], %r4;
	st.global.u32 [%rd4+12], %r5;
	// guarded call: odd threads only
	and.b32 %r6, %r1, 1;
	setp.eq.u32 %p1, %r6, 1;
	{
	.param .b64 q0;
	st.param.b64 [q0], %rd6;
	@%p1 call bump, (q0);
	}
	// call in a loop with tid % 5 iterations
	rem.u32 %r7, %r1, 5;
	mov.u32 %r8, 0;
LOOP:
	setp.ge.u32 %p2, %r8, %r7;
	@%p2 bra DONE;
	{
	.param .b64 q1;
	st.param.b64 [q1], %rd6;
	call bump, (q1);
	}
	add.u32 %r8, %r8, 1;
	bra LOOP;
DONE:
	ret;
}
)";
}  // namespace

TEST_CASE("hand-written calls: array params, nested call, two returns, guarded call, call in a divergent loop",
          "[ptx][call]") {
  Dev d(kCalls);
  unsigned n = 70;
  uint64_t out = d.alloc(n * 16), cnt = d.alloc(n * 4);
  REQUIRE(d.launch("k", {1}, {n}, out, cnt));
  auto o = d.download<uint32_t>(out, n * 4);
  auto c = d.download<uint32_t>(cnt, n);
  for (unsigned t = 0; t < n; ++t) {
    INFO("thread " << t);
    int a = int(t ^ 5), b = int(t);
    int sel = a > b ? a * 2 : b - a;
    uint64_t lo = uint64_t(o[4 * t]) | uint64_t(o[4 * t + 1]) << 32;
    CHECK(lo == uint64_t(t) * 3 + 1000);
    CHECK(int(o[4 * t + 2]) == sel + int(t & 7));
    CHECK(o[4 * t + 3] == (t & 7));
    CHECK(c[t] == (t & 1) + t % 5);
  }
}
