// Vulnerable-period scheduling and estimate (sw/ptx/schedule.h, vp_conditions.h, vp_estimate.h;
// docs/vulnerable-period.md). Expected orders and cycles are worked out by hand in the comments.
#include <catch2/catch.hpp>

#include <fstream>

#include "sw/ptx/schedule.h"
#include "sw/ptx/vp_conditions.h"
#include "sw/ptx/vp_estimate.h"

using namespace gpuvp;
using ptx::vp::Refusal;

namespace {

const std::string kHead = ".version 9.0\n.target sm_75\n.address_size 64\n";

ptx::Module module_of(const std::string& body) { return ptx::parse(kHead + body, "vp.ptx"); }

// The source lines of a function's body in its current order (line 1 is ".version").
std::vector<uint32_t> lines(const ptx::Function& f) {
  std::vector<uint32_t> l;
  for (const ptx::Instr& in : f.body) l.push_back(in.line);
  return l;
}

// Index of the instruction that came from source line `line`.
size_t at_line(const ptx::Function& f, uint32_t line) {
  for (size_t k = 0; k < f.body.size(); ++k)
    if (f.body[k].line == line) return k;
  FAIL("no instruction from line " << line);
  return 0;
}

Refusal check(const ptx::Function& f, size_t from, size_t to) {
  const auto acc = ptx::vp::accesses(f);
  const auto cfg = ptx::vp::analyse(f, acc);
  return ptx::vp::check_move({acc, cfg}, from, to);
}

// Test timing: a load takes 10 cycles to the next issue, a multiply 6, everything else 2; results are
// there when the next instruction may issue.
ptx::vp::Step test_step(const isa::Inst& in) {
  if (in.op == isa::Opcode::Ld) return {10, 10};
  if (in.op == isa::Opcode::Mul) return {6, 6};
  return {2, 2};
}

// As test_step, but the warp runs past a load (scoreboard): issue 2, its result after 10.
ptx::vp::Step scoreboard_step(const isa::Inst& in) {
  if (in.op == isa::Opcode::Ld) return {2, 10};
  return test_step(in);
}

double reg_cycles(const ptx::vp::Estimate& e, const std::string& reg) {
  for (const auto& [r, c] : e.per_reg)
    if (r == reg) return c;
  FAIL("no register " << reg);
  return -1;
}

// The hand-worked kernel shared with tests/cli/vp_test.cc; its instructions are on lines 8..15.
ptx::Module straight() {
  std::ifstream in(GPUVP_TEST_DATA "/ptx/vp_straight.ptx");
  return ptx::parse(std::string(std::istreambuf_iterator<char>(in), {}), "vp_straight.ptx");
}

}  // namespace

TEST_CASE("vp schedule: producers move down next to their first consumer, bottom-up", "[vp]") {
  // Body (lines 8..15): 0 ld rd1, 1 mov r1, 2 add r2, 3 mul r3, 4 add r4, 5 cvta rd2, 6 st, 7 ret.
  // Bottom-up: add r4 (4) passes cvta to sit before st; mul r3 then passes cvta to sit before add r4;
  // add r2 passes cvta and mul; mov r1 passes cvta to sit before mul, its first consumer; ld rd1
  // already precedes cvta. Order: ld, cvta, mov, mul, add r2, add r4, st, ret.
  const ptx::Module m = ptx::reschedule(straight(), ptx::Schedule::Vp);
  CHECK(lines(m.funcs[0]) == std::vector<uint32_t>{8, 13, 9, 11, 10, 12, 14, 15});
  // nvcc keeps the order.
  CHECK(lines(ptx::reschedule(straight(), ptx::Schedule::Nvcc).funcs[0]) ==
        std::vector<uint32_t>{8, 9, 10, 11, 12, 13, 14, 15});
}

