// PTX variable, parameter and register declarations: types, alignment, array sizes and
// initialisers of .global/.const/.shared/.local/.param variables; .param parameters; .reg.
#include <cstring>

#include "sw/ptx/parser_internal.h"

namespace gpuvp::ptx::detail {

// `.space [.align N] .type name[N]... [= init];` (the space token is already consumed)
void Parser::var_decl(Space sp, bool is_extern, std::vector<Var>* into) {
  Var v;
  v.space = sp;
  v.line = cur().line;
  DType type = decl_type(v, false);
  if (type == DType::None) err(cur(), fmt::format("unsupported variable declaration at '{}'", cur().s));
  v.type = type;
  Tok nt = cur();
  v.name = ident("variable name");
  uint32_t esz = bits_of(type) / 8;
  if (v.align < esz) v.align = esz;
  bool unsized = false;
  uint64_t elems = array_elems(1u << 30, &unsized);
  if (unsized) {
    if (!(is_extern && sp == Space::Shared)) err(nt, "unsized array is only supported for .extern .shared");
    v.dynamic = true;
    elems = 0;
  }
  if (elems * esz > (1ull << 31)) err(nt, "variable too large");
  v.size = uint32_t(elems * esz);
  if (accept("=")) {
    if (sp != Space::Global && sp != Space::Const) err(cur(), "initialiser only allowed on .global/.const");
    v.init = initializer(type, uint32_t(elems));
  }
  expect(";");
  if (into == &mod_.vars) {
    if (module_var(v.name) >= 0) err(nt, fmt::format("redeclaration of '{}'", v.name));
  }
  into->push_back(std::move(v));
}

// `= value` or `= {...}`: at most elems values of type t; the rest of the variable is zero, and is
// not stored here (a 1 GiB array with one initialiser must not cost 1 GiB before its size is checked).
std::vector<uint8_t> Parser::initializer(DType t, uint32_t elems) {
  std::vector<uint8_t> out;
  unsigned sz = bits_of(t) / 8;
  initializer_item(t, out);
  if (out.size() > size_t(elems) * sz) err(cur(), fmt::format("too many initialisers ({} elements declared)", elems));
  return out;
}

// One initialiser value, or a `{...}` list of them, appended to out as little-endian bytes.
void Parser::initializer_item(DType t, std::vector<uint8_t>& out) {
  unsigned sz = bits_of(t) / 8;
  Nest nest(*this, cur());
  if (accept("{")) {
    if (!at("}")) {
      initializer_item(t, out);
      while (accept(",")) initializer_item(t, out);
    }
    expect("}");
    return;
  }
  Arg a = operand();
  uint64_t bits = 0;
  if (a.k == Arg::Int) {
    if (isa::is_float(t)) {
      bits = t == DType::F32 ? [&] { float f = float(a.i); uint32_t u; std::memcpy(&u, &f, 4); return uint64_t(u); }()
                             : [&] { double d = double(a.i); uint64_t u; std::memcpy(&u, &d, 8); return u; }();
    } else {
      bits = uint64_t(a.i);
    }
  } else if (a.k == Arg::Flt && isa::is_float(t) && t != DType::F16) {
    if (t == DType::F32) {
      float f = a.raw_bits == 32 ? [&] { float x; uint32_t u = uint32_t(a.raw); std::memcpy(&x, &u, 4); return x; }()
                : a.raw_bits == 64 ? [&] { double x; std::memcpy(&x, &a.raw, 8); return float(x); }() : float(a.f);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      bits = u;
    } else {
      double d = a.raw_bits == 64 ? [&] { double x; std::memcpy(&x, &a.raw, 8); return x; }()
                 : a.raw_bits == 32 ? [&] { float x; uint32_t u = uint32_t(a.raw); std::memcpy(&x, &u, 4); return double(x); }() : a.f;
      std::memcpy(&bits, &d, 8);
    }
  } else {
    err(a.tok, "unsupported initialiser value (only numeric constants)");
  }
  for (unsigned j = 0; j < sz; ++j) out.push_back(uint8_t(bits >> (8 * j)));
}

// `.param [.align N] .type name[N]...` of a function header.
Var Parser::param_decl(Space sp) {
  expect(".param");
  Var v;
  v.space = sp;
  v.line = cur().line;
  DType type = decl_type(v, true);
  if (type == DType::None) err(cur(), fmt::format("expected a parameter type, got '{}'", cur().s));
  v.type = type;
  v.name = ident("parameter name");
  uint32_t esz = bits_of(type) / 8;
  if (v.align < esz) v.align = esz;
  uint64_t elems = array_elems(1u << 20, nullptr);
  v.size = uint32_t(elems * esz);
  return v;
}

// `.align N` and the type of a declaration, in any order; a parameter may also carry `.ptr` and a
// state space (`.ptr.global.align 4`), which change nothing here.
DType Parser::decl_type(Var& v, bool param) {
  DType type = DType::None;
  for (;;) {
    if (accept(".align")) {
      const Tok& a = cur();
      uint64_t al = number("alignment");
      if (al == 0 || (al & (al - 1)) || al > 4096) err(a, fmt::format("bad alignment {}", al));
      v.align = uint32_t(al);
    } else if (!param && accept(".attribute")) {
      // `.global .attribute(.managed)`: a __managed__ variable; the CUDA runtime mirrors it in host memory.
      expect("(");
      const Tok& a = cur();
      if (!accept(".managed")) err(a, fmt::format("unsupported variable attribute '{}'", a.s));
      expect(")");
    } else if (param && (accept(".ptr") || accept(".global") || accept(".shared") || accept(".const") ||
                         accept(".local"))) {
    } else if (cur().k == T::Ident && cur().s[0] == '.' && kTypes.count(cur().s.substr(1)) && cur().s != ".pred") {
      type = kTypes.at(next().s.substr(1));
    } else {
      return type;
    }
  }
}

// `[N][M]...`: the element count. `[]` is accepted (and reported through *unsized) only where
// unsized is given.
uint64_t Parser::array_elems(uint64_t max_dim, bool* unsized) {
  uint64_t elems = 1;
  while (accept("[")) {
    if (unsized && accept("]")) {
      *unsized = true;
      continue;
    }
    const Tok& n = cur();
    uint64_t d = number("array size");
    if (d == 0 || d > max_dim) err(n, fmt::format("bad array size {}", d));
    elems *= d;
    expect("]");
  }
  return elems;
}

// `.reg .type name, name<N>, ...;` after the .reg token.
void Parser::reg_decl() {
  if (cur().k != T::Ident || !kTypes.count(cur().s.substr(1)) || cur().s[0] != '.')
    err(cur(), fmt::format("expected a register type, got '{}'", cur().s));
  DType type = kTypes.at(next().s.substr(1));
  for (;;) {
    Tok nt = cur();
    std::string name = ident("register name");
    uint64_t count = 0;
    bool ranged = false;
    if (accept("<")) {
      const Tok& n = cur();
      count = number("register count");
      if (count > 65536) err(n, "too many registers");
      expect(">");
      ranged = true;
    }
    auto add = [&](const std::string& n) {
      if (type == DType::Pred) {
        declare(nt, n, {Name::Pred, uint32_t(fn_->preds.size())});
        fn_->preds.push_back(n);
      } else {
        declare(nt, n, {Name::Reg, uint32_t(fn_->regs.size())});
        fn_->regs.push_back({n, type});
      }
    };
    if (ranged)
      for (uint64_t j = 0; j < count; ++j) add(name + std::to_string(j));
    else
      add(name);
    if (!accept(",")) break;
  }
  expect(";");
}

}  // namespace gpuvp::ptx::detail
