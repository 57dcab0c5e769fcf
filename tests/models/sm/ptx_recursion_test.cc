// Hand-written recursive PTX on the SIMT core: every activation has its own frame on the thread's
// call stack (docs/isa-encoding.md, "Call stack"), registers and predicates live across a recursive
// call are saved in it, and a recursion deeper than the stack is a "stack overflow" error.
// References are computed here in C++, independently of the simulator.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "ptx_test_util.h"

using namespace ptxtest;
using Catch::Matchers::Contains;

namespace {

const char* kHead = ".version 9.0\n.target sm_75\n.address_size 64\n";

// sum(n) = n + sum(n - 1) (+ 100 when n > 3), sum(0) = 0: the call is guarded by %p1, which the
// result copy after it reads too, and %p2 and %r1 are live across it.
const char* kSum = R"(
.func (.param .b32 rv) sum(.param .b32 n)
{
	.reg .pred %p<3>;
	.reg .b32 %r<6>;
	ld.param.u32 %r1, [n];
	setp.ne.u32 %p1, %r1, 0;
	setp.gt.u32 %p2, %r1, 3;
	mov.u32 %r2, 0;
	add.u32 %r3, %r1, -1;
	{
	.param .b32 a;
	.param .b32 r;
	st.param.b32 [a], %r3;
	@%p1 call (r), sum, (a);
	@%p1 ld.param.b32 %r2, [r];
	}
	add.u32 %r4, %r2, %r1;
	@%p2 add.u32 %r4, %r4, 100;
	st.param.b32 [rv], %r4;
	ret;
}
)";

// Mutual recursion: `name`(n, acc) = n + n*n (+ the caller's n, read through the pointer acc to the
// caller's array, when add_caller) + `other`(n - 1, this activation's array). Each activation keeps
// [n, n*n] at byte `at` of its local array (the depot, written through %SPL and through the generic
// window), which must survive the call.
std::string mutual(const char* name, const char* other, int at, bool add_caller) {
  return fmt::format(R"(
.func (.param .b32 rv) {0}(.param .b32 n, .param .b64 acc)
{{
	.local .align 16 .b8 __local_depot_{0}[{1}];
	.reg .b64 %SP, %SPL, %rd<2>;
	.reg .pred %p<2>;
	.reg .b32 %r<9>;
	mov.u64 %SPL, __local_depot_{0};
	cvta.local.u64 %SP, %SPL;
	ld.param.u32 %r1, [n];
	ld.param.u64 %rd1, [acc];
	st.local.u32 [%SPL+{2}], %r1;
	mul.lo.u32 %r2, %r1, %r1;
	st.u32 [%SP+{3}], %r2;
	setp.eq.u32 %p1, %r1, 0;
	mov.u32 %r3, 0;
	@%p1 bra DONE;
	add.u32 %r4, %r1, -1;
	{{
	.param .b32 a;
	.param .b64 b;
	.param .b32 r;
	st.param.b32 [a], %r4;
	st.param.b64 [b], %SP;
	call.uni (r), {4}, (a, b);
	ld.param.b32 %r3, [r];
	}}
DONE:
	ld.local.u32 %r5, [%SPL+{2}];
	ld.u32 %r6, [%SP+{3}];
	add.u32 %r7, %r5, %r6;
	add.u32 %r7, %r7, %r3;
	{5}
	st.param.b32 [rv], %r7;
	ret;
}}
)",
                     name, at + 8, at, at + 4, other, add_caller ? "ld.u32 %r8, [%rd1];\n\tadd.u32 %r7, %r7, %r8;" : "");
}

const std::string kMutual = ".func (.param .b32 rv) odd_sum(.param .b32 n, .param .b64 acc);\n" +
                            mutual("even_sum", "odd_sum", 0, false) + mutual("odd_sum", "even_sum", 8, true);

// out[tid] = f(tid % mod), f one of the functions above.
std::string kernel(const std::string& f, unsigned mod, bool acc) {
  return fmt::format(R"(
.visible .entry k(.param .u64 out)
{{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	mov.u32 %r1, %tid.x;
	rem.u32 %r2, %r1, {};
	{{
	.param .b32 a;
	{}
	.param .b32 r;
	st.param.b32 [a], %r2;
	{}
	call.uni (r), {}, (a{});
	ld.param.b32 %r3, [r];
	}}
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r3;
	ret;
}}
)",
                     mod, acc ? ".param .b64 b;" : "", acc ? "st.param.b64 [b], 0;" : "", f, acc ? ", b" : "");
}

unsigned sum_ref(unsigned n) { return n == 0 ? 0 : n + sum_ref(n - 1) + (n > 3 ? 100 : 0); }
unsigned odd_ref(unsigned n, unsigned caller_n);
unsigned even_ref(unsigned n) { return n + n * n + (n ? odd_ref(n - 1, n) : 0); }
unsigned odd_ref(unsigned n, unsigned caller_n) { return n + n * n + caller_n + (n ? even_ref(n - 1) : 0); }

std::vector<uint32_t> run(Dev& d, unsigned threads, uint32_t stack_bytes = 4096) {
  d.cfg.stack_bytes = stack_bytes;
  uint64_t out = d.alloc(threads * 4);
  bool ok = d.launch("k", {1}, {threads}, out);
  INFO(d.error);
  REQUIRE(ok);
  return d.download<uint32_t>(out, threads);
}

}  // namespace

TEST_CASE("recursion: a guarded self call, its predicates and registers saved per activation", "[ptx][call][recursion]") {
  for (bool flexgrip : {false, true}) {
    Dev d(std::string(kHead) + kSum + kernel("sum", 23, false));
    if (flexgrip) d.cfg.timing = SmTiming::Flexgrip;
    auto o = run(d, 70);  // lanes recurse to different depths
    for (unsigned t = 0; t < 70; ++t) {
      INFO("thread " << t);
      CHECK(o[t] == sum_ref(t % 23));
    }
  }
}

TEST_CASE("recursion: mutual recursion, local arrays per activation, a pointer into the caller's frame",
          "[ptx][call][recursion]") {
  Dev d(kHead + kMutual + kernel("even_sum", 17, true));
  auto o = run(d, 64);
  for (unsigned t = 0; t < 64; ++t) {
    INFO("thread " << t);
    CHECK(o[t] == even_ref(t % 17));
  }
  const auto* even = d.img.find_kernel("k");
  REQUIRE(even);
  CHECK(even->call_stack);
}

TEST_CASE("recursion: deeper than the call stack is a stack overflow error", "[ptx][call][recursion]") {
  Dev d(std::string(kHead) + kSum + kernel("sum", 23, false));
  REQUIRE(d.img.functions.size() == 1);
  const ptx::FuncInfo& f = d.img.functions[0];
  CHECK((f.name == "sum" && f.recursive));
  // sum(n) takes n + 1 frames: lanes 0..21 fit in 22 frames, lane 22 does not.
  auto o = run(d, 22, 22 * f.stack_frame);
  CHECK(o[21] == sum_ref(21));
  uint64_t out = d.alloc(23 * 4);
  CHECK_FALSE(d.launch("k", {1}, {23}, out));
  CHECK_THAT(d.error, Contains("stack error: stack overflow") && Contains("lane 22"));
  d.cfg.stack_bytes -= 8;
  CHECK_FALSE(d.launch("k", {1}, {22}, out));
  CHECK_THAT(d.error, Contains("lane 21"));
}
