#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "sw/ptx/assembler.h"
#include "sw/isa/disassembler.h"
#include "sw/isa/encoding.h"

using namespace gpuvp;

// One line per supported instruction form; every isa opcode except Nop must come out of it.
static const char* kAll = R"(.version 9.0
.target sm_75
.address_size 64
.global .align 8 .b8 gbuf[64];
.shared .align 8 .b8 sbuf[128];
.const .align 4 .f32 ctab[2] = {1.0, 0f40000000};
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.visible .entry all(.param .u64 all_p0, .param .align 8 .b8 all_p1[16])
.maxntid 128, 1, 1
{
  .reg .pred %p<4>;
  .reg .b16 %rs<3>;
  .reg .b32 %r<12>;
  .reg .f32 %f<6>;
  .reg .f64 %fd<4>;
  .reg .b64 %rd<8>;
  .local .align 4 .b8 __local_depot0[16];
  .pragma "nounroll";
  ld.param.u64 %rd1, [all_p0];
  ld.param.v2.u32 {%r1, %r2}, [all_p1+8];
  mov.u32 %r3, %tid.x;
  mov.u64 %rd2, %globaltimer;
  mov.u32 %r4, %lanemask_lt;
  mov.b64 %rd3, {%r1, %r2};
  mov.b64 {%r5, %r6}, %rd3;
  mov.b32 {%rs1, %rs2}, %r5;
  mov.u64 %rd4, gbuf;
  mov.u64 %rd5, __local_depot0;
  cvta.local.u64 %rd5, %rd5;
  cvta.to.global.u64 %rd6, %rd1;
  cvt.rn.f32.s32 %f1, %r1;
  cvt.rzi.s32.f32 %r7, %f1;
  cvt.f64.f32 %fd1, %f1;
  cvt.rn.ftz.f32.f64 %f2, %fd1;
  cvt.u16.u32 %rs1, %r1;
  cvt.s64.s32 %rd7, %r1;
  add.sat.s32 %r1, %r1, 5;
  sub.f64 %fd2, %fd1, 0d3FF0000000000000;
  mul.hi.u32 %r2, %r1, %r2;
  mul.wide.u16 %r2, %rs1, %rs2;
  mad.wide.s32 %rd7, %r1, %r2, %rd7;
  mul24.lo.s32 %r2, %r1, 3;
  mad24.hi.u32 %r2, %r1, %r2, %r3;
  fma.rz.ftz.sat.f32 %f3, %f1, %f2, 1.5;
  div.full.f32 %f3, %f3, %f1;
  div.s32 %r2, %r2, 7;
  rem.u32 %r2, %r2, 7;
  abs.ftz.f32 %f3, %f3;
  neg.s32 %r2, %r2;
  min.u32 %r2, %r2, %r3;
  max.f64 %fd2, %fd2, %fd1;
  sad.u32 %r2, %r1, %r2, %r3;
  sqrt.approx.f32 %f3, %f3;
  rsqrt.approx.f64 %fd2, %fd2;
  rcp.rn.f64 %fd2, %fd2;
  sin.approx.ftz.f32 %f3, %f3;
  cos.approx.f32 %f3, %f3;
  ex2.approx.f32 %f3, %f3;
  lg2.approx.f32 %f3, %f3;
  tanh.approx.f32 %f3, %f3;
  copysign.f32 %f3, %f1, %f3;
  testp.notanumber.f32 %p1, %f3;
  and.pred %p2, %p1, %p1;
  or.b32 %r2, %r2, 1;
  xor.b64 %rd7, %rd7, %rd1;
  not.b32 %r2, %r2;
  cnot.b32 %r2, %r2;
  lop3.b32 %r2, %r1, %r2, %r3, 0x96;
  shl.b64 %rd7, %rd7, 3;
  shr.s32 %r2, %r2, %r1;
  shf.l.wrap.b32 %r2, %r1, %r2, %r3;
  popc.b64 %r2, %rd7;
  clz.b32 %r2, %r2;
  brev.b64 %rd7, %rd7;
  bfe.s32 %r2, %r1, 4, 8;
  bfi.b32 %r2, %r1, %r2, 0, 4;
  bfind.shiftamt.u32 %r2, %r1;
  prmt.b32.f4e %r2, %r1, %r2, 0x3210;
  setp.ltu.and.f32 %p3|%p2, %f1, %f2, !%p1;
  set.gt.u32.s32 %r2, %r1, %r3;
  selp.f32 %f4, %f1, %f2, %p3;
  slct.f32.s32 %f4, %f1, %f2, %r1;
  ld.global.nc.v4.f32 {%f1, %f2, _, %f4}, [%rd6+16];
  ld.shared.f64 %fd3, [sbuf+8];
  ld.const.f32 %f5, [ctab+4];
  ld.local.u32 %r8, [__local_depot0+4];
  ld.volatile.global.u32 %r8, [%rd6];
  ld.relaxed.gpu.global.u32 %r8, [%rd6];
  ld.u32 %r8, [%rd5];
  ld.global.u8 %r8, [gbuf+3];
  st.global.v2.f32 [%rd6], {%f1, %f2};
  st.shared.u32 [sbuf], 7;
  st.local.u32 [%rd5+-4], %r8;
  atom.global.add.f32 %f1, [%rd6], %f2;
  atom.shared.cas.b32 %r9, [sbuf+4], %r1, %r2;
  atom.inc.u32 %r9, [%rd4], 10;
  atom.global.exch.b64 %rd7, [%rd6], %rd1;
  red.global.add.f64 [%rd6], %fd1;
  red.shared.max.s32 [sbuf], %r1;
  bar.sync 0;
  barrier.sync 1, 64;
  bar.warp.sync -1;
  membar.gl;
  fence.sc.cta;
  shfl.sync.bfly.b32 %r10, %r1, 1, 31, -1;
  vote.sync.all.pred %p1, !%p2, -1;
  vote.sync.uni.pred %p1, %p2, -1;
  activemask.b32 %r11;
  nanosleep.u32 100;
  add.cc.u32 %r1, %r1, %r2;
  addc.cc.u32 %r2, %r2, 0;
  sub.cc.s64 %rd1, %rd1, %rd2;
  subc.s64 %rd2, %rd2, %rd3;
  mad.lo.cc.u32 %r1, %r1, %r2, %r3;
  madc.hi.cc.u32 %r2, %r1, %r2, %r3;
  bar.red.popc.u32 %r1, 0, %p1;
  bar.red.and.pred %p2, 1, 64, !%p1;
  match.any.sync.b64 %r1, %rd1, -1;
  match.all.sync.b32 %r1|%p3, %r2, %r3;
  vabsdiff4.u32.u32.u32 %r1, %r1, %r2, %r3;
  vabsdiff4.s32.s32.s32.add %r1, %r1, %r2, %r3;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd1;
  .param .b64 param1;
  st.param.b64 [param1], 0;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  ld.param.b32 %r1, [retval0];
  }
  @!%p1 bra.uni $L__done;
  trap;
