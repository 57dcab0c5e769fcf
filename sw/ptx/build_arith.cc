// Arithmetic, logic, bit-field and math instructions: the table-driven family (kArith) plus the
// irregular ones (shf, prmt, testp).
#include <cstring>
#include <unordered_map>

#include "sw/ptx/parser_internal.h"

namespace gpuvp::ptx::detail {

namespace {

enum ModBits : unsigned { M_RND = 1, M_FTZ = 2, M_SAT = 4, M_APPROX = 8, M_FULL = 16, M_MUL = 32, M_SHIFTAMT = 64 };

struct ArithSpec {
  Opcode op;
  const char* classes;  // allowed type classes (u s b f p h)
  unsigned mods;
  const char* pat;      // operand types: T instr type, u u32, b b32, p pred (w: .wide, set below)
};

const std::unordered_map<std::string, ArithSpec> kArith = {
    {"add", {Opcode::Add, "usf", M_RND | M_FTZ | M_SAT, "TTT"}},
    {"sub", {Opcode::Sub, "usf", M_RND | M_FTZ | M_SAT, "TTT"}},
    {"mul", {Opcode::Mul, "usf", M_RND | M_FTZ | M_SAT | M_MUL, "TTT"}},
    {"mad", {Opcode::Mad, "usf", M_RND | M_FTZ | M_SAT | M_MUL, "TTTT"}},
    {"mul24", {Opcode::Mul24, "us", M_MUL, "TTT"}},
    {"mad24", {Opcode::Mad24, "us", M_MUL | M_SAT, "TTTT"}},
    {"fma", {Opcode::Fma, "f", M_RND | M_FTZ | M_SAT, "TTTT"}},
    {"div", {Opcode::Div, "usf", M_RND | M_FTZ | M_APPROX | M_FULL, "TTT"}},
    {"rem", {Opcode::Rem, "us", 0, "TTT"}},
    {"abs", {Opcode::Abs, "sf", M_FTZ, "TT"}},
    {"neg", {Opcode::Neg, "sf", M_FTZ, "TT"}},
    {"min", {Opcode::Min, "usf", M_FTZ, "TTT"}},
    {"max", {Opcode::Max, "usf", M_FTZ, "TTT"}},
    {"sad", {Opcode::Sad, "us", 0, "TTTT"}},
    {"sqrt", {Opcode::Sqrt, "f", M_RND | M_FTZ | M_APPROX, "TT"}},
    {"rsqrt", {Opcode::Rsqrt, "f", M_FTZ | M_APPROX, "TT"}},
    {"rcp", {Opcode::Rcp, "f", M_RND | M_FTZ | M_APPROX, "TT"}},
    {"sin", {Opcode::Sin, "f", M_FTZ | M_APPROX, "TT"}},
    {"cos", {Opcode::Cos, "f", M_FTZ | M_APPROX, "TT"}},
    {"ex2", {Opcode::Ex2, "f", M_FTZ | M_APPROX, "TT"}},
    {"lg2", {Opcode::Lg2, "f", M_FTZ | M_APPROX, "TT"}},
    {"tanh", {Opcode::Tanh, "f", M_APPROX, "TT"}},
    {"copysign", {Opcode::Copysign, "f", 0, "TTT"}},
    {"and", {Opcode::And, "bp", 0, "TTT"}},
    {"or", {Opcode::Or, "bp", 0, "TTT"}},
    {"xor", {Opcode::Xor, "bp", 0, "TTT"}},
    {"not", {Opcode::Not, "bp", 0, "TT"}},
    {"cnot", {Opcode::Cnot, "b", 0, "TT"}},
    {"lop3", {Opcode::Lop3, "b", 0, "TTTTu"}},
    {"shl", {Opcode::Shl, "b", 0, "TTu"}},
    {"shr", {Opcode::Shr, "bus", 0, "TTu"}},
    {"popc", {Opcode::Popc, "b", 0, "uT"}},
    {"clz", {Opcode::Clz, "b", 0, "uT"}},
    {"brev", {Opcode::Brev, "b", 0, "TT"}},
    {"bfe", {Opcode::Bfe, "us", 0, "TTuu"}},
    {"bfi", {Opcode::Bfi, "b", 0, "TTTuu"}},
    {"bfind", {Opcode::Bfind, "us", M_SHIFTAMT, "uT"}},
    {"selp", {Opcode::Selp, "usbf", 0, "TTTp"}},
};

const std::map<std::string, isa::MulMode> kMulModes = {
    {"lo", isa::MulMode::Lo}, {"hi", isa::MulMode::Hi}, {"wide", isa::MulMode::Wide}};

// The optional flag modifiers of the family, taken in this order when the spec allows them.
struct FlagMod {
  unsigned bit;      // ModBits
  const char* text;  // modifier text
  uint16_t flag;     // isa::Mods::flags bit
};
const FlagMod kArithFlags[] = {{M_FTZ, "ftz", isa::kFtz},
                               {M_SAT, "sat", isa::kSat},
                               {M_APPROX, "approx", isa::kApprox},
                               {M_FULL, "full", isa::kFull},
                               {M_SHIFTAMT, "shiftamt", isa::kShiftAmt}};

// The modifier combinations each instruction needs or refuses (type class already checked).
void arith_checks(Ictx& c, char cls) {
  auto& I = c.in.inst;
  const Tok& op = c.op;
  const std::string& name = c.name;
  bool fl = cls == 'f';
  if (!fl && (I.mod.round != isa::Round::None || (I.mod.flags & (isa::kFtz | isa::kApprox | isa::kFull))))
    c.die(op, "floating-point modifier on an integer instruction");
  if (fl && I.mod.mul != isa::MulMode::None) c.die(op, ".lo/.hi/.wide on a floating-point instruction");
  if (!fl && (I.op == Opcode::Mul || I.op == Opcode::Mad) && I.mod.mul == isa::MulMode::None)
    c.die(op, "integer mul/mad needs .lo, .hi or .wide");
  if ((I.op == Opcode::Mul24 || I.op == Opcode::Mad24) &&
      (bits_of(I.type) != 32 || I.mod.mul == isa::MulMode::None || I.mod.mul == isa::MulMode::Wide))
    c.die(op, "mul24/mad24 need .lo or .hi and a 32-bit type");
  if (I.mod.round > isa::Round::Rp) c.die(op, "integer rounding modifier on arithmetic");
  if (I.op == Opcode::Fma && I.mod.round == isa::Round::None) c.die(op, "fma needs a rounding modifier");
  if ((I.mod.flags & isa::kSat) && !(fl || I.type == DType::S32)) c.die(op, ".sat needs .s32 or a float type");
  if (I.op == Opcode::Div && fl && I.type == DType::F32 && I.mod.round == isa::Round::None &&
      !(I.mod.flags & (isa::kApprox | isa::kFull)))
    c.die(op, "div.f32 needs .approx, .full or a rounding modifier");
  if ((I.op == Opcode::Sqrt || I.op == Opcode::Rcp) && I.mod.round == isa::Round::None && !(I.mod.flags & isa::kApprox))
    c.die(op, fmt::format("{} needs .approx or a rounding modifier", name));
  if ((I.op == Opcode::Rsqrt || I.op == Opcode::Sin || I.op == Opcode::Cos || I.op == Opcode::Ex2 ||
       I.op == Opcode::Lg2 || I.op == Opcode::Tanh) && !(I.mod.flags & isa::kApprox))
    c.die(op, fmt::format("{} needs .approx", name));
  if ((I.op == Opcode::Bfe || I.op == Opcode::Bfind) && bits_of(I.type) < 32) c.die(op, "needs a 32/64-bit type");
  if ((I.op == Opcode::Lop3) && I.type != DType::B32) c.die(op, "lop3 needs .b32");
}

// Operands by the spec's pattern (T instr type, w double width, u u32, b b32, p pred).
void arith_operands(Ictx& c, const char* pattern) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  std::string pat = pattern;
  bool wide = I.mod.mul == isa::MulMode::Wide;
  if (wide) {
    if (wide_of(I.type) == DType::None || bits_of(I.type) > 32) c.die(op, ".wide needs a 16/32-bit type");
    pat[0] = 'w';
    if (I.op == Opcode::Mad) pat[3] = 'w';
  }
  c.count(pat.size(), pat.size());
  I.nops = uint8_t(pat.size());
  for (size_t j = 0; j < pat.size(); ++j) {
    DType t = pat[j] == 'T' ? I.type : pat[j] == 'w' ? wide_of(I.type) : pat[j] == 'u' ? DType::U32
              : pat[j] == 'b' ? DType::B32 : DType::Pred;
    I.ops[j] = j == 0 ? c.dst(A[j], t) : c.src(A[j], t);
  }
  if (I.op == Opcode::Lop3 && (I.ops[4].kind != OpKind::Imm || I.ops[4].imm > 255))
    c.die(A[4].tok, "lop3 lookup table must be an immediate 0..255");
}

}  // namespace

