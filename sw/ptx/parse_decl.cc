// PTX directives and declarations: module directives, .entry/.func headers (parameters,
// performance directives, prototypes), function bodies and their statements, labels.
// Variables, parameters and registers themselves are read in parse_var.cc.
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
  if (accept(".section")) return debug_section();
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

// `.section .debug_NAME { .b8 ...; .b32 label ... }`: the DWARF data nvcc -G and -lineinfo emit.
// The platform keeps no debug information, so the block is read over (to its closing brace).
void Parser::debug_section() {
  const Tok& name = cur();
  if (name.k != T::Ident || name.s.rfind(".debug", 0) != 0)
    err(name, fmt::format("unsupported section '{}' (only .debug_* sections are read over)", name.s));
  next();
  expect("{");
  while (!at("}")) {
    if (cur().k == T::End) err(name, fmt::format("section {} has no closing '}}'", name.s));
    next();
  }
  next();
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

}  // namespace gpuvp::ptx::detail
