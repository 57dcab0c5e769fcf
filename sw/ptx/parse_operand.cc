// PTX operand syntax (registers, predicates, immediates, [addresses], {vectors}, (lists), symbols)
// and its conversion to isa::Operand for a given instruction type.
#include <cmath>
#include <cstring>

#include "sw/ptx/parser_internal.h"

namespace gpuvp::ptx::detail {

Arg Parser::operand() {
  Arg a;
  a.tok = cur();
  Nest nest(*this, a.tok);
  if (accept("{")) {
    a.k = Arg::Vec;
    a.el.push_back(operand());
    while (accept(",")) a.el.push_back(operand());
    expect("}");
    return a;
  }
  if (accept("(")) {
    a.k = Arg::List;
    if (!at(")")) {
      a.el.push_back(operand());
      while (accept(",")) a.el.push_back(operand());
    }
    expect(")");
    return a;
  }
  if (accept("[")) {
    a.k = Arg::Mem;
    mem_address(a);
    expect("]");
    return a;
  }
  bool neg = false;
  if (accept("!")) neg = true;
  bool minus = false;
  if (!neg && accept("-")) minus = true;
  const Tok& t = cur();
  a.tok = t;
  if (t.k == T::Num) {
    next();
    number_operand(a, t, minus);
    return a;
  }
  if (minus) err(t, fmt::format("bad immediate '-{}'", t.s));
  if (t.k != T::Ident || t.s[0] == '.') err(t, fmt::format("expected an operand, got '{}'", t.s));
  next();
  name_operand(a, t, neg);
  return a;
}

// The inside of `[...]`: a number, or a register / symbol with an optional +/- offset.
void Parser::mem_address(Arg& a) {
  const Tok& b = cur();
  if (b.k == T::Num) {
    a.i = int64_t(number("address"));
  } else {
    std::string n = ident("address");
    Name* nm = lookup(n);
    if (nm && nm->k == Name::Reg) {
      a.base_reg = true;
      a.idx = nm->idx;
      if (bits_of(fn_->regs[nm->idx].type) < 32) err(b, fmt::format("address register '{}' is narrower than 32 bits", n));
    } else if (nm && nm->k == Name::Pred) {
      err(b, fmt::format("predicate '{}' used as an address", n));
    } else if (n[0] == '%') {
      err(b, fmt::format("undeclared register '{}'", n));
    } else {
      a.name = n;
    }
    if (accept("+")) {
      bool neg = accept("-");
      const Tok& o = cur();
      int64_t v = int64_t(number("offset"));
      if (v < 0) err(o, "offset out of range");
      a.i = neg ? -v : v;
    } else if (accept("-")) {
      const Tok& o = cur();
      int64_t v = int64_t(number("offset"));
      if (v < 0) err(o, "offset out of range");
      a.i = -v;
    }
  }
}

// A numeric immediate (already consumed as t): 0f/0d raw floats, decimal floats, integers.
void Parser::number_operand(Arg& a, const Tok& t, bool minus) {
  const std::string& s = t.s;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
    a.k = Arg::Flt;
    a.raw_bits = (s[1] == 'f' || s[1] == 'F') ? 32 : 64;
    int64_t v;
    if (s.size() != size_t(2 + a.raw_bits / 4) || !parse_int("0x" + s.substr(2), v))
      err(t, fmt::format("bad immediate '{}'", s));
    a.raw = uint64_t(v);
    if (minus) a.raw ^= a.raw_bits == 32 ? 0x80000000ull : 0x8000000000000000ull;
  } else if (s.find_first_of(".eE") != std::string::npos && s.compare(0, 2, "0x") && s.compare(0, 2, "0X")) {
    a.k = Arg::Flt;
    char* end = nullptr;
    a.f = std::strtod(s.c_str(), &end);
    if (!end || *end) err(t, fmt::format("bad immediate '{}'", s));
    if (minus) a.f = -a.f;
  } else {
    a.k = Arg::Int;
    int64_t v;
    if (!parse_int(s, v)) err(t, fmt::format("bad immediate '{}'", s));
    if (minus) {
      if (uint64_t(v) > (1ull << 63)) err(t, fmt::format("bad immediate '-{}'", s));
      v = int64_t(0 - uint64_t(v));
    }
    a.i = v;
  }
}

// A name (already consumed as t): register, predicate (optionally negated or p|q), special
// register, sink `_`, or a symbol resolved later by the instruction builder.
void Parser::name_operand(Arg& a, const Tok& t, bool neg) {
  if (t.s == "_") {
    a.k = Arg::Sink;
    return;
  }
  Name* nm = lookup(t.s);
  if (nm && (nm->k == Name::Reg || nm->k == Name::Pred)) {
    a.k = nm->k == Name::Reg ? Arg::Reg : Arg::Pred;
    a.idx = nm->idx;
    a.neg = neg;
    if (neg && a.k != Arg::Pred) err(t, "'!' applies only to predicates");
    if (accept("|")) {
      const Tok& q = cur();
      std::string qn = ident("predicate");
      Name* qm = lookup(qn);
      if (!qm || qm->k != Name::Pred) err(q, fmt::format("undeclared predicate '{}'", qn));
      a.pipe = int(qm->idx);
    }
    return;
  }
  if (neg) err(t, fmt::format("undeclared predicate '{}'", t.s));
  if (t.s[0] == '%') {
    auto s = kSRegs.find(t.s);
    if (s != kSRegs.end()) {
      a.k = Arg::SReg;
      a.idx = uint32_t(s->second);
      return;
    }
    err(t, fmt::format("undeclared register '{}'", t.s));
  }
  // WARP_SZ, PTX's predefined warp size (nvcc compiles warpSize to it), is the constant 32 wherever an
  // immediate may stand: the warp-level instructions nvcc emits with it need 32-lane warps anyway.
  if (t.s == "WARP_SZ") {
    a.k = Arg::Int;
    a.i = 32;
    return;
  }
  a.k = Arg::Sym;
  a.name = t.s;
}