$L__done:
  exit;
}
)";

TEST_CASE("every opcode assembles, round-trips and disassembles", "[coverage]") {
  ptx::Layout lay{0x1000, 0x2000, 0x3000};
  auto img = ptx::assemble_text(kAll, "all.ptx", lay);
  REQUIRE(img.kernels.size() == 1);
  const auto& k = img.kernels[0];
  CHECK(k.max_ntid[0] == 128);
  CHECK(k.max_ntid[1] == 1);
  REQUIRE(k.params.size() == 2);
  CHECK(k.params[1].offset == 8);
  CHECK(k.params[1].size == 16);
  CHECK(k.params[1].align == 8);
  CHECK(k.param_bytes == 24);
  CHECK(k.static_shared_bytes == 128);
  CHECK(k.local_bytes == 40);  // the depot, then vprintf's call block: two b64 arguments and the b32 result
  CHECK(img.const_data == std::vector<uint8_t>{0, 0, 0x80, 0x3F, 0, 0, 0, 0x40});
  std::set<isa::Opcode> seen;
  uint64_t pc = k.entry;
  std::vector<isa::Inst> code;
  while (pc < k.end) {
    isa::Inst i;
    std::string why;
    REQUIRE(isa::decode(img.code.data() + (pc - lay.code_base), size_t(k.end - pc), i, &why));
    // Re-encoding the decoded instruction reproduces the bytes exactly.
    std::vector<uint8_t> again;
    isa::encode(i, again);
    CHECK(std::equal(again.begin(), again.end(), img.code.begin() + long(pc - lay.code_base)));
    seen.insert(i.op);
    code.push_back(i);
    pc += i.size;
  }
  for (unsigned op = 1; op < unsigned(isa::Opcode::Call); ++op) {
    INFO("opcode " << op);
    CHECK(seen.count(isa::Opcode(op)));
  }
  for (auto op : {isa::Opcode::Exit, isa::Opcode::Trap, isa::Opcode::Nanosleep})
    CHECK(seen.count(op));
  for (unsigned op = unsigned(isa::Opcode::Addc); op < unsigned(isa::Opcode::Count); ++op) {
    INFO("opcode " << op);
    CHECK(seen.count(isa::Opcode(op)));
  }
  // Spot checks of resolved values.
  CHECK(code[1].vec == 2);
  CHECK(code[1].ops[2].imm == 16);                                   // [all_p1+8]
  CHECK(code[8].ops[1].imm == 0x3000);                               // mov.u64 %rd4, gbuf
  CHECK(code[9].ops[1].imm == 0);                                    // local depot offset
  auto at = [&](const char* text) {
    for (auto& i : code)
      if (isa::disassemble(i).find(text) != std::string::npos) return i;
    FAIL("no instruction " << text);
    return isa::Inst{};
  };
  CHECK(at("ld.shared.f64").ops[1].imm == 8);
  CHECK(at("ld.const.f32").ops[1].imm == 0x2000 + 4);
  CHECK(at("ld.local.u32").ops[1].imm == 4);
  CHECK(at("ld.u32").mod.space == isa::Space::Generic);
  CHECK(at("ld.global.u8").ops[1].imm == 0x3000 + 3);
  CHECK(at("st.local.u32").ops[0].imm == -4);
  auto setp = at("setp.ltu.and.f32");
  CHECK(setp.ops[1].kind == isa::OpKind::Pred);
  CHECK(setp.ops[4].neg);
  auto ldv = at("ld.global.nc.v4.f32");
  CHECK(ldv.ops[2].kind == isa::OpKind::Sink);
  CHECK(ldv.ops[4].imm == 16);
  CHECK(at("fma.rz.ftz.sat.f32").ops[3].imm == 0x3FC00000);
  CHECK(at("sub.f64").ops[2].imm == 0x3FF0000000000000ll);
  CHECK(at("mul.wide.u16").type == isa::DType::U16);
  CHECK(at("shf.l.wrap.b32").mod.flags & isa::kShfLeft);
  CHECK(at("prmt.f4e.b32").mod.prmt == isa::PrmtMode::F4e);
  CHECK(at("bfind.shiftamt.u32").mod.flags & isa::kShiftAmt);
  CHECK(at("ld.relaxed.gpu.global.u32").mod.level == isa::MemLevel::Gl);
  auto bra = at("bra.uni");
  CHECK(bra.guard_neg);
  CHECK(uint64_t(bra.ops[0].imm) == k.end - code.back().size);
  auto mov_pack = at("mov.b64 %r");
  (void)mov_pack;
  CHECK(at("bar.sync 1,").ops[1].imm == 64);
  // The carry flag is one predicate slot after the declared %p0..%p3, the last operand of each.
  CHECK(k.num_preds == 5);
  CHECK(at("add.cc.u32").ops[3].kind == isa::OpKind::Pred);
  CHECK(at("add.cc.u32").ops[3].reg == 4);
  CHECK(at("madc.hi.cc.u32").ops[4].reg == 4);
  CHECK(at("bar.red.and.pred").ops[2].imm == 64);
  CHECK(at("bar.red.and.pred").ops[3].neg);
  CHECK(at("match.all.sync.b32").ops[1].kind == isa::OpKind::Pred);
  CHECK(at("vabsdiff4.s32.s32.s32.add").mod.atom == isa::AtomOp::Add);
  std::string text = isa::disassemble(img.code.data(), img.code.size(), lay.code_base);
  for (const char* s : {"mov.b64 %r", "{%r", "cvt.rn.ftz.f32.f64", "testp.notanumber.f32", "lop3.b32", "popc.b64",
                        "bfe.s32", "bfi.b32", "slct.f32.s32", "set.gt.u32.s32", "selp.f32", "atom.shared.cas.b32",
                        "atom.inc.u32", "red.global.add.f64", "red.shared.max.s32", "bar.warp.sync", "membar.gl",
                        "membar.cta", "shfl.sync.bfly.b32", "vote.sync.all.pred", "!%p", "activemask.b32",
                        "nanosleep.u32", "trap", "exit", "%globaltimer", "%lanemask_lt", "mad24.hi.u32", "sad.u32",
                        "tanh.approx.f32", "copysign.f32", "cnot.b32", "rsqrt.approx.f64", "rcp.rn.f64",
                        "add.cc.u32", "addc.cc.u32", "sub.cc.s64", "subc.s64", "mad.lo.cc.u32", "madc.hi.cc.u32",
                        "bar.red.popc.u32", "bar.red.and.pred", "match.any.sync.b64", "match.all.sync.b32 %r",
                        "vabsdiff4.u32.u32.u32", "vabsdiff4.s32.s32.s32.add", "vprintf.local [0x20], [0x10], [0x18]"})
    CHECK(text.find(s) != std::string::npos);
}

