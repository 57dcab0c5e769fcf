// PTX parser driver: module-level loop, name scopes, and resolution of calls once every function
// is known. The stages it runs are listed in parser_internal.h.
#include "sw/ptx/parser.h"

#include "sw/ptx/parser_internal.h"

namespace gpuvp::ptx {

ParseError::ParseError(std::string f, uint32_t l, uint32_t c, std::string m, std::string t)
    : std::runtime_error(t.empty() ? fmt::format("{}:{}:{}: {}", f, l, c, m)
                                   : fmt::format("{}:{}:{}: {}: {}", f, l, c, m, t)),
      file(std::move(f)), line(l), column(c), message(std::move(m)), text(std::move(t)) {}

namespace detail {

Name* Parser::lookup(const std::string& n) {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->find(n);
    if (f != it->end()) return &f->second;
  }
  return nullptr;
}

int Parser::module_var(const std::string& n) const {
  for (size_t j = 0; j < mod_.vars.size(); ++j)
    if (mod_.vars[j].name == n) return int(j);
  return -1;
}

void Parser::declare(const Tok& t, const std::string& n, Name nm) {
  if (scopes_.back().count(n)) err(t, fmt::format("redeclaration of '{}'", n));
  scopes_.back()[n] = nm;
}

Module Parser::run() {
  while (cur().k != T::End) {
    stmt_ = p_;
    module_directive();
  }
  for (auto& cu : call_uses_) resolve_call(cu);
  return std::move(mod_);
}

// A call names its callee before the callee may be declared: checked once the module is read.
void Parser::resolve_call(const CallUse& cu) {
  auto& in = mod_.funcs[cu.fn].body[cu.instr];
  const std::string& name = cu.tok.s;
  int callee = -1;
  for (size_t j = 0; j < mod_.funcs.size(); ++j)
    if (mod_.funcs[j].name == name) callee = int(j);
  stmt_ = 0;
  auto fail = [&](const std::string& m) { throw ParseError(file_, cu.tok.line, cu.tok.col, m, in.text); };
  if (callee < 0) fail(fmt::format("unknown function '{}'", name));
  auto& f = mod_.funcs[size_t(callee)];
  if (f.entry) fail(fmt::format("call of kernel '{}'", name));
  if (!f.has_body && name == "vprintf") return resolve_vprintf(cu, callee);
  if (!f.has_body && name == "__assertfail")
    fail("device-side assert() (a call of '__assertfail') is not supported: build with -DNDEBUG to leave it out");
  if (!f.has_body) fail(fmt::format("function '{}' has no body in this module (no linking)", name));
  if (f.params.size() != in.call_args.size() || f.rets.size() != in.call_rets.size())
    fail(fmt::format("call of '{}' with {} arguments and {} results, it has {} and {}", name,
                     in.call_args.size(), in.call_rets.size(), f.params.size(), f.rets.size()));
  auto& caller = mod_.funcs[cu.fn];
  for (size_t j = 0; j < f.params.size(); ++j)
    if (caller.vars[in.call_args[j]].size != f.params[j].size) fail(fmt::format("argument {} size mismatch", j));
  for (size_t j = 0; j < f.rets.size(); ++j)
    if (caller.vars[in.call_rets[j]].size != f.rets[j].size) fail(fmt::format("result {} size mismatch", j));
  in.callee = callee;
}

// Device printf: CUDA's extern `vprintf(const char* format, void* args)` (a b32 result, two b64
// parameters) is not linked but executed as one instruction, Vprintf, whose operands the assembler
// fills with the call-block variables' local offsets (asm_lower.cc).
void Parser::resolve_vprintf(const CallUse& cu, int callee) {
  auto& in = mod_.funcs[cu.fn].body[cu.instr];
  auto& f = mod_.funcs[size_t(callee)];
  auto& caller = mod_.funcs[cu.fn];
  auto fail = [&](const std::string& m) { throw ParseError(file_, cu.tok.line, cu.tok.col, m, in.text); };
  auto sized = [](const Var& v, uint64_t n) { return v.size == n; };
  if (f.params.size() != 2 || !sized(f.params[0], 8) || !sized(f.params[1], 8) || f.rets.size() > 1 ||
      (f.rets.size() == 1 && !sized(f.rets[0], 4)))
    fail("vprintf must be declared as CUDA does: (.param .b32 ret) vprintf (.param .b64 format, .param .b64 args)");
  if (in.call_args.size() != 2 || in.call_rets.size() > 1)
    fail(fmt::format("call of 'vprintf' with {} arguments and {} results, it has 2 and at most 1",
                     in.call_args.size(), in.call_rets.size()));
  for (size_t j = 0; j < 2; ++j)
    if (caller.vars[in.call_args[j]].size != 8) fail(fmt::format("argument {} size mismatch", j));
  if (!in.call_rets.empty() && caller.vars[in.call_rets[0]].size != 4) fail("result 0 size mismatch");
  in.callee = callee;
  in.inst.op = isa::Opcode::Vprintf;
}

}  // namespace detail

Module parse(const std::string& text, const std::string& source_name) {
  detail::Parser p(text, source_name);
  return p.run();
}

}  // namespace gpuvp::ptx
