// Assembler stage: local-memory frames and register/predicate slots of every function.
#include <fmt/format.h>

#include <algorithm>

#include "sw/ptx/asm_internal.h"

namespace gpuvp::ptx::detail {

namespace {

// Local bytes per thread that the frames (each, and all .funcs' together) may take: KernelInfo and
// the configuration block hold 32 bits, and no SM has more (the launch checks the SM's own limit).
constexpr uint64_t kMaxFrame = uint64_t{1} << 31;

// The offset of `v` in F's frame of `o` bytes so far (64-bit: 4 x 1 GiB must not wrap to a small
// frame); refused, naming the variable, when the frame would pass kMaxFrame.
uint32_t place(const Module& m, const Function& F, const Var& v, uint64_t& o) {
  o = align_up(o, v.align);
  const uint64_t at = o;
  o += v.size;
  if (o > kMaxFrame)
    throw ParseError(m.source_name, v.line, 1,
                     fmt::format("'{}' takes the local memory of '{}' to {} bytes per thread, beyond {}", v.name,
                                 F.name, o, kMaxFrame),
                     v.name);
  return uint32_t(at);
}

}  // namespace

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
    if (!F.entry) {
      for (auto& v : F.params) p.param_off[f].push_back(place(p.m, F, v, o));
      for (auto& v : F.rets) p.ret_off[f].push_back(place(p.m, F, v, o));
    }
    for (auto& v : F.vars) p.var_off[f].push_back(place(p.m, F, v, o));
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
      if (uint64_t{l0} + p.frame[f] > kMaxFrame)  // the .funcs' frames sit one above the other
        fail_fn(m, m.funcs[f], fmt::format("the functions' frames pass {} bytes of local memory per thread", kMaxFrame));
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
