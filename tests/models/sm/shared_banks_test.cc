// Shared memory banks of the issue timing (sm.shared_banks; docs/sm.md, "Shared memory banks").
// Expected values are worked out by hand from the rule: 32 banks of 4-byte words, word w in bank
// w mod 32; a phase (the whole warp for 4-byte accesses, a half-warp for 8-byte ones) takes one
// transaction per distinct word of its busiest bank, and every transaction beyond one per phase is a
// replay costing one cycle of the LSU and of the warp's result.
#include <catch2/catch.hpp>

#include "ptx_test_util.h"

using namespace ptxtest;

namespace {
constexpr unsigned kLoads = 8;

// One warp: lane l reads `kLoads` times the element of `bytes` bytes at index l * stride (stride 0:
// every lane the same word), then writes the sum to out[l].
std::string kernel(unsigned bytes) {
  const std::string t = bytes == 8 ? "u64" : "u32", r = bytes == 8 ? "%rd" : "%r";
  std::string loads;
  for (unsigned i = 0; i < kLoads; ++i)
    loads += "\tld.shared." + t + " " + r + "5, [%rd3];\n\tadd." + (bytes == 8 ? "s64 " : "s32 ") + r + "6, " + r + "6, " +
             r + "5;\n";
  return R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 stride)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.shared .align 16 .b8 buf[4096];
	mov.u32 %r1, %tid.x;
	ld.param.u32 %r2, [stride];
	mul.lo.u32 %r3, %r1, %r2;
	mul.wide.u32 %rd1, %r3, )" + std::to_string(bytes) + R"(;
	mov.u64 %rd2, buf;
	add.s64 %rd3, %rd2, %rd1;
	mov.u32 %r6, 0;
	mov.u64 %rd6, 0;
)" + loads + R"(	ld.param.u64 %rd4, [out];
	mul.wide.u32 %rd1, %r1, 8;
	add.s64 %rd4, %rd4, %rd1;
	cvt.u64.u32 %rd5, %r6;
	add.s64 %rd6, %rd6, %rd5;
	st.global.u64 [%rd4], %rd6;
	ret;
}
)";
}

struct Banked {
  uint64_t cycles = 0;
  SmStats::Shared shared, launch;
};

Banked run(unsigned bytes, unsigned stride, unsigned banks) {
  Dev d(kernel(bytes));
  d.cfg.shared_banks = banks;
  Banked r;
  d.inspect = [&](SimtCore& core) {
    r.cycles = core.now();
    r.shared = core.stats().shared;
    REQUIRE(core.stats().launches.size() == 1);
    r.launch = core.stats().launches[0].shared;
  };
  const uint64_t out = d.alloc(32 * 8);
  const bool ok = d.launch("k", {1}, {32}, out, stride);
  INFO(d.error);
  REQUIRE(ok);
  return r;
}
}  // namespace

TEST_CASE("shared banks: replays per warp access by stride (hand-worked)") {
  struct Case {
    unsigned bytes, stride, replays_per_access;
  };
  // 4-byte words: stride 1 one word per bank; stride 2 two distinct words in banks 0, 2, ..., 30;
  // stride 32 all 32 words in bank 0; stride 0 one word for all (broadcast). 8-byte: stride 1 a
  // half-warp's 16 lanes cover words 0..31 once; stride 2 (lanes 16 bytes apart) lanes l and l + 8 of
  // a half-warp share banks 4l mod 32 and 4l+1 mod 32: 2 transactions per half-warp, 1 replay each.
  const Case cases[] = {{4, 1, 0}, {4, 2, 1}, {4, 32, 31}, {4, 0, 0}, {8, 1, 0}, {8, 2, 2}};
  for (const Case& c : cases) {
    INFO("bytes " << c.bytes << " stride " << c.stride);
    const Banked r = run(c.bytes, c.stride, 32);
    CHECK(r.shared.accesses == kLoads);
    CHECK(r.shared.replays == kLoads * c.replays_per_access);
    CHECK(r.shared.replay_cycles == kLoads * c.replays_per_access);
    CHECK(r.launch.accesses == r.shared.accesses);
    CHECK(r.launch.replays == r.shared.replays);
  }
}

TEST_CASE("shared banks: a conflict-bound warp takes one cycle more per replay") {
  // One warp: each load's replays delay its result (and the next instruction) by one cycle each.
  const Banked flat = run(4, 32, 0), free = run(4, 1, 32), two = run(4, 2, 32), all = run(4, 32, 32);
  CHECK(flat.shared.replays == 0);
  CHECK(free.cycles == flat.cycles);  // no conflict: the bank model adds nothing
  CHECK(two.cycles == free.cycles + kLoads * 1);
  CHECK(all.cycles == free.cycles + kLoads * 31);
}
