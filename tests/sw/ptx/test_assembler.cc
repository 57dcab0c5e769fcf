#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "sw/ptx/assembler.h"
#include "sw/isa/disassembler.h"
#include "sw/isa/encoding.h"

using namespace gpuvp;
using isa::Opcode;
using isa::OpKind;
using isa::Space;

namespace {

const ptx::Layout kLayout{0x80000000ull, 0x10000ull, 0x200000ull};

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  REQUIRE(f.good());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Decodes a kernel's own instructions.
std::vector<isa::Inst> decode_kernel(const ptx::Image& img, const ptx::KernelInfo& k) {
  std::vector<isa::Inst> out;
  uint64_t pc = k.entry;
  while (pc < k.end) {
    isa::Inst i;
    std::string why;
    size_t off = size_t(pc - img.layout.code_base);
    REQUIRE(isa::decode(img.code.data() + off, img.code.size() - off, i, &why));
    out.push_back(i);
    pc += i.size;
  }
  REQUIRE(pc == k.end);
  return out;
}

// The lowered call sequence around the n-th Call of `code`: (from, to, bytes) of each ld.local /
// st.local pair before it (arguments) and after it (return values), through one scratch slot.
struct Copy {
  int64_t from, to;
  unsigned bytes;
  bool operator==(const Copy& o) const { return from == o.from && to == o.to && bytes == o.bytes; }
};
std::pair<std::vector<Copy>, std::vector<Copy>> call_copies(const std::vector<isa::Inst>& code, int n, uint16_t scratch) {
  size_t c = 0;
  for (int seen = -1; c < code.size(); ++c)
    if (code[c].op == Opcode::Call && ++seen == n) break;
  REQUIRE(c < code.size());
  CHECK(code[c].nops == 1);
  auto pair_at = [&](size_t i) {
    const auto& ld = code[i];
    const auto& st = code[i + 1];
    bool ok = ld.op == Opcode::Ld && st.op == Opcode::St && ld.mod.space == Space::Local &&
              st.mod.space == Space::Local && ld.ops[0].kind == OpKind::Reg && ld.ops[0].reg == scratch &&
              st.ops[1].reg == scratch && ld.ops[1].reg == isa::kNoReg && st.ops[0].reg == isa::kNoReg &&
              ld.type == st.type;
    return ok ? Copy{ld.ops[1].imm, st.ops[0].imm, isa::bits_of(ld.type) / 8} : Copy{-1, -1, 0};
  };
  std::vector<Copy> before, after;
  for (size_t i = c; i >= 2 && pair_at(i - 2).bytes; i -= 2) before.insert(before.begin(), pair_at(i - 2));
  for (size_t i = c + 1; i + 1 < code.size() && pair_at(i).bytes; i += 2) after.push_back(pair_at(i));
  return {before, after};
}

std::string error_of(const std::string& text) {
  try {
    ptx::assemble_text(text, "t.ptx", kLayout);
  } catch (const ptx::ParseError& e) {
    return e.what();
  }
  return "<no error>";
}

// A kernel whose line 9 is `line`.
std::string kernel_with(const std::string& line) {
  return ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 k_p0)\n{\n"
         "\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n" +
         line + "\n\tret;\n}\n";
}

}  // namespace