TEST_CASE("unsupported forms are rejected, not mis-executed", "[coverage][errors]") {
  auto err = [](const std::string& line) {
    std::string src = ".version 9.0\n.target sm_75\n.address_size 64\n.const .b32 c;\n.visible .entry k(.param .u64 p)\n{\n"
                      "\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .f32 %f<2>;\n\t.reg .b64 %rd<3>;\n" + line + "\n\tret;\n}\n";
    try {
      ptx::assemble_text(src, "u.ptx", {});
    } catch (const ptx::ParseError& e) {
      CHECK(e.line == 11);
      return e.message;
    }
    return std::string("<accepted>");
  };
  CHECK(err("\tisspacep.global %p1, %rd1;") == "unknown instruction 'isspacep'");
  CHECK(err("\tadd.cc.f32 %f1, %f1, %f1;") == "carry arithmetic needs .u32, .s32, .u64 or .s64");
  CHECK(err("\tadd.cc.sat.s32 %r1, %r1, %r1;") == "unknown modifier '.sat'");
  CHECK(err("\tmadc.wide.u32 %rd1, %r1, %r1, %rd1;") == "madc with a carry needs .lo or .hi");
  CHECK(err("\tbar.red.popc.pred %p1, 0, %p0;") == "bar.red.popc needs .u32, bar.red.and/.or need .pred");
  CHECK(err("\tbar.red.xor.pred %p1, 0, %p0;") == "bar.red needs .popc, .and or .or");
  CHECK(err("\tmatch.any.sync.b32 %r1|%p1, %r2, -1;") == "match.any has no predicate destination");
  CHECK(err("\tvabsdiff4.u32.u32.s32 %r1, %r1, %r2, %r3;") == "vabsdiff4 with different atype and btype is not supported");
  CHECK(err("\tvabsdiff4.u32.u32.u32.add.sat %r1, %r1, %r2, %r3;") == "vabsdiff4: .sat cannot be used with .add");
  CHECK(err("\tvabsdiff2.u32.u32.u32 %r1, %r1, %r2, %r3;") == "unknown instruction 'vabsdiff2'");
  CHECK(err("\tcvta.const.u64 %rd1, %rd2;") == "cvta supports .global, .shared and .local only");
  CHECK(err("\tmov.u64 %rd1, p;") == "taking the address of .param 'p' is not supported");
  CHECK(err("\tadd.f32 %f1, %f1, 0x10;") == "bad immediate '0x10' for .f32" );
  CHECK(err("\tadd.s32 %r1, %r1, 1.5;") == "bad immediate '1.5' for .s32");
  CHECK(err("\tvote.any.pred %p1, %p0, -1;") == "only vote.sync is supported");
  CHECK(err("\tld.global.u32 %r1, [%r2];") == "32-bit address register '%r2' needs .shared or .local");
  CHECK(err("\tst.const.u32 [c], %r1;") == "store to .const");
  CHECK(err("\tld.global.u32 %r1, [c];") == "symbol 'c' is not in the instruction's state space");
  CHECK(err("\tsqrt.f32 %f1, %f1;") == "sqrt needs .approx or a rounding modifier");
  CHECK(err("\tcvt.s32.f32 %r1, %f1;") == "float-to-integer cvt needs a rounding modifier");
  CHECK(err("\tsetp.lt.f32 %p1, %r1, %f1;") == "<accepted>");  // b32 register read as f32: PTX allows it
  CHECK(err("\tbar.arrive 0;") == "only bar.sync and bar.red are supported");
  CHECK(err("\tand.b32 %r1, %r1, !%p1;") == "predicate used as a value operand");
  CHECK(err("\tld.global.v2.f32 %f1, [%rd1];") == "expected a {...} vector of 2 elements");
  CHECK(err("\tatom.global.add.s64 %rd1, [%rd1], %rd2;") == "atom.global does not support .s64");
  // Texture and surface instructions are named, not misread by their operand syntax.
  CHECK(err("\ttex.1d.v4.f32.s32 {%f1, %f1, %f1, %f1}, [%rd1, {%r1}];") == "textures are not supported ('tex')");
  CHECK(err("\tsuld.b.1d.b32.trap {%r1}, [%rd1, {%r1}];") == "surfaces are not supported ('suld')");
}