std::vector<std::string> arith_mnemonics() {
  std::vector<std::string> out;
  for (auto& [name, spec] : kArith) out.push_back(name);
  return out;
}

// add, sub, mul, mad, ..., selp: modifiers and operand types come from the kArith row.
void Parser::arith(Ictx& c) {
  auto& I = c.in.inst;
  for (const std::string& m : c.mods)
    if (m == "cc" && (c.name == "add" || c.name == "sub" || c.name == "mad")) return carry(c);  // build_carry.cc
  const ArithSpec& s = kArith.at(c.name);
  I.op = s.op;
  if (s.mods & M_MUL) I.mod.mul = c.take_of(kMulModes, isa::MulMode::None);
  if (s.mods & M_RND) I.mod.round = c.take_of(kRounds, isa::Round::None);
  for (const FlagMod& f : kArithFlags)
    if ((s.mods & f.bit) && c.take(f.text)) I.mod.flags |= f.flag;
  I.type = c.type();
  c.done();
  char cls = type_class(I.type);
  if (!std::strchr(s.classes, cls))
    c.die(c.op, fmt::format("type .{} not supported by {}", type_name(I.type), c.name));
  arith_checks(c, cls);
  arith_operands(c, s.pat);
}

// shf.{l,r}.{wrap,clamp}.b32 d, a, b, c
void Parser::shf(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  I.op = Opcode::Shf;
  if (c.take("l")) I.mod.flags |= isa::kShfLeft;
  else if (!c.take("r")) c.die(op, "shf needs .l or .r");
  if (c.take("wrap")) I.mod.flags |= isa::kShfWrap;
  else if (!c.take("clamp")) c.die(op, "shf needs .wrap or .clamp");
  I.type = c.type();
  c.done();
  if (I.type != DType::B32) c.die(op, "shf needs .b32");
  c.count(4, 4);
  c.set_ops({c.dst(A[0], I.type), c.src(A[1], I.type), c.src(A[2], I.type), c.src(A[3], DType::U32)});
}