TEST_CASE("vectorAdd from nvcc assembles with the expected layout", "[assembler]") {
  auto img = ptx::assemble_text(slurp(GPUVP_TEST_DATA "/ptx/vectorAdd.ptx"), "vectorAdd.ptx", kLayout);
  REQUIRE(img.kernels.size() == 1);
  const auto& k = img.kernels[0];
  CHECK(k.name == "vectorAdd");
  CHECK(k.entry == 0x80000000ull);
  CHECK(k.end == 0x80000000ull + img.code.size());
  REQUIRE(k.params.size() == 4);
  CHECK(k.params[0].offset == 0);
  CHECK(k.params[2].offset == 16);
  CHECK(k.params[3].offset == 24);
  CHECK(k.params[3].size == 4);
  CHECK(k.param_bytes == 28);
  CHECK(k.num_regs == 4 + 6 + 11);  // %f<4>, %r<6>, %rd<11>
  CHECK(k.num_preds == 2);
  CHECK(k.static_shared_bytes == 0);
  CHECK(k.local_bytes == 0);
  auto code = decode_kernel(img, k);
  REQUIRE(code.size() == 22);
  // ld.param.u64 %rd1, [param_0]: %rd1 is slot 4 + 6 + 1.
  CHECK(code[0].op == Opcode::Ld);
  CHECK(code[0].mod.space == Space::Param);
  CHECK(code[0].type == isa::DType::U64);
  CHECK(code[0].ops[0].reg == 11);
  CHECK(code[0].ops[1].kind == OpKind::Mem);
  CHECK(code[0].ops[1].reg == isa::kNoReg);
  CHECK(code[3].ops[1].imm == 24);
  CHECK(code[4].ops[1].kind == OpKind::SReg);
  CHECK(code[4].ops[1].reg == uint16_t(isa::SReg::CtaidX));
  CHECK(code[7].mod.mul == isa::MulMode::Lo);
  CHECK(code[8].op == Opcode::Setp);
  CHECK(code[8].mod.cmp == isa::Cmp::Ge);
  CHECK(code[8].ops[1].kind == OpKind::None);
  // @%p1 bra $L__BB0_2 -> the final ret.
  CHECK(code[9].op == Opcode::Bra);
  CHECK(code[9].guard == 1);
  CHECK(code[9].ops[0].kind == OpKind::Target);
  CHECK(uint64_t(code[9].ops[0].imm) == k.end - code[21].size);
  CHECK(code[10].op == Opcode::Cvta);
  CHECK((code[10].mod.flags & isa::kToSpace) != 0);
  CHECK(code[11].mod.mul == isa::MulMode::Wide);
  CHECK(code[11].type == isa::DType::S32);
  CHECK(code[11].ops[2].imm == 4);
  CHECK(code[21].op == Opcode::Ret);
  CHECK(k.regs_per_thread >= 6);
  CHECK(k.regs_per_thread <= 16);
}

TEST_CASE("basic.ptx: const, global, shared and dynamic shared resolution", "[assembler]") {
  auto img = ptx::assemble_text(slurp(GPUVP_TEST_DATA "/ptx/basic.ptx"), "basic.ptx", kLayout);
  REQUIRE(img.kernels.size() == 4);
  // .const c_coef = {1, 2, 0.5, -3} as raw bytes.
  REQUIRE(img.const_data.size() == 16);
  CHECK(img.const_data[2] == 128);
  CHECK(img.const_data[3] == 63);
  CHECK(img.const_data[15] == 192);
  REQUIRE(img.globals.size() == 2);
  CHECK(img.globals[0].name == "g_counter");
  CHECK(img.globals[0].address == 0x200000);
  CHECK(img.globals[0].init == std::vector<uint8_t>{7, 0, 0, 0});
  CHECK(img.globals[1].address == 0x200004);
  CHECK(img.globals[1].size == 12);
  // The initialised bytes only: the rest of the variable is zero (not stored).
  CHECK(img.globals[1].init == std::vector<uint8_t>{10, 0, 0, 0, 20, 0, 0, 0, 30});
  CHECK(img.global_bytes == 16);

  const auto* saxpy = img.find_kernel("_Z5saxpyifPKfPf");
  REQUIRE(saxpy);
  CHECK(saxpy->params[1].offset == 4);
  CHECK(saxpy->params[2].offset == 8);
  CHECK(saxpy->param_bytes == 24);
  auto sx = decode_kernel(img, *saxpy);
  CHECK(sx[1].ops[1].imm == 4);               // ld.param.f32 %f1, [param_1]
  CHECK(sx[14].mod.flags & isa::kNc);         // ld.global.nc.f32
  CHECK(sx[19].op == Opcode::Mov);            // mov.u64 %rd10, c_coef
  CHECK(sx[19].ops[1].kind == OpKind::Imm);
  CHECK(sx[19].ops[1].imm == 0x10000);

  const auto* red = img.find_kernel("_Z6reducePKiPii");
  REQUIRE(red);
  CHECK(red->static_shared_bytes == 1024 + 64);
  CHECK(red->num_regs == 46 + 3 + 8);
  CHECK(red->num_preds == 12);
  bool saw_dtile = false, saw_counter = false, saw_ldshared = false;
  int shfl = 0;
  for (auto& i : decode_kernel(img, *red)) {
    if (i.op == Opcode::Mov && i.type == isa::DType::U32 && i.ops[1].kind == OpKind::Imm && i.ops[1].imm == 1024)
      saw_dtile = true;  // mov.u32 %r16, dtile
    if (i.op == Opcode::Mov && i.ops[1].kind == OpKind::Imm && i.ops[1].imm == 0x200000) saw_counter = true;
    if (i.op == Opcode::Ld && i.mod.space == Space::Shared && i.type == isa::DType::F64) {
      CHECK(i.ops[1].reg == isa::kNoReg);
      CHECK(i.ops[1].imm == 1024 + 8);  // [dtile+8]
      saw_ldshared = true;
    }
    if (i.op == Opcode::Shfl) {
      ++shfl;
      CHECK(i.mod.shfl == isa::ShflMode::Down);
      CHECK(i.ops[1].kind == OpKind::Pred);
      CHECK(i.nops == 6);
    }
  }
  CHECK(saw_dtile);
  CHECK(saw_counter);
  CHECK(saw_ldshared);
  CHECK(shfl == 5);

  const auto* dyn = img.find_kernel("_Z9dynsharedPfd");
  REQUIRE(dyn);
  CHECK(dyn->static_shared_bytes == 0);
  CHECK(dyn->params[1].offset == 8);
}

