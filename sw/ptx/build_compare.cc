// Compare and select instructions: setp, set, slct (selp is table-driven in build_arith.cc).
#include "sw/ptx/parser_internal.h"

namespace gpuvp::ptx::detail {

// setp/set.cmp[.boolop][.ftz].type d[|q], a, b[, c]
void Parser::setp(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  const std::string& name = c.name;
  I.op = name == "setp" ? Opcode::Setp : Opcode::Set;
  I.mod.cmp = c.take_of(kCmps, isa::Cmp::None);
  if (I.mod.cmp == isa::Cmp::None) c.die(op, fmt::format("{} needs a comparison", name));
  static const std::map<std::string, isa::BoolOp> bm = {
      {"and", isa::BoolOp::And}, {"or", isa::BoolOp::Or}, {"xor", isa::BoolOp::Xor}};
  I.mod.boolop = c.take_of(bm, isa::BoolOp::None);
  if (c.take("ftz")) I.mod.flags |= isa::kFtz;
  DType st;
  if (I.op == Opcode::Set) {
    I.type = c.type();
    st = I.type2 = c.type();
    if (I.type != DType::U32 && I.type != DType::S32 && I.type != DType::F32) c.die(op, "set needs .u32/.s32/.f32 result");
  } else {
    st = I.type = c.type();
  }
  c.done();
  char cls = type_class(st);
  if (cls == 'p' || cls == 'h') c.die(op, fmt::format("{} does not support .{}", name, type_name(st)));
  bool ucmp = I.mod.cmp >= isa::Cmp::Equ;
  if (cls != 'f' && ucmp) c.die(op, "unordered comparison on an integer type");
  if (cls == 'f' && I.mod.cmp >= isa::Cmp::Lo && I.mod.cmp <= isa::Cmp::Hs) c.die(op, "unsigned comparison on a float type");
  if (cls == 'b' && I.mod.cmp != isa::Cmp::Eq && I.mod.cmp != isa::Cmp::Ne) c.die(op, "bit types only compare eq/ne");
  size_t n = I.mod.boolop == isa::BoolOp::None ? 3 : 4;
  c.count(n, n);
  isa::Operand cc{};
  if (n == 4) cc = c.src(A[3], DType::Pred, true);
  if (I.op == Opcode::Setp) {
    if (A[0].k != Arg::Pred || A[0].neg) c.die(A[0].tok, "expected a predicate destination");
    isa::Operand p{OpKind::Pred, false, uint16_t(A[0].idx), 0};
    isa::Operand q{};
    if (A[0].pipe >= 0) q = {OpKind::Pred, false, uint16_t(A[0].pipe), 0};
    c.set_ops({p, q, c.src(A[1], st), c.src(A[2], st)});
    if (n == 4) I.ops[I.nops++] = cc;
  } else {
    c.set_ops({c.dst(A[0], I.type), c.src(A[1], st), c.src(A[2], st)});
    if (n == 4) I.ops[I.nops++] = cc;
  }
}

// slct[.ftz].dtype.{s32,f32} d, a, b, c
void Parser::slct(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  I.op = Opcode::Slct;
  if (c.take("ftz")) I.mod.flags |= isa::kFtz;
  I.type = c.type();
  I.type2 = c.type();
  c.done();
  if (I.type2 != DType::S32 && I.type2 != DType::F32) c.die(op, "slct selector must be .s32 or .f32");
  c.count(4, 4);
  c.set_ops({c.dst(A[0], I.type), c.src(A[1], I.type), c.src(A[2], I.type), c.src(A[3], I.type2)});
}

}  // namespace gpuvp::ptx::detail