// ---------------------------------------------------------------- conversion to isa::Operand
void Ictx::set_ops(std::initializer_list<isa::Operand> ops) {
  in.inst.nops = 0;
  for (auto& o : ops) in.inst.ops[in.inst.nops++] = o;
}

void Ictx::count(size_t lo, size_t hi) const {
  if (args.size() < lo || args.size() > hi) {
    if (lo == hi) die(op, fmt::format("expected {} operands, got {}", lo, args.size()));
    die(op, fmt::format("expected {} to {} operands, got {}", lo, hi, args.size()));
  }
}

isa::Operand Ictx::dst(const Arg& a, DType t, bool sink_ok) const {
  if (t == DType::Pred) {
    if (a.k == Arg::Pred && !a.neg && a.pipe < 0) return {OpKind::Pred, false, uint16_t(a.idx), 0};
    if (a.k == Arg::Sink && sink_ok) return {OpKind::Sink, false, isa::kNoReg, 0};
    die(a.tok, "expected a predicate destination");
  }
  if (a.k == Arg::Reg && a.pipe < 0) {
    check_width(a, t);
    return {OpKind::Reg, false, uint16_t(a.idx), 0};
  }
  if (a.k == Arg::Sink && sink_ok) return {OpKind::Sink, false, isa::kNoReg, 0};
  die(a.tok, "expected a register destination");
}

// A register narrower than the instruction's type cannot hold the value.
void Ictx::check_width(const Arg& a, DType t) const {
  DType rt = reg_type(a);
  if (bits_of(rt) < bits_of(t) && !(t == DType::F16 && bits_of(rt) >= 16))
    die(a.tok, fmt::format("register '{}' is too narrow for .{}", fn.regs[a.idx].name, type_name(t)));
}

isa::Operand Ictx::src(const Arg& a, DType t, bool neg_ok) const {
  if (t == DType::Pred) {
    if (a.k == Arg::Pred && a.pipe < 0) {
      if (a.neg && !neg_ok) die(a.tok, "negated predicate not allowed here");
      return {OpKind::Pred, a.neg, uint16_t(a.idx), 0};
    }
    // Predicate constants (nvcc: `mov.pred %p2, 0;`): the SM reads an immediate as all lanes 0/1.
    if (a.k == Arg::Int && (a.i == 0 || a.i == 1)) return {OpKind::Imm, false, isa::kNoReg, a.i};
    die(a.tok, "expected a predicate");
  }
  if (a.k == Arg::Reg) {
    check_width(a, t);
    return {OpKind::Reg, false, uint16_t(a.idx), 0};
  }
  if (a.k == Arg::Int || a.k == Arg::Flt) return {OpKind::Imm, false, isa::kNoReg, imm(a, t)};
  if (a.k == Arg::Pred) die(a.tok, "predicate used as a value operand");
  if (a.k == Arg::SReg) die(a.tok, "special registers can only be read by mov");
  if (a.k == Arg::Sym) die(a.tok, fmt::format("symbol '{}' not allowed here", a.name));
  die(a.tok, "expected a register or immediate");
}

int64_t Ictx::imm(const Arg& a, DType t) const {
  auto f2b = [](float f) { uint32_t u; std::memcpy(&u, &f, 4); return int64_t(u); };
  auto d2b = [](double d) { int64_t u; std::memcpy(&u, &d, 8); return u; };
  auto b2f = [](uint64_t r) { float f; uint32_t u = uint32_t(r); std::memcpy(&f, &u, 4); return f; };
  auto b2d = [](uint64_t r) { double d; std::memcpy(&d, &r, 8); return d; };
  // PTX float instructions take only float literals (0f/0d hex or decimal with '.'/exponent).
  if (isa::is_float(t) && a.k == Arg::Int) die(a.tok, fmt::format("bad immediate '{}' for .{}", a.tok.s, type_name(t)));
  if (t == DType::F32) {
    if (a.raw_bits == 32) return int64_t(a.raw);
    if (a.raw_bits == 64) return f2b(float(b2d(a.raw)));
    return f2b(float(a.f));
  }
  if (t == DType::F64) {
    if (a.raw_bits == 64) return int64_t(a.raw);
    if (a.raw_bits == 32) return d2b(double(b2f(a.raw)));
    return d2b(a.f);
  }
  if (t == DType::F16) die(a.tok, "f16 immediates are not supported");
  if (a.k != Arg::Int) die(a.tok, fmt::format("bad immediate '{}' for .{}", a.tok.s, type_name(t)));
  unsigned n = bits_of(t);
  if (n >= 64) return a.i;
  int64_t lo = -(int64_t(1) << (n - 1)), hi = (int64_t(1) << n) - 1;
  if (a.i < lo || a.i > hi) die(a.tok, fmt::format("immediate {} out of range for .{}", a.i, type_name(t)));
  uint64_t v = uint64_t(a.i) & ((uint64_t(1) << n) - 1);
  if (isa::is_signed(t) && (v >> (n - 1))) v |= ~((uint64_t(1) << n) - 1);
  return int64_t(v);
}

}  // namespace gpuvp::ptx::detail
