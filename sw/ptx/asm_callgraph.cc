// Assembler stage: the call graph. Recursion is refused (frames and register slots are static);
// code is ordered callees first.
#include <fmt/format.h>

#include <functional>

#include "sw/ptx/asm_internal.h"

namespace gpuvp::ptx::detail {

using isa::Opcode;

void build_call_graph(Program& p) {
  const Module& m = p.m;
  size_t nf = p.nf;
  p.callees.assign(nf, {});
  for (size_t f = 0; f < nf; ++f)
    for (auto& in : m.funcs[f].body)
      if (in.inst.op == Opcode::Call) p.callees[f].insert(size_t(in.callee));
  std::vector<int> state(nf, 0);
  std::function<void(size_t)> dfs = [&](size_t f) {
    state[f] = 1;
    for (auto& in : m.funcs[f].body) {
      if (in.inst.op != Opcode::Call) continue;
      size_t c = size_t(in.callee);
      if (state[c] == 1) fail(m, in, fmt::format("recursive call of '{}' is not supported", m.funcs[c].name));
      if (state[c] == 0) dfs(c);
    }
    state[f] = 2;
  };
  for (size_t f = 0; f < nf; ++f)
    if (state[f] == 0 && m.funcs[f].has_body) dfs(f);
}

// Functions reachable through calls from k (k itself only if it calls itself back, never here).
std::set<size_t> reachable(const Program& p, size_t k) {
  std::set<size_t> r;
  std::vector<size_t> work{k};
  while (!work.empty()) {
    size_t f = work.back();
    work.pop_back();
    for (size_t c : p.callees[f])
      if (r.insert(c).second) work.push_back(c);
  }
  return r;
}

// Code order: every .func with a body before the kernels, callees before their callers
// (post-order of the call graph), then the kernels in module order. A callee then always sits
// at lower addresses than its call sites, so the SM's thread-frontier rule (lowest PC first) runs
// lanes inside a call before lanes that skipped it, and they reconverge after the call.
void order_code(Program& p) {
  const Module& m = p.m;
  std::vector<char> placed(p.nf, 0);
  std::function<void(size_t)> post = [&](size_t f) {
    if (placed[f]) return;
    placed[f] = 1;
    for (auto& in : m.funcs[f].body)
      if (in.inst.op == Opcode::Call) post(size_t(in.callee));
    if (!m.funcs[f].entry) p.order.push_back(f);
  };
  for (size_t f = 0; f < p.nf; ++f)
    if (!m.funcs[f].entry) post(f);
  for (size_t f = 0; f < p.nf; ++f)
    if (m.funcs[f].entry) p.order.push_back(f);
}

}  // namespace gpuvp::ptx::detail