TEST_CASE("basic.ptx: call frames, local depot and register slots of a .func", "[assembler]") {
  auto img = ptx::assemble_text(slurp(GPUVP_TEST_DATA "/ptx/basic.ptx"), "basic.ptx", kLayout);
  const auto* k = img.find_kernel("_Z5mathkPfPKiPy");
  REQUIRE(k);
  // depot 64 B, then call-block params param0 @64, param1 @68, retval0 @72 -> frame 80;
  // poly's frame (params @80, @84, return @88) follows.
  CHECK(k->local_bytes == 96);
  // kernel slots 0..100, its copy scratch slot 101; poly's range starts at 102.
  CHECK(k->num_regs == 2 + 53 + 18 + 27 + 1 + 1 + 8 + 6);  // + temp_param_reg of the call block, + scratch
  CHECK(k->num_preds == 4);
  auto code = decode_kernel(img, *k);
  CHECK(code[0].op == Opcode::Mov);  // mov.u64 %SPL, __local_depot3
  CHECK(code[0].ops[1].imm == 0);
  // Call lowering: param0 @64 -> poly param @80, param1 @68 -> @84; after it poly's return @88 -> retval0 @72.
  auto [args, rets] = call_copies(code, 0, 101);
  CHECK(args == std::vector<Copy>{{64, 80, 4}, {68, 84, 4}});
  CHECK(rets == std::vector<Copy>{{88, 72, 4}});
  bool saw_call = false, saw_st_arg = false, saw_vote = false;
  for (auto& i : code) {
    if (i.op == Opcode::Call) {
      saw_call = true;
      CHECK(uint64_t(i.ops[0].imm) == kLayout.code_base);  // poly is the module's first function
    }
    if (i.op == Opcode::St && i.mod.space == Space::Local && i.ops[0].reg == isa::kNoReg && i.ops[0].imm == 68)
      saw_st_arg = true;  // st.param.b32 [param1+0] rewritten to the local frame
    if (i.op == Opcode::Vote) {
      saw_vote = true;
      CHECK(i.mod.vote == isa::VoteMode::Ballot);
    }
  }
  CHECK(saw_call);
  CHECK(saw_st_arg);
  CHECK(saw_vote);
  // poly: ld.param.f32 %f1, [_Z4polyfi_param_0] -> local 80 into slot 102 + 1.
  isa::Inst first;
  std::string why;
  REQUIRE(isa::decode(img.code.data(), img.code.size(), first, &why));
  CHECK(first.op == Opcode::Ld);
  CHECK(first.mod.space == Space::Local);
  CHECK(first.ops[1].imm == 80);
  CHECK(first.ops[0].reg == 103);
}

TEST_CASE("calls.ptx: two callees get disjoint slots and frames", "[assembler]") {
  auto img = ptx::assemble_text(slurp(GPUVP_TEST_DATA "/ptx/calls.ptx"), "calls.ptx", kLayout);
  REQUIRE(img.kernels.size() == 1);
  const auto& k = img.kernels[0];
  // kernel: SP, SPL, %f<10>, %r<42>, %rd<26>, 2x temp_param_reg = 82 slots + scratch @82;
  // clampadd %r<6> @83; scale %f<3> @89.
  CHECK(k.num_regs == 83 + 6 + 3);
  // kernel frame: depot 32, block 1: param0 @32 param1 @36 retval0 @40; block 2: param0 @44 retval0 @48 -> 56.
  // clampadd frame: params @56 @60, return @64; scale: param @72, return @76.
  auto code = decode_kernel(img, k);
  auto [a0, r0] = call_copies(code, 0, 82);
  CHECK(a0 == std::vector<Copy>{{32, 56, 4}, {36, 60, 4}});
  CHECK(r0 == std::vector<Copy>{{64, 40, 4}});
  auto [a1, r1] = call_copies(code, 1, 82);
  CHECK(a1 == std::vector<Copy>{{44, 72, 4}});
  CHECK(r1 == std::vector<Copy>{{76, 48, 4}});
  CHECK(k.local_bytes == 80);
}

