// Assembler stage: what a recursive function saves around its recursive calls. Register and
// predicate slots belong to a function, not to an activation: a call of a function in the caller's
// own strongly connected component may run the caller again and overwrite them. The values live
// across such a call are stored in the caller's frame on the call stack before it and loaded back
// after it (asm_lower_stack.cc); calls of other functions cannot reach the caller and save nothing.
#include "sw/ptx/asm_internal.h"

namespace gpuvp::ptx::detail {

void plan_saves(Program& p) {
  p.saves.assign(p.nf, {});
  for (size_t f = 0; f < p.nf; ++f) {
    if (!p.recursive[f]) continue;
    const Function& F = p.m.funcs[f];
    std::vector<size_t> calls;
    for (size_t k = 0; k < F.body.size(); ++k)
      if (F.body[k].inst.op == isa::Opcode::Call && p.scc[size_t(F.body[k].callee)] == p.scc[f]) calls.push_back(k);
    p.saves[f] = live_after_calls(F, calls);
  }
}

}  // namespace gpuvp::ptx::detail