TEST_CASE("WARP_SZ is the constant 32 wherever an immediate may stand", "[coverage]") {
  const std::string src = ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n"
                          "\t.reg .b32 %r<3>;\n\tmov.u32 %r1, WARP_SZ;\n\tdiv.s32 %r2, %r1, WARP_SZ;\n\tret;\n}\n";
  const ptx::Module m = ptx::parse(src, "w.ptx");
  REQUIRE(m.funcs.size() == 1);
  const auto& body = m.funcs[0].body;
  REQUIRE(body.size() == 3);
  CHECK(body[0].inst.ops[1].kind == isa::OpKind::Imm);
  CHECK(body[0].inst.ops[1].imm == 32);
  CHECK(body[1].inst.ops[2].kind == isa::OpKind::Imm);
  CHECK(body[1].inst.ops[2].imm == 32);
}

TEST_CASE("a module's kernels are found by their tokens and left out with their lines kept", "[coverage]") {
  const std::string src = ".version 9.0\n.target sm_75\n.address_size 64\n.global .align 4 .b32 g[2] = {1, 2};\n"
                          "// .entry in a comment\n.visible .entry a(.param .u64 p)\n{\n\tret;\n}\n"
                          ".entry b()\n.maxntid 32, 1, 1\n{\n\ttex.1d;\n}\n";
  const auto spans = ptx::entry_spans(src);
  REQUIRE(spans.size() == 2);
  CHECK(spans[0].name == "a");
  CHECK(src.substr(spans[0].begin, 15) == ".visible .entry");
  CHECK(src[spans[0].end - 1] == '}');
  CHECK(spans[1].name == "b");
  CHECK(src.substr(spans[1].begin, spans[1].end - spans[1].begin).find("tex.1d") != std::string::npos);
  // Without b (whose tex the assembler refuses) the module assembles, a alone in it; lines stay.
  const std::string rest = ptx::without_spans(src, {spans[1]});
  CHECK(std::count(rest.begin(), rest.end(), '\n') == std::count(src.begin(), src.end(), '\n'));
  const ptx::Image img = ptx::assemble_text(rest, "r.ptx", {});
  CHECK(img.find_kernel("a") != nullptr);
  CHECK(img.find_kernel("b") == nullptr);
  try {
    ptx::assemble_text(src, "s.ptx", {});
    FAIL("the tex kernel was accepted");
  } catch (const ptx::ParseError& e) {
    CHECK(e.line == 13);
  }
}
