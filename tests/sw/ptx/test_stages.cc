// The parser's and assembler's stages one at a time (sw/ptx/lexer.h, sw/ptx/asm_internal.h).
// Expected values are worked out by hand from the stage's rules.
#include <catch2/catch.hpp>

#include "sw/ptx/asm_internal.h"
#include "sw/ptx/lexer.h"

using namespace gpuvp;
using ptx::detail::T;

namespace {

const std::string kHead = ".version 9.0\n.target sm_75\n.address_size 64\n";

struct Staged {
  ptx::Module m;
  ptx::Layout layout{0x80000000ull, 0x10000ull, 0x200000ull};
  ptx::Image img;
  ptx::detail::Program p;
  explicit Staged(const std::string& body) : m(ptx::parse(kHead + body, "s.ptx")), p(m, layout) {}
  // The stages up to and including the KernelInfo fill, as ptx::assemble runs them.
  void through_kernels() {
    ptx::detail::build_call_graph(p);
    ptx::detail::plan_saves(p);
    ptx::detail::lay_out_frames(p);
    ptx::detail::allocate_slots(p);
    ptx::detail::lay_out_module_vars(p, img);
    ptx::detail::lay_out_shared(p);
    ptx::detail::fill_kernel_infos(p, img);
  }
  size_t fn(const std::string& name) const { return size_t(m.find(name) - m.funcs.data()); }
};

}  // namespace

TEST_CASE("lexer: tokens, kinds and positions", "[stages]") {
  auto t = ptx::detail::lex("ld.shared::cta.u32 %r1, [x+4]; // c\n0f3F800000 1.5e-3 0x1e+2", "f.ptx");
  std::vector<std::string> s;
  for (auto& k : t) s.push_back(k.s);
  CHECK(s == std::vector<std::string>{"ld.shared::cta.u32", "%r1", ",", "[", "x", "+", "4", "]", ";", "0f3F800000",
                                      "1.5e-3", "0x1e", "+", "2", ""});
  CHECK(t[0].k == T::Ident);
  CHECK(t[1].col == 20);
  CHECK(t[2].k == T::Punct);
  CHECK(t[8].col == 30);
  CHECK(t[9].k == T::Num);
  CHECK(t[9].line == 2);
  CHECK(t[10].col == 12);  // an exponent sign belongs to a decimal number
  CHECK(t[12].k == T::Punct);  // ... but not to a hex one
  CHECK(t.back().k == T::End);
  CHECK(t.back().line == 2);
}

TEST_CASE("lexer: unterminated comment and string", "[stages]") {
  CHECK_THROWS_WITH(ptx::detail::lex("  /* x", "f.ptx"), "f.ptx:1:3: unterminated comment");
  CHECK_THROWS_WITH(ptx::detail::lex("a\n .file 1 \"x\n", "f.ptx"), "f.ptx:2:10: unterminated string");
}

TEST_CASE("lexer: integer literals", "[stages]") {
  int64_t v = 0;
  CHECK((ptx::detail::parse_int("0x10", v) && v == 16));
  CHECK((ptx::detail::parse_int("010", v) && v == 8));
  CHECK((ptx::detail::parse_int("10U", v) && v == 10));
  CHECK((ptx::detail::parse_int("18446744073709551615", v) && v == -1));
  CHECK_FALSE(ptx::detail::parse_int("18446744073709551616", v));
  CHECK_FALSE(ptx::detail::parse_int("09", v));
  CHECK_FALSE(ptx::detail::parse_int("0x", v));
  CHECK_FALSE(ptx::detail::parse_int("U", v));
}

TEST_CASE("assembler stages: frames, slots and kernel info of a call", "[stages]") {
  Staged s(R"(.func (.param .b32 r) f(.param .b8 a, .param .b64 b)
{
  .reg .b32 %q<2>;
  .local .align 4 .b8 d[3];
  ret;
}
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .param .b8 x;
  .param .b64 y;
  .param .b32 z;
  call (z), f, (x, y);
  ret;
}
)");
  s.through_kernels();
  size_t f = s.fn("f"), k = s.fn("k");
  // f: a at 0 (1 byte), b aligned to 8 (8..16), r at 16 (..20), d at 20 (..23); frame 24.
  CHECK(s.p.param_off[f] == std::vector<uint32_t>{0, 8});
  CHECK(s.p.ret_off[f] == std::vector<uint32_t>{16});
  CHECK(s.p.var_off[f] == std::vector<uint32_t>{20});
  CHECK(s.p.frame[f] == 24);
  // k: x at 0, y at 8, z at 16 (..20); frame 24.
  CHECK(s.p.var_off[k] == std::vector<uint32_t>{0, 8, 16});
  CHECK(s.p.frame[k] == 24);
  // k calls: 3 registers + the scratch slot; f sits above the largest calling kernel.
  CHECK(s.p.nregs[k] == 4);
  CHECK(s.p.nregs[f] == 2);
  CHECK(s.p.rbase[f] == 4);
  CHECK(s.p.pbase[f] == 2);
  CHECK(s.p.lbase[f] == 24);
  REQUIRE(s.img.kernels.size() == 1);
  const auto& ki = s.img.kernels[0];
  CHECK(ki.num_regs == 6);      // f's slots 4..5
  CHECK(ki.num_preds == 2);
  CHECK(ki.local_bytes == 48);  // f's frame 24..48
  ptx::detail::order_code(s.p);
  CHECK(s.p.order == std::vector<size_t>{f, k});
}

