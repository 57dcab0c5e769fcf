// Data movement and conversion: mov (plain, special register, pack/unpack, address of), cvt, cvta.
#include "sw/ptx/parser_internal.h"

namespace gpuvp::ptx::detail {

// mov.type d, a: plain copy, special register read, pack/unpack {..} or address of a symbol.
void Parser::mov(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  I.op = Opcode::Mov;
  I.type = c.type();
  c.done();
  c.count(2, 2);
  if (A[1].k == Arg::Vec || A[0].k == Arg::Vec) {
    bool pack = A[1].k == Arg::Vec;
    const Arg& v = pack ? A[1] : A[0];
    if (A[pack ? 0 : 1].k == Arg::Vec) c.die(A[0].tok, "vector on both sides of mov");
    size_t n = v.el.size();
    if ((n != 2 && n != 4) || bits_of(I.type) < 16 || type_class(I.type) != 'b')
      c.die(v.tok, "pack/unpack needs .b16/.b32/.b64 and 2 or 4 elements");
    DType et = bits_of(I.type) / n == 8 ? DType::B8 : bits_of(I.type) / n == 16 ? DType::B16 : DType::B32;
    if (bits_of(I.type) / n < 8) c.die(v.tok, "bad element count");
    I.vec = uint8_t(n);
    I.mod.flags |= pack ? isa::kPack : isa::kUnpack;
    I.nops = 0;
    if (pack) {
      I.ops[I.nops++] = c.dst(A[0], I.type, false);
      for (auto& e : v.el) I.ops[I.nops++] = c.src(e, et);
    } else {
      for (auto& e : v.el) I.ops[I.nops++] = c.dst(e, et);
      I.ops[I.nops++] = c.src(A[1], I.type);
    }
  } else if (A[1].k == Arg::SReg) {
    isa::SReg s = isa::SReg(A[1].idx);
    unsigned need = (s == isa::SReg::Clock64 || s == isa::SReg::GlobalTimer) ? 64 : 32;
    if (bits_of(I.type) != need) c.die(A[1].tok, fmt::format("{} needs a {}-bit mov", A[1].tok.s, need));
    c.set_ops({c.dst(A[0], I.type, false), {OpKind::SReg, false, uint16_t(A[1].idx), 0}});
  } else if (A[1].k == Arg::Sym) {
    mov_address(c);
  } else {
    c.set_ops({c.dst(A[0], I.type, false), c.src(A[1], I.type)});
  }
}

// mov d, symbol: the address of a module variable or a .local variable (a Ref the assembler fills).
void Parser::mov_address(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  Ref r;
  r.op = 1;
  Name* nm = lookup(A[1].name);
  if (nm && nm->k == Name::Var && fn_->vars[nm->idx].space == Space::Local) {
    r.kind = RefKind::FuncVar;
    r.index = nm->idx;
  } else if (nm) {
    c.die(A[1].tok, fmt::format("taking the address of .param '{}' is not supported", A[1].name));
  } else if (int mv = module_var(A[1].name); mv >= 0) {
    r.kind = RefKind::ModuleVar;
    r.index = uint32_t(mv);
  } else if (mod_.find(A[1].name)) {
    c.die(A[1].tok, "function pointers are not supported");
  } else {
    c.die(A[1].tok, fmt::format("unknown symbol '{}'", A[1].name));
  }
  Space vs = r.kind == RefKind::FuncVar ? Space::Local : mod_.vars[r.index].space;
  bool small = vs == Space::Shared || vs == Space::Local;
  if ((bits_of(I.type) != 64 && !(small && bits_of(I.type) == 32)) || type_class(I.type) == 'f')
    c.die(c.op, "address mov needs a 64-bit integer type (32-bit allowed for .shared/.local)");
  c.in.refs.push_back(r);
  c.set_ops({c.dst(A[0], I.type, false), {OpKind::Imm, false, isa::kNoReg, 0}});
}

// cvt[.rnd][.ftz][.sat].dtype.stype d, a
void Parser::cvt(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  I.op = Opcode::Cvt;
  I.mod.round = c.take_of(kRounds, isa::Round::None);
  if (c.take("ftz")) I.mod.flags |= isa::kFtz;
  if (c.take("sat")) I.mod.flags |= isa::kSat;
  I.type = c.type();
  I.type2 = c.type();
  c.done();
  if (I.type == DType::Pred || I.type2 == DType::Pred) c.die(op, "cvt does not convert predicates");
  bool df = isa::is_float(I.type), sf = isa::is_float(I.type2);
  bool irnd = I.mod.round >= isa::Round::Rni, frnd = I.mod.round != isa::Round::None && !irnd;
  if (sf && !df && frnd) c.die(op, "float-to-integer cvt needs an integer rounding (.rni/.rzi/.rmi/.rpi)");
  if (!sf && !df && I.mod.round != isa::Round::None) c.die(op, "rounding modifier on an integer cvt");
  if (!sf && df && irnd) c.die(op, "integer rounding on an integer-to-float cvt");
  if (sf && !df && I.mod.round == isa::Round::None) c.die(op, "float-to-integer cvt needs a rounding modifier");
  if (sf && df && bits_of(I.type) < bits_of(I.type2) && I.mod.round == isa::Round::None)
    c.die(op, "narrowing float cvt needs a rounding modifier");
  c.count(2, 2);
  c.set_ops({c.dst(A[0], I.type), c.src(A[1], I.type2)});
}

// cvta[.to].space.u64 d, a
void Parser::cvta(Ictx& c) {
  auto& I = c.in.inst;
  auto& A = c.args;
  const Tok& op = c.op;
  I.op = Opcode::Cvta;
  if (c.take("to")) I.mod.flags |= isa::kToSpace;
  I.mod.space = c.take_of(kSpaces, Space::Generic);
  I.type = c.type();
  c.done();
  if (I.mod.space != Space::Global && I.mod.space != Space::Shared && I.mod.space != Space::Local)
    c.die(op, "cvta supports .global, .shared and .local only");
  if (I.type != DType::U64) c.die(op, "cvta needs .u64");
  c.count(2, 2);
  c.set_ops({c.dst(A[0], I.type), c.src(A[1], I.type)});
}

}  // namespace gpuvp::ptx::detail