TEST_CASE("vp estimate: a straight-line kernel equals the hand computation", "[vp]") {
  // Steps (test_step): ld 10, mul 6, others 2. nvcc order, producer -> last consumer, cycles summed
  // from the producer's issue to the consumer's:
  //   rd1: ld(0) -> cvta(5): 10+2+2+6+2 = 22     r1: mov(1) -> mul(3): 2+2 = 4
  //   r2: add(2) -> add(4): 2+6 = 8              r3: mul(3) -> add(4): 6
  //   r4: add(4) -> st(6): 2+2 = 4               rd2: cvta(5) -> st(6): 2        total 46
  // vp order ld, cvta, mov, mul, add r2, add r4, st, ret:
  //   rd1: 10   rd2: cvta(1) -> st(6): 2+2+6+2+2 = 14   r1: mov(2) -> add r2(4): 2+6 = 8
  //   r3: mul(3) -> add r4(5): 6+2 = 8   r2: 2   r4: 2                                 total 44
  const ptx::Module m = straight();
  const auto a = ptx::vp::estimate(m.funcs[0], test_step, 8);
  CHECK(a.total == 46);
  CHECK(reg_cycles(a, "%rd1") == 22);
  CHECK(reg_cycles(a, "%r1") == 4);
  CHECK(reg_cycles(a, "%r2") == 8);
  CHECK(reg_cycles(a, "%r3") == 6);
  CHECK(reg_cycles(a, "%r4") == 4);
  CHECK(reg_cycles(a, "%rd2") == 2);
  REQUIRE(a.per_block.size() == 1);
  CHECK(a.per_block[0] == 46);
  const auto b = ptx::vp::estimate(ptx::reschedule(m, ptx::Schedule::Vp).funcs[0], test_step, 8);
  CHECK(b.total == 44);
  CHECK(reg_cycles(b, "%rd2") == 14);
  CHECK(reg_cycles(b, "%r1") == 8);
  CHECK(reg_cycles(b, "%r3") == 8);
}

TEST_CASE("vp estimate: a consumer waits for a load's result", "[vp]") {
  // scoreboard_step, nvcc order: issue times 0 ld, 2 mov, 4 add r2, 6 mul, 12 add r4, 14 cvta (rd1 is
  // there at 10), 16 st: rd1 14, r1 4, r2 8, r3 6, r4 4, rd2 2: total 38.
  // vp order (ld, cvta, mov, mul, add r2, add r4, st): cvta waits for rd1 until 10, so ld's gap is 10
  // and every other value is as with test_step: total 44. Moving the load next to its consumer hides
  // none of its latency and lengthens rd2's life: the estimate grows.
  const ptx::Module m = straight();
  const auto a = ptx::vp::estimate(m.funcs[0], scoreboard_step, 8);
  CHECK(a.total == 38);
  CHECK(reg_cycles(a, "%rd1") == 14);
  const auto b = ptx::vp::estimate(ptx::reschedule(m, ptx::Schedule::Vp).funcs[0], scoreboard_step, 8);
  CHECK(b.total == 44);
  CHECK(reg_cycles(b, "%rd1") == 10);
}

TEST_CASE("vp estimate: loops count their iterations", "[vp]") {
  // Body: 0 ld rd1 (10), 1 mov r1 (2), 2 mov r2 (2), [loop 3..5: 3 add r1, 4 setp p1, 5 @p1 bra]
  // (2 each), 6 cvta rd2, 7 st, 8 ret. Trips 4, so the loop costs 4 x 6 = 24 to a value living across it.
  //   rd1: ld(0) -> cvta(6): 10+2+2+24 = 38
  //   r1 (mov, 1): its consumer add(3) is in a loop it is outside of: kept to the loop's end: 2+2+24 = 28
  //   r2 (mov, 2): the same: 2+24 = 26
  //   r1 (add, 3): consumers setp(4): 2, add(3) next iteration: around the loop 6, st(7): 2+2+2+2 = 8 -> 8
  //   p1 (setp, 4) -> bra(5): 2        rd2: cvta(6) -> st(7): 2
  // Total 104; per register r1 28+8 = 36; per block B0 (0..2) 92, B1 (3..5) 10, B2 (6..8) 2.
  const ptx::Module m = module_of(R"(.visible .entry k(.param .u64 p) {
.reg .b32 %r<3>; .reg .b64 %rd<3>; .reg .pred %p<2>;
ld.param.u64 %rd1, [p];
mov.u32 %r1, 0;
mov.u32 %r2, 7;
$L:
add.s32 %r1, %r1, %r2;
setp.lt.u32 %p1, %r1, 100;
@%p1 bra $L;
cvta.to.global.u64 %rd2, %rd1;
st.global.u32 [%rd2], %r1;
ret;
}
)");
  const auto e = ptx::vp::estimate(m.funcs[0], test_step, 4);
  CHECK(e.total == 104);
  CHECK(reg_cycles(e, "%rd1") == 38);
  CHECK(reg_cycles(e, "%r1") == 36);
  CHECK(reg_cycles(e, "%r2") == 26);
  CHECK(reg_cycles(e, "%p1") == 2);
  CHECK(e.per_block == std::vector<double>{92, 10, 2});
}

