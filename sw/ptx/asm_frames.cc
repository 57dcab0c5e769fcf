// Assembler stage: local-memory frames and register/predicate slots of every function.
#include <fmt/format.h>

#include <algorithm>

#include "sw/ptx/asm_internal.h"

namespace gpuvp::ptx::detail {

// Per-function frames in local memory: parameters, return values, .local and .param variables.
void lay_out_frames(Program& p) {
  size_t nf = p.nf;
  p.var_off.assign(nf, {});
  p.param_off.assign(nf, {});
  p.ret_off.assign(nf, {});
  p.frame.assign(nf, 0);
  for (size_t f = 0; f < nf; ++f) {
    const Function& F = p.m.funcs[f];
    uint64_t o = 0;
    const std::string region = fmt::format("the local memory of '{}' per thread", F.name);
    if (!F.entry) {
      for (auto& v : F.params) p.param_off[f].push_back(place_var(p.m, v, o, region));
      for (auto& v : F.rets) p.ret_off[f].push_back(place_var(p.m, v, o, region));
    }
    for (auto& v : F.vars) p.var_off[f].push_back(place_var(p.m, v, o, region));
    p.frame[f] = uint32_t(align_up(o, 8));
  }
}

// Register slots of each function: its virtual registers, plus one scratch slot (the last) when
// it contains calls, used by the argument/return-value copies the call lowering emits.
// Slot/frame bases: kernels start at 0; every .func gets its own range above the largest kernel
// that calls anything, so callees never clobber callers and need no save/restore.
void allocate_slots(Program& p) {
  const Module& m = p.m;
  size_t nf = p.nf;
  p.nregs.assign(nf, 0);
  for (size_t f = 0; f < nf; ++f) p.nregs[f] = uint32_t(m.funcs[f].regs.size()) + (p.callees[f].empty() ? 0u : 1u);
  p.rbase.assign(nf, 0), p.pbase.assign(nf, 0), p.lbase.assign(nf, 0);
  uint32_t r0 = 0, p0 = 0, l0 = 0;
  for (size_t f = 0; f < nf; ++f)
    if (m.funcs[f].entry && !p.callees[f].empty()) {
      r0 = std::max(r0, p.nregs[f]);
      p0 = std::max(p0, uint32_t(m.funcs[f].preds.size()));
      l0 = std::max(l0, p.frame[f]);
    }
  for (size_t f = 0; f < nf; ++f)
    if (!m.funcs[f].entry && m.funcs[f].has_body) {
      p.rbase[f] = r0, p.pbase[f] = p0, p.lbase[f] = l0;
      if (uint64_t{l0} + p.frame[f] > kMaxRegion)  // the .funcs' frames sit one above the other
        fail_fn(m, m.funcs[f], fmt::format("the functions' frames pass {} bytes of local memory per thread", kMaxRegion));
      r0 += p.nregs[f];
      p0 += uint32_t(m.funcs[f].preds.size());
      l0 += p.frame[f];
    }
  for (size_t f = 0; f < nf; ++f) {
    if (p.rbase[f] + p.nregs[f] >= isa::kNoReg) fail_fn(m, m.funcs[f], "too many register slots");
    if (p.pbase[f] + m.funcs[f].preds.size() > 2048) fail_fn(m, m.funcs[f], "too many predicate slots (max 2048)");
  }
}

}  // namespace gpuvp::ptx::detail