TEST_CASE("assembler stages: call lowering copies through the scratch slot", "[stages]") {
  Staged s(R"(.func f(.param .b32 a)
{
  ret;
}
.visible .entry k()
{
  .param .b32 x;
  call f, (x);
  ret;
}
)");
  s.through_kernels();
  ptx::detail::order_code(s.p);
  ptx::detail::lower_functions(s.p, s.img);
  // f: ret. k: ld.local scratch <- [0] (x), st.local [8] (f's a: above k's 8-byte frame) <- scratch,
  // call, ret.
  REQUIRE(s.p.sites.size() == 5);
  const auto& ld = s.p.sites[1].inst;
  const auto& st = s.p.sites[2].inst;
  CHECK(ld.op == isa::Opcode::Ld);
  CHECK(ld.mod.space == isa::Space::Local);
  CHECK(ld.type == isa::DType::B32);
  CHECK(ld.ops[0].reg == 0);  // k has no registers: the scratch slot is slot 0
  CHECK(ld.ops[1].imm == 0);
  CHECK(st.op == isa::Opcode::St);
  CHECK(st.ops[0].imm == 8);
  CHECK(st.ops[1].reg == 0);
  CHECK(s.p.sites[1].synthetic);
  CHECK(s.p.sites[3].inst.op == isa::Opcode::Call);
  CHECK(s.p.sites[3].inst.nops == 1);
  CHECK_FALSE(s.p.sites[3].synthetic);
  CHECK(s.p.first[s.fn("k")] == 1);
  CHECK(s.p.fend[s.fn("k")] == 5);

  ptx::detail::lay_out_code(s.p);
  // Addresses follow the sizes; the call targets f's first instruction.
  CHECK(s.p.addr[0] == s.layout.code_base);
  for (size_t i = 0; i < s.p.sites.size(); ++i) CHECK(s.p.addr[i + 1] == s.p.addr[i] + s.p.sites[i].inst.size);
  CHECK(s.p.sites[3].inst.ops[0].imm == int64_t(s.layout.code_base));
}

namespace {
// a and b call each other, c calls itself, d calls nothing; the kernel calls c and d.
const char* kCycles = R"(.func (.param .b32 r) b(.param .b32 x);
.func (.param .b32 r) a(.param .b32 x)
{
  .reg .pred %p<2>;
  .reg .b32 %q<4>;
  ld.param.b32 %q1, [x];
  setp.eq.s32 %p1, %q1, 0;
  {
  .param .b32 y;
  .param .b32 z;
  st.param.b32 [y], %q1;
  call (z), b, (y);
  ld.param.b32 %q2, [z];
  }
  @%p1 add.s32 %q2, %q2, %q1;
  st.param.b32 [r], %q2;
  ret;
}
.func (.param .b32 r) b(.param .b32 x)
{
  .reg .b32 %q<2>;
  ld.param.b32 %q1, [x];
  {
  .param .b32 y;
  .param .b32 z;
  st.param.b32 [y], %q1;
  call (z), a, (y);
  ld.param.b32 %q1, [z];
  }
  st.param.b32 [r], %q1;
  ret;
}
.func c()
{
  call c, ();
  ret;
}
.func d()
{
  ret;
}
.visible .entry k()
{
  call c, ();
  call d, ();
  ret;
}
)";
}  // namespace

TEST_CASE("assembler stages: call cycles, saves around recursive calls, call stack frames", "[stages]") {
  Staged s(kCycles);
  s.through_kernels();
  size_t a = s.fn("a"), b = s.fn("b"), c = s.fn("c"), d = s.fn("d"), k = s.fn("k");
  CHECK(s.p.scc[a] == s.p.scc[b]);
  CHECK(s.p.scc[a] != s.p.scc[c]);
  CHECK(s.p.recursive == std::vector<char>{1, 1, 1, 0, 0});  // module order: b, a, c, d, k
  // a's call of b (body index 3): %q1 and %p1 are read after it; b's call of a saves nothing.
  REQUIRE(s.p.saves[a].count(3));
  CHECK(s.p.saves[a].at(3).regs == std::vector<uint32_t>{1});
  CHECK(s.p.saves[a].at(3).preds == std::vector<uint32_t>{1});
  CHECK(s.p.saves[b].at(2).regs.empty());
  // a: x 0, r 4 (static frame 8), y 8, z 12, %q1 saved at 16, %p1 at 24, return address 32..40.
  CHECK(s.p.frame[a] == 8);
  CHECK(s.p.reg_save[a][1] == 16);
  CHECK(s.p.pred_save[a][1] == 24);
  CHECK(s.p.stack_frame[a] == 40);
  CHECK(s.p.stack_frame[b] == 24);  // x, r, y, z, return address
  CHECK(s.p.stack_frame[c] == 8);   // the return address alone
  CHECK(s.p.stack_frame[d] == 0);
  // The stack pointer above k's scratch slot; the stack above the static frames (b 0..8, a 8..16).
  CHECK(s.p.sp == 1);
  CHECK(s.p.rbase[b] == 2);
  CHECK(s.p.stack_base == 16);
  REQUIRE(s.img.kernels.size() == 1);
  CHECK(s.img.kernels[0].call_stack);
  CHECK(s.img.kernels[0].local_bytes == 16);
  (void)d, (void)k;
}