// prmt.b32[.mode] d, a, b, c
void Parser::prmt(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  I.op = Opcode::Prmt;
  I.type = c.type();
  static const std::map<std::string, isa::PrmtMode> pm = {
      {"f4e", isa::PrmtMode::F4e}, {"b4e", isa::PrmtMode::B4e}, {"rc8", isa::PrmtMode::Rc8},
      {"ecl", isa::PrmtMode::Ecl}, {"ecr", isa::PrmtMode::Ecr}, {"rc16", isa::PrmtMode::Rc16}};
  I.mod.prmt = c.take_of(pm, isa::PrmtMode::None);
  c.done();
  if (I.type != DType::B32) c.die(op, "prmt needs .b32");
  c.count(4, 4);
  c.set_ops({c.dst(A[0], I.type), c.src(A[1], I.type), c.src(A[2], I.type), c.src(A[3], I.type)});
}

// testp.mode.{f32,f64} p, a
void Parser::testp(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  I.op = Opcode::Testp;
  static const std::map<std::string, isa::TestpMode> tm = {
      {"finite", isa::TestpMode::Finite}, {"infinite", isa::TestpMode::Infinite},
      {"number", isa::TestpMode::Number}, {"notanumber", isa::TestpMode::NotANumber},
      {"normal", isa::TestpMode::Normal}, {"subnormal", isa::TestpMode::Subnormal}};
  I.mod.testp = c.take_of(tm, isa::TestpMode::None);
  if (I.mod.testp == isa::TestpMode::None) c.die(op, "testp needs a test mode");
  I.type = c.type();
  c.done();
  if (type_class(I.type) != 'f') c.die(op, "testp needs .f32 or .f64");
  c.count(2, 2);
  c.set_ops({c.dst(A[0], DType::Pred, false), c.src(A[1], I.type)});
}

}  // namespace gpuvp::ptx::detail
