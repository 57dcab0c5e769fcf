// Extended-precision integer arithmetic, the carry chain of PTX (CC.CF): add.cc, addc[.cc], sub.cc,
// subc[.cc], mad.{lo,hi}.cc, madc.{lo,hi}[.cc] on .u32/.s32/.u64/.s64. CC.CF is per-thread state
// that PTX does not name as an operand, so the parser gives it one: a hidden predicate slot of the
// function (reserved at its first carry instruction), appended as the instruction's last operand.
// The SM then keeps the carry with the predicates, where the registry and fault injection see it.
#include "sw/ptx/parser_internal.h"

namespace gpuvp::ptx::detail {

namespace {
// The hidden predicate's name: not a PTX identifier, so no declaration can collide with it.
constexpr const char* kCarryName = "CC.CF";

const std::map<std::string, Opcode> kCarryOps = {{"add", Opcode::Add},   {"sub", Opcode::Sub},
                                                 {"mad", Opcode::Mad},   {"addc", Opcode::Addc},
                                                 {"subc", Opcode::Subc}, {"madc", Opcode::Madc}};
}  // namespace

uint16_t Parser::carry_slot() {
  for (size_t i = 0; i < fn_->preds.size(); ++i)
    if (fn_->preds[i] == kCarryName) return uint16_t(i);
  fn_->preds.push_back(kCarryName);
  return uint16_t(fn_->preds.size() - 1);
}

// add.cc/sub.cc/mad.cc write the carry; addc/subc/madc read it and write it with .cc.
void Parser::carry(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  I.op = kCarryOps.at(c.name);
  bool reads = I.op == Opcode::Addc || I.op == Opcode::Subc || I.op == Opcode::Madc;
  if (c.take("cc")) I.mod.flags |= isa::kCc;
  else if (!reads) c.die(c.op, fmt::format("{} without .cc is not a carry instruction", c.name));
  bool mad = I.op == Opcode::Mad || I.op == Opcode::Madc;
  if (mad) {
    static const std::map<std::string, isa::MulMode> lohi = {{"lo", isa::MulMode::Lo}, {"hi", isa::MulMode::Hi}};
    I.mod.mul = c.take_of(lohi, isa::MulMode::None);
    if (I.mod.mul == isa::MulMode::None) c.die(c.op, fmt::format("{} with a carry needs .lo or .hi", c.name));
  }
  I.type = c.type();
  c.done();
  if (I.type != DType::U32 && I.type != DType::S32 && I.type != DType::U64 && I.type != DType::S64)
    c.die(c.op, "carry arithmetic needs .u32, .s32, .u64 or .s64");
  size_t n = mad ? 4 : 3;
  c.count(n, n);
  I.nops = uint8_t(n + 1);
  I.ops[0] = c.dst(A[0], I.type);
  for (size_t j = 1; j < n; ++j) I.ops[j] = c.src(A[j], I.type);
  I.ops[n] = {OpKind::Pred, false, carry_slot(), 0};
}

}  // namespace gpuvp::ptx::detail