TEST_CASE("vp condition (a): a producer does not move past a barrier", "[vp]") {
  // Moving the shared load below bar.sync would read what other warps store after the barrier.
  const ptx::Module m = module_of(R"(.shared .align 4 .b32 s[64];
.visible .entry k(.param .u64 p) {
.reg .b32 %r<4>; .reg .b64 %rd<2>;
mov.u32 %r3, %tid.x;
ld.shared.u32 %r1, [s];
bar.sync 0;
st.shared.u32 [s], %r3;
add.s32 %r2, %r1, 1;
ld.param.u64 %rd1, [p];
st.u32 [%rd1], %r2;
ret;
}
)");
  const ptx::Function& f = m.funcs[0];
  CHECK(check(f, at_line(f, 8), at_line(f, 11)) == Refusal::Barrier);
  const ptx::Module r = ptx::reschedule(m, ptx::Schedule::Vp);  // kept: g refers into it
  const ptx::Function& g = r.funcs[0];
  CHECK(at_line(g, 8) < at_line(g, 9));  // the load stays above the barrier
}

TEST_CASE("vp condition (b): a producer does not move past what reads its result or writes its inputs", "[vp]") {
  // add r1 = r2 + 1 may not pass `add r2 = r4 + 1` (it would read the new r2), and the load may not
  // pass the store (same address: it would read what the store wrote).
  const ptx::Module m = module_of(R"(.visible .entry k(.param .u64 p) {
.reg .b32 %r<6>; .reg .b64 %rd<2>;
ld.param.u64 %rd1, [p];
mov.u32 %r2, 5;
mov.u32 %r4, 9;
add.s32 %r1, %r2, 1;
add.s32 %r2, %r4, 1;
ld.u32 %r5, [%rd1];
st.u32 [%rd1], %r2;
add.s32 %r3, %r1, %r2;
add.s32 %r3, %r3, %r5;
st.u32 [%rd1], %r3;
ret;
}
)");
  const ptx::Function& f = m.funcs[0];
  CHECK(check(f, at_line(f, 9), at_line(f, 13)) == Refusal::Dependence);   // add r1 past add r2
  CHECK(check(f, at_line(f, 11), at_line(f, 14)) == Refusal::Dependence);  // ld past st
  const ptx::Module r = ptx::reschedule(m, ptx::Schedule::Vp);  // kept: g refers into it
  const ptx::Function& g = r.funcs[0];
  CHECK(at_line(g, 9) < at_line(g, 10));
  CHECK(at_line(g, 11) < at_line(g, 12));
}

TEST_CASE("vp condition (c): a producer does not move into a loop", "[vp]") {
  // r1 += 3 before the loop, read in it: moved into the loop it would add 3 on every iteration.
  const ptx::Module m = module_of(R"(.visible .entry k(.param .u64 p) {
.reg .b32 %r<4>; .reg .b64 %rd<2>; .reg .pred %p<2>;
ld.param.u64 %rd1, [p];
ld.u32 %r1, [%rd1];
mov.u32 %r2, 0;
add.s32 %r1, %r1, 3;
$L:
add.s32 %r2, %r2, %r1;
setp.lt.u32 %p1, %r2, 50;
@%p1 bra $L;
st.u32 [%rd1], %r2;
ret;
}
)");
  const ptx::Function& f = m.funcs[0];
  CHECK(check(f, at_line(f, 9), at_line(f, 11)) == Refusal::LoopDepth);
  const ptx::Module r = ptx::reschedule(m, ptx::Schedule::Vp);  // kept: g refers into it
  const ptx::Function& g = r.funcs[0];
  CHECK(at_line(g, 9) < 4);  // still in the block before the loop's label (instructions 0..3)
  // mov r2, whose value leaves the block, moves to the block's end past add r1 (no conflict).
  CHECK(at_line(g, 8) == 3);
}

TEST_CASE("vp schedule: unknown names are refused", "[vp]") {
  CHECK(ptx::parse_schedule("vp") == ptx::Schedule::Vp);
  CHECK(ptx::parse_schedule("nvcc") == ptx::Schedule::Nvcc);
  CHECK_THROWS_WITH(ptx::parse_schedule("fast"), Catch::Contains("known: nvcc, vp"));
}
