// PTX directives and declarations: module directives, .entry/.func headers and bodies, variables
// (.global/.const/.shared/.local/.param), parameters, registers, labels, and body statements.
#include <cstring>

#include "sw/ptx/parser_internal.h"

namespace gpuvp::ptx::detail {

void Parser::module_directive() {
  const Tok& t = cur();
  if (accept(".version")) {
    if (cur().k != T::Num) err(cur(), "expected version number");
    next();
    return;
  }
  if (accept(".target")) {
    ident("target");
    while (accept(",")) ident("target");
    return;
  }
  if (accept(".address_size")) {
    const Tok& n = cur();
    if (number("address size") != 64) err(n, "only .address_size 64 is supported");
    return;
  }
  if (accept(".file")) {  // debug info: .file N "name"[, ts, size]
    number("file index");
    if (cur().k == T::Str) next();
    while (accept(",")) next();
    return;
  }
  bool visible = false, is_extern = false, weak = false;
  for (;;) {
    if (accept(".visible")) visible = true;
    else if (accept(".extern")) is_extern = true;
    else if (accept(".weak")) weak = true;
    else break;
  }
  if (accept(".entry")) return function(true, visible, is_extern, weak);
  if (accept(".func")) return function(false, visible, is_extern, weak);
  if (accept(".global")) return var_decl(Space::Global, is_extern, &mod_.vars);
  if (accept(".const")) return var_decl(Space::Const, is_extern, &mod_.vars);
  if (accept(".shared")) return var_decl(Space::Shared, is_extern, &mod_.vars);
  if (cur().k == T::End) err(t, "expected a declaration before end of file");
  err(cur(), fmt::format("unsupported directive '{}'", cur().s));
}

// `.space [.align N] .type name[N]... [= init];` (the space token is already consumed)
void Parser::var_decl(Space sp, bool is_extern, std::vector<Var>* into) {
  Var v;
  v.space = sp;
  v.line = cur().line;
  DType type = decl_type(v, false);
  if (type == DType::None) err(cur(), fmt::format("unsupported variable declaration at '{}'", cur().s));
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

// `= value` or `= {...}`: elems values of type t, zero-padded.
std::vector<uint8_t> Parser::initializer(DType t, uint32_t elems) {
  std::vector<uint8_t> out;
  unsigned sz = bits_of(t) / 8;
  initializer_item(t, out);
  if (out.size() > size_t(elems) * sz) err(cur(), fmt::format("too many initialisers ({} elements declared)", elems));
  out.resize(size_t(elems) * sz, 0);
  return out;
}

// One initialiser value, or a `{...}` list of them, appended to out as little-endian bytes.
void Parser::initializer_item(DType t, std::vector<uint8_t>& out) {
  unsigned sz = bits_of(t) / 8;
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

Var Parser::param_decl(Space sp) {
  expect(".param");
  Var v;
  v.space = sp;
  v.line = cur().line;
  DType type = decl_type(v, true);
  if (type == DType::None) err(cur(), fmt::format("expected a parameter type, got '{}'", cur().s));
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

void Parser::function(bool entry, bool visible, bool is_extern, bool weak) {
  Function f;
  f.entry = entry;
  f.visible = visible;
  f.is_extern = is_extern;
  f.weak = weak;
  f.line = cur().line;
  if (!entry && accept("(")) param_list(f.rets);
  Tok nt = cur();
  f.name = ident("function name");
  if (accept("(")) param_list(f.params);
  perf_directives(f);
  // Merge with a previous prototype of the same function.
  int prev = -1;
  for (size_t j = 0; j < mod_.funcs.size(); ++j)
    if (mod_.funcs[j].name == f.name) prev = int(j);
  if (prev >= 0 && (mod_.funcs[size_t(prev)].has_body || mod_.funcs[size_t(prev)].entry != entry))
    if (at("{") || mod_.funcs[size_t(prev)].entry != entry) err(nt, fmt::format("redefinition of '{}'", f.name));
  if (accept(";")) {
    if (prev < 0) mod_.funcs.push_back(std::move(f));
    return;
  }
  if (!at("{")) err(cur(), fmt::format("expected '{{' or ';' after function header, got '{}'", cur().s));
  if (is_extern) err(nt, "an .extern function cannot have a body");
  size_t idx;
  if (prev >= 0) {
    mod_.funcs[size_t(prev)] = std::move(f);
    idx = size_t(prev);
  } else {
    mod_.funcs.push_back(std::move(f));
    idx = mod_.funcs.size() - 1;
  }
  fn_ = &mod_.funcs[idx];
  fn_->has_body = true;
  scopes_.assign(1, {});
  labels_.clear();
  label_uses_.clear();
  for (uint32_t j = 0; j < fn_->params.size(); ++j) declare(nt, fn_->params[j].name, {Name::Param, j});
  for (uint32_t j = 0; j < fn_->rets.size(); ++j) declare(nt, fn_->rets[j].name, {Name::Ret, j});
  body();
  finish_function();
  fn_ = nullptr;
}


// `( .param ..., .param ... )` after its '(' was consumed.
void Parser::param_list(std::vector<Var>& out) {
  if (!at(")")) {
    out.push_back(param_decl(Space::Param));
    while (accept(",")) out.push_back(param_decl(Space::Param));
  }
  expect(")");
}

// Performance directives after a function header: .maxntid/.reqntid kept, occupancy hints skipped.
void Parser::perf_directives(Function& f) {
  for (;;) {
    if (at(".maxntid") || at(".reqntid")) {
      uint32_t* dst = at(".maxntid") ? f.maxntid : f.reqntid;
      next();
      dst[0] = dst[1] = dst[2] = 1;
      for (int d = 0; d < 3; ++d) {
        const Tok& n = cur();
        uint64_t v = number("thread count");
        if (v == 0 || v > 1024) err(n, fmt::format("bad thread count {}", v));
        dst[d] = uint32_t(v);
        if (!accept(",")) break;
      }
    } else if (accept(".minnctapersm") || accept(".maxnreg") || accept(".maxnctapersm")) {
      number("count");  // occupancy hints: no effect on the model
    } else if (accept(".noreturn")) {
    } else if (accept(".pragma")) {
      if (cur().k != T::Str) err(cur(), "expected a string after .pragma");
      next();
      expect(";");
    } else {
      break;
    }
  }
}

void Parser::finish_function() {
  for (auto& u : label_uses_) {
    auto it = labels_.find(u.tok.s);
    auto& in = fn_->body[u.instr];
    if (it == labels_.end()) throw ParseError(file_, u.tok.line, u.tok.col, fmt::format("unknown label '{}'", u.tok.s), in.text);
    in.refs[u.ref].index = it->second;
  }
}

void Parser::body() {
  Tok open = cur();
  expect("{");
  int depth = 1;
  scopes_.emplace_back();
  while (depth > 0) {
    stmt_ = p_;
    if (cur().k == T::End)
      throw ParseError(file_, open.line, open.col, "unterminated block: missing '}'", "");
    if (accept("{")) {
      ++depth;
      scopes_.emplace_back();
    } else if (accept("}")) {
      --depth;
      scopes_.pop_back();
    } else {
      statement();
    }
  }
}

void Parser::statement() {
  const Tok& t = cur();
  if (t.k == T::Ident && t.s[0] != '.' && t.s[0] != '%' && peek().s == ":" && peek().k == T::Punct) {
    if (labels_.count(t.s)) err(t, fmt::format("duplicate label '{}'", t.s));
    labels_[t.s] = uint32_t(fn_->body.size());
    p_ += 2;
    return;
  }
  if (accept(".reg")) return reg_decl();
  if (accept(".local") || accept(".param")) {
    Space sp = toks_[p_ - 1].s == ".local" ? Space::Local : Space::Param;
    Tok nt = peek(0);
    var_decl(sp, false, &fn_->vars);
    // find the name token for the declaration message
    auto& v = fn_->vars.back();
    declare(nt, v.name, {Name::Var, uint32_t(fn_->vars.size() - 1)});
    return;
  }
  if (accept(".shared")) {  // nvcc "demotes" __shared__ variables into the kernel body
    var_decl(Space::Shared, false, &mod_.vars);
    return;
  }
  if (accept(".pragma")) {
    if (cur().k != T::Str) err(cur(), "expected a string after .pragma");
    next();
    expect(";");
    return;
  }
  if (accept(".loc")) {  // debug line info: skip to end of line
    uint32_t l = t.line;
    while (cur().k != T::End && cur().line == l) next();
    return;
  }
  if (t.k == T::Ident && t.s[0] == '.') err(t, fmt::format("unsupported directive '{}'", t.s));
  if (t.k == T::Ident || at("@")) return instruction();
  err(t, fmt::format("unexpected '{}'", t.s));
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