TEST_CASE("assembler stages: a recursive function's prologue, stack call and ret", "[stages]") {
  Staged s(kCycles);
  s.through_kernels();
  ptx::detail::order_code(s.p);
  ptx::detail::lower_functions(s.p, s.img);
  size_t c = s.fn("c");
  // c: add sp, sp, 8; call.local c, [sp + 16 + 8]; add sp, sp, -8; ret.local [sp + 16].
  REQUIRE(s.p.fend[c] - s.p.first[c] == 4);
  const auto* site = &s.p.sites[s.p.first[c]];
  CHECK(site[0].inst.op == isa::Opcode::Add);
  CHECK((site[0].inst.ops[0].reg == 1 && site[0].inst.ops[2].imm == 8));
  CHECK(site[0].synthetic);
  CHECK(site[1].inst.op == isa::Opcode::Call);
  CHECK(site[1].inst.nops == 2);
  CHECK(site[1].inst.ops[1].kind == isa::OpKind::Mem);
  CHECK((site[1].inst.ops[1].reg == 1 && site[1].inst.ops[1].imm == 24));
  CHECK(site[2].inst.ops[2].imm == -8);
  CHECK(site[3].inst.op == isa::Opcode::Ret);
  CHECK((site[3].inst.ops[0].reg == 1 && site[3].inst.ops[0].imm == 16));
  CHECK(s.p.site_of[c][0] == s.p.first[c] + 1);  // a label on the first instruction follows the prologue
}

TEST_CASE("assembler stages: shared memory layout, region 0 for .func variables", "[stages]") {
  Staged s(R"(.shared .align 4 .b8 s1[6];
.shared .align 8 .b8 s2[8];
.func g()
{
  .reg .b64 %rd<2>;
  mov.u64 %rd1, s2;
  ret;
}
.visible .entry k1()
{
  .reg .b64 %rd<2>;
  mov.u64 %rd1, s1;
  mov.u64 %rd1, s2;
  ret;
}
.visible .entry k2()
{
  call g;
  ret;
}
.visible .entry k3()
{
  .reg .b64 %rd<2>;
  mov.u64 %rd1, s1;
  ret;
}
)");
  s.through_kernels();
  // s2 is used by g: region 0 at offset 0 (8 bytes) in every kernel that uses it.
  CHECK(s.p.region0 == std::vector<int64_t>{-1, 0});
  CHECK(s.p.region0_end == 8);
  size_t k1 = s.fn("k1"), k2 = s.fn("k2"), k3 = s.fn("k3");
  CHECK(s.p.kshared[k1] == std::vector<int64_t>{8, 0});  // s1 after region 0
  CHECK(s.p.kshared[k2] == std::vector<int64_t>{-1, 0});
  CHECK(s.p.kshared[k3] == std::vector<int64_t>{0, -1});  // no region 0 needed
  REQUIRE(s.img.kernels.size() == 3);
  CHECK(s.img.kernels[0].static_shared_bytes == 14);
  CHECK(s.img.kernels[1].static_shared_bytes == 8);
  CHECK(s.img.kernels[2].static_shared_bytes == 6);
}

TEST_CASE("assembler stages: .global and .const layout", "[stages]") {
  Staged s(R"(.global .align 2 .u16 a;
.global .align 8 .u64 b = 7;
.const .align 4 .u8 c[3] = {1, 2};
.const .align 4 .u32 d = 0x01020304;
)");
  ptx::detail::lay_out_module_vars(s.p, s.img);
  CHECK(s.p.mvar == std::vector<uint64_t>{0x200000, 0x200008, 0x10000, 0x10004});
  CHECK(s.img.global_bytes == 16);
  CHECK(s.img.const_data == std::vector<uint8_t>{1, 2, 0, 0, 4, 3, 2, 1});
  REQUIRE(s.img.globals.size() == 2);
  CHECK(s.img.globals[1].init == std::vector<uint8_t>{7, 0, 0, 0, 0, 0, 0, 0});
}

TEST_CASE("assembler stages: liveness counts 64-bit registers twice", "[stages]") {
  Staged s(R"(.visible .entry k()
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  mov.u64 %rd1, 5;
  mov.u32 %r1, 1;
  cvt.u64.u32 %rd2, %r1;
  add.u64 %rd1, %rd1, %rd2;
  st.global.u64 [%rd1], %rd1;
  ret;
}
)");
  // Live across the add: %rd1 and %rd2, 2 + 2.
  ptx::detail::Liveness live(s.m);
  CHECK(live.run(0) == 4);
}