TEST_CASE("regs_per_thread is a liveness estimate", "[assembler]") {
  auto img = ptx::assemble_text(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 k_p)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [k_p];
  mov.u32 %r1, 1;
  mov.u32 %r2, 2;
  add.s32 %r3, %r1, %r2;
  st.global.u32 [%rd1], %r3;
  ret;
}
)",
                                "live.ptx", kLayout);
  CHECK(img.kernels[0].regs_per_thread == 4);  // %rd1 (2) + %r1 + %r2
}

TEST_CASE("immediates: floats, hex, negative, sign extension", "[assembler]") {
  auto img = ptx::assemble_text(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k()
{
  .reg .f32 %f<3>;
  .reg .f64 %fd<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  mov.f32 %f1, 0f3F800000;
  add.f32 %f2, %f1, 1.5;
  mov.f64 %fd1, 0d4000000000000000;
  add.s32 %r1, %r2, -1;
  add.u32 %r1, %r2, -1;
  and.b32 %r1, %r2, 0xFF00;
  mov.u64 %rd1, -2;
  mov.f32 %f1, -0f3F800000;
  ret;
}
)",
                                "imm.ptx", kLayout);
  auto c = decode_kernel(img, img.kernels[0]);
  CHECK(c[0].ops[1].imm == 0x3F800000);
  CHECK(c[1].ops[2].imm == 0x3FC00000);
  CHECK(c[2].ops[1].imm == 0x4000000000000000ll);
  CHECK(c[3].ops[2].imm == -1);
  CHECK(c[4].ops[2].imm == 0xFFFFFFFFll);
  CHECK(c[5].ops[2].imm == 0xFF00);
  CHECK(c[6].ops[1].imm == -2);
  CHECK(c[7].ops[1].imm == 0xBF800000ll);
}

TEST_CASE("malformed input is rejected with file:line:col", "[assembler][errors]") {
  CHECK(error_of(kernel_with("\tfoo.u32 %r1, %r2;")) == "t.ptx:9:2: unknown instruction 'foo': foo.u32 %r1, %r2;");
  CHECK(error_of(kernel_with("\tadd.s32 %r1, %r2;")) == "t.ptx:9:2: expected 3 operands, got 2: add.s32 %r1, %r2;");
  CHECK(error_of(kernel_with("\tadd.s32 %r1, %r9, 1;")) ==
        "t.ptx:9:15: undeclared register '%r9': add.s32 %r1, %r9, 1;");
  CHECK(error_of(kernel_with("\tbra $L__nowhere;")) == "t.ptx:9:6: unknown label '$L__nowhere': bra $L__nowhere;");
  CHECK(error_of(kernel_with("\tadd.s32 %r1, %r2, 0x1G;")) == "t.ptx:9:20: bad immediate '0x1G': add.s32 %r1, %r2, 0x1G;");
  CHECK(error_of(kernel_with("\tadd.u32 %r1, %r2, 4294967296;")) ==
        "t.ptx:9:20: immediate 4294967296 out of range for .u32: add.u32 %r1, %r2, 4294967296;");
  CHECK(error_of(kernel_with("\t.tex .u64 t;")) == "t.ptx:9:2: unsupported directive '.tex': .tex .u64 t;");
  CHECK(error_of(kernel_with("\tadd.foo.s32 %r1, %r2, %r3;")) ==
        "t.ptx:9:2: unknown modifier '.foo': add.foo.s32 %r1, %r2, %r3;");
  CHECK(error_of(kernel_with("\tld.global.u32 %r1, [nosuch];")) ==
        "t.ptx:9:21: unknown symbol 'nosuch': ld.global.u32 %r1, [nosuch];");
  CHECK(error_of(kernel_with("\tadd.u32.cc %r1, %r2;")) == "t.ptx:9:2: expected 3 operands, got 2: add.u32.cc %r1, %r2;");
  CHECK(error_of(kernel_with("\tmul.u32 %r1, %r2, %r3;")) ==
        "t.ptx:9:2: integer mul/mad needs .lo, .hi or .wide: mul.u32 %r1, %r2, %r3;");
  CHECK(error_of(kernel_with("\tadd.s64 %r1, %r2, %r3;")) ==
        "t.ptx:9:10: register '%r1' is too narrow for .s64: add.s64 %r1, %r2, %r3;");
  CHECK(error_of(kernel_with("\tadd.s32 %r1, %r2, %r3")) == "t.ptx:10:2: expected ';', got 'ret': add.s32 %r1, %r2, %r3 ret;");
  // Unterminated block: reported at the opening brace.
  CHECK(error_of(".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n\tret;\n") ==
        "t.ptx:5:1: unterminated block: missing '}'");
  CHECK(error_of(".version 9.0\n.target sm_75\n.address_size 32\n") ==
        "t.ptx:3:15: only .address_size 64 is supported: .address_size 32");
  CHECK(error_of(".version 9.0\n.target sm_75\n.address_size 64\n.tex .u64 t;\n") ==
        "t.ptx:4:1: unsupported directive '.tex': .tex .u64 t;");
}

