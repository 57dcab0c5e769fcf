// Disassembler: the inverse of the parser's modifier mapping, for humans.
#include "sw/isa/disassembler.h"

#include <fmt/format.h>

#include "sw/isa/encoding.h"

namespace gpuvp::isa {
namespace {

using isa::Opcode;
using isa::OpKind;

const char* kOpNames[] = {
    "nop", "mov", "ld", "st", "cvta", "cvt", "add", "sub", "mul", "mad", "mul24", "mad24", "fma", "div", "rem",
    "abs", "neg", "min", "max", "sad", "sqrt", "rsqrt", "rcp", "sin", "cos", "ex2", "lg2", "tanh", "copysign",
    "testp", "and", "or", "xor", "not", "cnot", "lop3", "shl", "shr", "shf", "popc", "clz", "brev", "bfe", "bfi",
    "bfind", "prmt", "setp", "set", "selp", "slct", "atom", "red", "bar", "bar.warp", "membar", "shfl", "vote",
    "activemask", "bra", "call", "ret", "exit", "trap", "nanosleep", "addc", "subc", "madc", "bar.red", "match",
    "vabsdiff4", "vprintf"};
static_assert(sizeof(kOpNames) / sizeof(kOpNames[0]) == size_t(Opcode::Count), "opcode names");

const char* kTypeNames[] = {"", "pred", "b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64",
                            "s8", "s16", "s32", "s64", "f16", "f32", "f64"};
const char* kSpaceNames[] = {"", "global", "shared", "const", "param", "local"};
const char* kCmpNames[] = {"", "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
                           "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
const char* kBoolNames[] = {"", "and", "or", "xor"};
const char* kRoundNames[] = {"", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"};
const char* kMulNames[] = {"", "lo", "hi", "wide"};
const char* kAtomNames[] = {"", "add", "min", "max", "and", "or", "xor", "exch", "cas", "inc", "dec"};
const char* kShflNames[] = {"", "up", "down", "bfly", "idx"};
const char* kVoteNames[] = {"", "all", "any", "uni", "ballot"};
const char* kLevelNames[] = {"", "cta", "gl", "sys"};
const char* kScopeNames[] = {"", "cta", "gpu", "sys"};
const char* kTestpNames[] = {"", "finite", "infinite", "number", "notanumber", "normal", "subnormal"};
const char* kPrmtNames[] = {"", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
const char* kSRegNames[] = {
    "%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z",
    "%nctaid.x", "%nctaid.y", "%nctaid.z", "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%clock",
    "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi", "%lanemask_eq",
    "%lanemask_lt", "%lanemask_le", "%lanemask_gt", "%lanemask_ge", "%dynamic_smem_size", "%total_smem_size",
    "%gridid"};
static_assert(sizeof(kSRegNames) / sizeof(kSRegNames[0]) == size_t(isa::SReg::Count), "sreg names");

std::string operand(const isa::Inst& in, const isa::Operand& o) {
  switch (o.kind) {
    case OpKind::None: return "";
    case OpKind::Reg: return fmt::format("%r{}", o.reg);
    case OpKind::Pred: return fmt::format("{}%p{}", o.neg ? "!" : "", o.reg);
    case OpKind::SReg: return o.reg < uint16_t(isa::SReg::Count) ? kSRegNames[o.reg] : "%?";
    case OpKind::Sink: return "_";
    case OpKind::Target: return fmt::format("{:#x}", uint64_t(o.imm));
    case OpKind::Mem:
      if (o.reg == isa::kNoReg) return fmt::format("[{:#x}]", uint64_t(o.imm));
      if (o.imm == 0) return fmt::format("[%r{}]", o.reg);
      return fmt::format("[%r{}{:+d}]", o.reg, o.imm);
    case OpKind::Imm:
      if (in.type == isa::DType::F32 && in.op != Opcode::Cvt) return fmt::format("0f{:08X}", uint32_t(o.imm));
      if (in.type == isa::DType::F64 && in.op != Opcode::Cvt) return fmt::format("0d{:016X}", uint64_t(o.imm));
      return fmt::format("{}", o.imm);
  }
  return "?";
}

}  // namespace

std::string disassemble(const isa::Inst& in) {
  std::string s;
  if (in.guard >= 0) s += fmt::format("@{}%p{} ", in.guard_neg ? "!" : "", in.guard);
  s += kOpNames[size_t(in.op)];
  const auto& m = in.mod;
  auto add = [&](const char* x) {
    if (x && *x) s += ".", s += x;
  };
  bool memop = in.op == Opcode::Ld || in.op == Opcode::St || in.op == Opcode::Atom || in.op == Opcode::Red;
  if (in.op == Opcode::Bar || in.op == Opcode::BarWarp || in.op == Opcode::Shfl || in.op == Opcode::Vote) add("sync");
  if (m.flags & isa::kVolatile) add("volatile");
  if (m.flags & isa::kRelaxed) add("relaxed");
  if (memop) add(kScopeNames[size_t(m.level)]);
  if (in.op == Opcode::Membar) add(kLevelNames[size_t(m.level)]);
  if (m.flags & isa::kToSpace) add("to");
  add(kSpaceNames[size_t(m.space)]);
  if (in.op != Opcode::Vabsdiff4) add(kAtomNames[size_t(m.atom)]);
  add(kCmpNames[size_t(m.cmp)]);
  add(kBoolNames[size_t(m.boolop)]);
  add(kMulNames[size_t(m.mul)]);
  add(kRoundNames[size_t(m.round)]);
  add(kShflNames[size_t(m.shfl)]);
  add(kVoteNames[size_t(m.vote)]);
  if (in.op == Opcode::Match) add("sync");  // match.any.sync, where vote prints vote.sync.any
  add(kTestpNames[size_t(m.testp)]);
  add(kPrmtNames[size_t(m.prmt)]);
  if (in.op == Opcode::Shf) {
    add(m.flags & isa::kShfLeft ? "l" : "r");
    add(m.flags & isa::kShfWrap ? "wrap" : "clamp");
  }
  if (m.flags & isa::kApprox) add("approx");
  if (m.flags & isa::kFull) add("full");
  if (m.flags & isa::kFtz) add("ftz");
  if (m.flags & isa::kSat) add("sat");
  if (m.flags & isa::kUni) add("uni");
  if (m.flags & isa::kNc) add("nc");
  if (m.flags & isa::kShiftAmt) add("shiftamt");
  if (m.flags & isa::kCc) add("cc");
  if (in.op == Opcode::BarRed && in.type == isa::DType::U32) add("popc");
  if (in.vec > 1 && (in.op == Opcode::Ld || in.op == Opcode::St)) add(in.vec == 2 ? "v2" : "v4");
  add(kTypeNames[size_t(in.type)]);
  add(kTypeNames[size_t(in.type2)]);
  if (in.op == Opcode::Vabsdiff4) {  // three types (btype = atype), then the secondary operation
    add(kTypeNames[size_t(in.type2)]);
    if (m.atom == isa::AtomOp::Add) add("add");
  }

  // Operands, grouping vectors and p|q destination pairs.
  std::vector<std::string> ops;
  auto range = [&](int b, int e) {
    std::string v = "{";
    for (int k = b; k < e; ++k) v += (k > b ? ", " : "") + operand(in, in.ops[k]);
    return v + "}";
  };
  int n = in.nops;
  if (in.op == Opcode::Ld && in.vec > 1) {
    ops.push_back(range(0, in.vec));
    for (int k = in.vec; k < n; ++k) ops.push_back(operand(in, in.ops[k]));
  } else if (in.op == Opcode::St && in.vec > 1) {
    ops.push_back(operand(in, in.ops[0]));
    ops.push_back(range(1, n));
  } else if (in.op == Opcode::Mov && (m.flags & isa::kPack)) {
    ops.push_back(operand(in, in.ops[0]));
    ops.push_back(range(1, n));
  } else if (in.op == Opcode::Mov && (m.flags & isa::kUnpack)) {
    ops.push_back(range(0, n - 1));
    ops.push_back(operand(in, in.ops[n - 1]));
  } else if ((in.op == Opcode::Setp || in.op == Opcode::Shfl || in.op == Opcode::Match) && n >= 2) {
    std::string d = operand(in, in.ops[0]);
    if (in.ops[1].kind != OpKind::None) d += "|" + operand(in, in.ops[1]);
    ops.push_back(d);
    for (int k = 2; k < n; ++k) ops.push_back(operand(in, in.ops[k]));
  } else {
    for (int k = 0; k < n; ++k)
      if (in.ops[k].kind != OpKind::None || k + 1 < n) ops.push_back(operand(in, in.ops[k]));
  }
  for (size_t k = 0; k < ops.size(); ++k) s += (k ? ", " : " ") + ops[k];
  return s + ";";
}

std::string disassemble(const uint8_t* code, size_t n, uint64_t base) {
  std::string out;
  size_t off = 0;
  while (off < n) {
    isa::Inst in;
    std::string why;
    if (decode(code + off, n - off, in, &why)) {
      out += fmt::format("{:08x}:  {}\n", base + off, disassemble(in));
      off += in.size;
    } else {
      uint32_t w = 0;
      for (size_t k = 0; k < 4 && off + k < n; ++k) w |= uint32_t(code[off + k]) << (8 * k);
      out += fmt::format("{:08x}:  .invalid {:#010x}  // {}\n", base + off, w, why);
      off += 4;
    }
  }
  return out;
}

}  // namespace gpuvp::isa
