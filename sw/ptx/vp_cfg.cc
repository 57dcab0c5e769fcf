// Basic blocks (split at label targets and after control instructions), successors and loops.
#include "sw/ptx/vp_cfg.h"

namespace gpuvp::ptx::vp {

using isa::Opcode;

namespace {

// Where a control instruction at k goes: its branch target, and the next instruction when it may
// fall through (guarded, or not a branch, return, exit or trap).
std::vector<size_t> successors(const Instr& in, size_t k) {
  std::vector<size_t> s;
  const isa::Inst& I = in.inst;
  if (I.op == Opcode::Bra)
    for (const Ref& r : in.refs)
      if (r.kind == RefKind::Label) s.push_back(r.index);
  const bool ends = I.op == Opcode::Bra || I.op == Opcode::Ret || I.op == Opcode::Exit || I.op == Opcode::Trap;
  if (!ends || I.guard >= 0) s.push_back(k + 1);
  return s;
}

void split_blocks(const Function& f, const std::vector<Access>& acc, Cfg& g) {
  const size_t n = f.body.size();
  std::vector<char> starts(n + 1, 0);
  starts[0] = 1;
  for (size_t k = 0; k < n; ++k) {
    for (size_t t : g.succ[k])
      if (t != k + 1 && t <= n) starts[t] = 1;
    if (acc[k].control) starts[k + 1] = 1;
  }
  g.block_of.assign(n, 0);
  for (size_t k = 0; k < n; ++k) {
    if (starts[k]) g.block_begin.push_back(k);
    g.block_of[k] = g.block_begin.size() - 1;
  }
}

void find_loops(Cfg& g) {
  const size_t n = g.succ.size();
  for (size_t k = 0; k < n; ++k)
    for (size_t t : g.succ[k])
      if (t <= k) g.loops.push_back({t, k});
  g.depth.assign(n, 0);
  for (const Loop& l : g.loops)
    for (size_t k = l.head; k <= l.tail; ++k) ++g.depth[k];
}

}  // namespace

Cfg analyse(const Function& f, const std::vector<Access>& acc) {
  Cfg g;
  g.succ.resize(f.body.size());
  for (size_t k = 0; k < f.body.size(); ++k) g.succ[k] = successors(f.body[k], k);
  split_blocks(f, acc, g);
  find_loops(g);
  return g;
}

}  // namespace gpuvp::ptx::vp