TEST_CASE("call forms and unsupported call uses are rejected", "[assembler][errors]") {
  std::string f = ".version 9.0\n.target sm_75\n.address_size 64\n"
                  ".func (.param .b32 r) f(.param .b32 a)\n{\n\t.reg .b32 %r<2>;\n\tld.param.b32 %r1, [a];\n"
                  "\tst.param.b32 [r], %r1;\n\tret;\n}\n";
  CHECK(error_of(f + ".visible .entry k()\n{\n\t.param .b32 p0;\n\tcall.uni f, (p0);\n\tret;\n}\n") ==
        "t.ptx:14:11: call of 'f' with 1 arguments and 0 results, it has 1 and 1: call.uni f, (p0);");
  CHECK(error_of(f + ".visible .entry k()\n{\n\t.param .b32 p0;\n\t.param .b32 r0;\n\tcall.uni (r0), g, (p0);\n\tret;\n}\n") ==
        "t.ptx:15:17: unknown function 'g': call.uni (r0), g, (p0);");
}

TEST_CASE("vprintf: CUDA's extern declaration becomes one Vprintf instruction, others are refused", "[assembler][printf]") {
  const std::string head = ".version 9.0\n.target sm_75\n.address_size 64\n";
  const std::string decl =
      ".extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n";
  const std::string call = ".visible .entry k()\n{\n\t.param .b64 p0;\n\t.param .b64 p1;\n\t.param .b32 r0;\n"
                           "\tcall.uni (r0), vprintf, (p0, p1);\n\tret;\n}\n";
  auto img = ptx::assemble_text(head + decl + call, "t.ptx", kLayout);
  auto code = decode_kernel(img, img.kernels.at(0));
  REQUIRE(code.size() == 2);  // no argument copies: the SM reads the call-block variables
  const isa::Inst& v = code[0];
  CHECK(v.op == Opcode::Vprintf);
  CHECK(v.mod.space == isa::Space::Local);
  REQUIRE(v.nops == 3);
  // the kernel's frame: p0 at 0, p1 at 8, r0 at 16 (declaration order)
  CHECK((v.ops[0].kind == isa::OpKind::Mem && v.ops[0].imm == 16));
  CHECK((v.ops[1].kind == isa::OpKind::Mem && v.ops[1].imm == 0));
  CHECK((v.ops[2].kind == isa::OpKind::Mem && v.ops[2].imm == 8));
  CHECK(img.kernels.at(0).local_bytes >= 20);
  const std::string other = ".extern .func (.param .b32 func_retval0) vprintf (.param .b64 a);\n";
  CHECK(error_of(head + other + call) ==
        "t.ptx:10:17: vprintf must be declared as CUDA does: (.param .b32 ret) vprintf (.param .b64 format, "
        ".param .b64 args): call.uni (r0), vprintf, (p0, p1);");
  const std::string ext = ".extern .func (.param .b32 func_retval0) puts (.param .b64 a, .param .b64 b);\n";
  std::string puts_call = call;
  puts_call.replace(puts_call.find("vprintf"), 7, "puts");
  CHECK(error_of(head + ext + puts_call) ==
        "t.ptx:10:17: function 'puts' has no body in this module (no linking): call.uni (r0), puts, (p0, p1);");
}

