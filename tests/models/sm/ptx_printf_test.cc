// Vprintf on the SIMT core (hand-written PTX of nvcc's vprintf call form): formats in the local and
// shared windows, a diverged warp (the lanes at the lower PC print first, each group in lane order),
// CUDA's return value, and an argument pointer outside every memory.
#include <catch2/catch.hpp>

#include "models/common/print_sink.h"
#include "ptx_test_util.h"

using namespace ptxtest;

namespace {

// nvcc's call block for printf(format = %rd6, args = %rd5), the result in %r2.
const std::string kCall = R"(	{
	.param .b64 param0;
	st.param.b64 [param0], %rd6;
	.param .b64 param1;
	st.param.b64 [param1], %rd5;
	.param .b32 retval0;
	call.uni (retval0), vprintf, (param0, param1);
	ld.param.b32 %r2, [retval0];
	}
)";

// Threads 0..2 of a block print "L%d\n" from a format in their local memory, the others "S%u\n"
// from one in shared memory; the argument (the thread index) is in local memory at depot + 8.
// `args_off` is added to the argument pointer (a huge one sends it outside every memory).
std::string kernel(const std::string& args_off) {
  return R"(.version 9.0
.target sm_75
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.shared .align 4 .b8 sfmt[8];
.visible .entry k(.param .u64 out)
{
	.local .align 8 .b8 __local_depot0[16];
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<10>;
	mov.u32 %r1, %tid.x;
	mov.u64 %rd1, __local_depot0;
	cvta.local.u64 %rd2, %rd1;
	st.local.u32 [%rd1], 0x0A64254C;
	st.local.u8 [%rd1+4], 0;
	st.local.u32 [%rd1+8], %r1;
	add.u64 %rd5, %rd2, )" + args_off + R"(;
	mov.u64 %rd3, sfmt;
	st.shared.u32 [%rd3], 0x0A752553;
	st.shared.u8 [%rd3+4], 0;
	cvta.shared.u64 %rd4, %rd3;
	setp.lt.u32 %p1, %r1, 3;
	selp.b64 %rd6, %rd2, %rd4, %p1;
	@%p1 bra $L_local;
)" + kCall + R"(	bra $L_end;
$L_local:
)" + kCall + R"($L_end:
	ld.param.u64 %rd7, [out];
	cvta.to.global.u64 %rd8, %rd7;
	mul.wide.u32 %rd9, %r1, 4;
	add.s64 %rd8, %rd8, %rd9;
	st.global.u32 [%rd8], %r2;
	ret;
}
)";
}

}  // namespace

TEST_CASE("vprintf on the core: local and shared formats, a diverged warp, return values", "[sm][printf]") {
  Dev d(kernel("8"));
  uint64_t out = d.alloc(5 * 4);
  INFO(d.error);
  REQUIRE(d.launch("k", {2}, {5}, out));
  // In each block's warp the fall-through group (threads 3, 4, lower PC) prints first, then the
  // branch's, each in lane order; the two resident blocks' warps interleave, which the sink undoes.
  std::vector<std::string> order[2];
  for (auto& p : d.env.printed) {
    REQUIRE(p.block < 2);
    order[p.block].push_back(std::to_string(p.thread) + " " + p.text);
  }
  std::vector<std::string> want{"3 S3\n", "4 S4\n", "0 L0\n", "1 L1\n", "2 L2\n"};
  CHECK(order[0] == want);
  CHECK(order[1] == want);
  gpuvp::PrintSink sink;
  for (auto& p : d.env.printed) sink.add(p);
  CHECK(sink.take() == "L0\nL1\nL2\nS3\nS4\nL0\nL1\nL2\nS3\nS4\n");
  CHECK(d.download<int32_t>(out, 5) == std::vector<int32_t>{1, 1, 1, 1, 1});  // one argument each
}

TEST_CASE("vprintf on the core: an argument pointer outside every memory is an address error", "[sm][printf]") {
  Dev d(kernel("0x100000000000"));  // the local window + 2^44: no memory there
  uint64_t out = d.alloc(5 * 4);
  CHECK_FALSE(d.launch("k", {1}, {5}, out));
  CHECK_THAT(d.error, Catch::Matchers::Contains("address error") &&
                          Catch::Matchers::Contains("printf argument at 0x300000000000 is outside every memory"));
  CHECK(d.env.printed.empty());
}
