// Assembler stage: the call graph. Recursion is refused (frames and register slots are static);
// code is ordered callees first.
#include <fmt/format.h>

#include <vector>

#include "sw/ptx/asm_internal.h"

namespace gpuvp::ptx::detail {

using isa::Opcode;

namespace {

// Depth-first walk of the calls below `root` with an explicit stack (a chain of thousands of
// functions must not overflow the host's): on_call(instr, callee) says whether to descend into the
// callee; on_leave(f) runs once all of f's calls are walked.
template <class OnCall, class OnLeave>
void walk_calls(const Module& m, size_t root, OnCall on_call, OnLeave on_leave) {
  struct Frame {
    size_t f, next;
  };
  std::vector<Frame> stack{{root, 0}};
  while (!stack.empty()) {
    const size_t f = stack.back().f;
    const auto& body = m.funcs[f].body;
    if (stack.back().next == body.size()) {
      stack.pop_back();
      on_leave(f);
      continue;
    }
    const Instr& in = body[stack.back().next++];
    if (in.inst.op == Opcode::Call && on_call(in, size_t(in.callee))) stack.push_back({size_t(in.callee), 0});
  }
}

}  // namespace

void build_call_graph(Program& p) {
  const Module& m = p.m;
  size_t nf = p.nf;
  p.callees.assign(nf, {});
  for (size_t f = 0; f < nf; ++f)
    for (auto& in : m.funcs[f].body)
      if (in.inst.op == Opcode::Call) p.callees[f].insert(size_t(in.callee));
  std::vector<int> state(nf, 0);  // 1: on the current call path, 2: done
  for (size_t f = 0; f < nf; ++f) {
    if (state[f] != 0 || !m.funcs[f].has_body) continue;
    state[f] = 1;
    walk_calls(
        m, f,
        [&](const Instr& in, size_t c) {
          if (state[c] == 1) fail(m, in, fmt::format("recursive call of '{}' is not supported", m.funcs[c].name));
          if (state[c] != 0) return false;
          state[c] = 1;
          return true;
        },
        [&](size_t g) { state[g] = 2; });
  }
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
  auto leave = [&](size_t f) {
    if (!m.funcs[f].entry) p.order.push_back(f);
  };
  for (size_t f = 0; f < p.nf; ++f) {
    if (m.funcs[f].entry || placed[f]) continue;
    placed[f] = 1;
    walk_calls(
        m, f,
        [&](const Instr&, size_t c) {
          if (placed[c]) return false;
          placed[c] = 1;
          return true;
        },
        leave);
  }
  for (size_t f = 0; f < p.nf; ++f)
    if (m.funcs[f].entry) p.order.push_back(f);
}

}  // namespace gpuvp::ptx::detail