TEST_CASE("disassembly names every opcode and modifier of the sample kernels", "[disassembler]") {
  auto img = ptx::assemble_text(slurp(GPUVP_TEST_DATA "/ptx/basic.ptx"), "basic.ptx", kLayout);
  std::string text = isa::disassemble(img.code.data(), img.code.size(), kLayout.code_base);
  for (const char* s : {"ld.param.f32", "ld.global.nc.f32", "mad.lo.s32", "setp.ge.s32", "bra ", "cvta.to.global.u64",
                        "mul.wide.s32", "fma.rn.f32", "sin.approx.f32", "shfl.sync.down.b32", "atom.global.add.u32",
                        "bar.sync", "call.uni", "vote.sync.ballot.b32", "atom.global.cas.b32", "cvt.rzi.s32.f64",
                        "st.local.v4.f32", "ex2.approx.ftz.f32", "div.rn.f32", "%clock64", "%tid.x", "ret",
                        "cvt.sat.f32.f32", "atom.global.max.u64", "st.shared.f64", "@%p"})
    CHECK(text.find(s) != std::string::npos);
  CHECK(text.rfind("80000000:", 0) == 0);
  // Garbage is shown, not skipped silently.
  uint8_t junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  CHECK(isa::disassemble(junk, 8, 0x100).find("invalid") != std::string::npos);
}

TEST_CASE("mov.pred takes the constants 0 and 1 (nvcc emits them), nothing else", "[assembler]") {
  CHECK(error_of(kernel_with("mov.pred %p1, 1;")) == "<no error>");
  CHECK(error_of(kernel_with("mov.pred %p1, 0;")) == "<no error>");
  CHECK(error_of(kernel_with("mov.pred %p1, 2;")).find("t.ptx:9:") == 0);
  auto img = ptx::assemble_text(kernel_with("mov.pred %p1, 1;"), "t.ptx", kLayout);
  auto code = decode_kernel(img, img.kernels[0]);
  bool found = false;
  for (auto& i : code)
    if (i.op == Opcode::Mov && i.ops[0].kind == OpKind::Pred) {
      found = true;
      CHECK(i.ops[1].kind == OpKind::Imm);
      CHECK(i.ops[1].imm == 1);
    }
  CHECK(found);
}

// What nvcc -G and -lineinfo add to the PTX (a debug target, .file, .loc, DWARF sections of .b8/.b32/.b64
// data naming labels and sections) and a __managed__ variable: read over, the code and data unchanged.
TEST_CASE("debug directives, .section .debug_* and .attribute(.managed) assemble", "[assembler]") {
  const std::string ptx = R"(.version 9.0
.target sm_75, debug
.address_size 64
.global .attribute(.managed) .align 4 .b8 mv[8] = {1, 0, 0, 0, 2};
.visible .entry k()
{
	.reg .b32 %r<2>;
	.loc	1 8 0
$L__func_begin0:
	.loc	1 9 3
	ld.global.u32 %r1, [mv];
	st.global.u32 [mv+4], %r1;
	ret;
$L__func_end0:
}
	.file	1 "/tmp/k.cu"
	.section	.debug_abbrev
	{
.b8 1
.b8 17,1
	}
	.section	.debug_info
	{
.b32 4590
.b32 .debug_abbrev
.b64 $L__func_begin0
.b8 108,103,101
	}
	.section	.debug_macinfo	{	}
)";
  const auto img = ptx::assemble_text(ptx, "t.ptx", kLayout);
  REQUIRE(img.globals.size() == 1);
  CHECK(img.globals[0].name == "mv");
  CHECK(img.globals[0].size == 8);
  CHECK(img.globals[0].init == std::vector<uint8_t>{1, 0, 0, 0, 2});
  const auto* k = img.find_kernel("k");
  REQUIRE(k != nullptr);
  CHECK(decode_kernel(img, *k).size() == 3);  // ld, st, ret: nothing of the debug data became code
  CHECK(error_of(".version 9.0\n.target sm_75\n.address_size 64\n.section .nv_data { .b8 1 }\n") ==
        "t.ptx:4:10: unsupported section '.nv_data' (only .debug_* sections are read over): .section .nv_data { .b8 1 }");
  CHECK(error_of(".version 9.0\n.target sm_75\n.address_size 64\n.section .debug_info {\n.b8 1\n") ==
        "t.ptx:4:10: section .debug_info has no closing '}': .section .debug_info {");
  CHECK(error_of(".version 9.0\n.target sm_75\n.address_size 64\n.global .attribute(.unified) .u32 x;\n") ==
        "t.ptx:4:20: unsupported variable attribute '.unified': .global .attribute(.unified) .u32 x;");
}
