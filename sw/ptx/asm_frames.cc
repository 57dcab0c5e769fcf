// Assembler stage: local-memory frames and register/predicate slots of every function.
#include <fmt/format.h>

#include <algorithm>

#include "sw/ptx/asm_internal.h"

namespace gpuvp::ptx::detail {

namespace {

// Alignment of every frame on the call stack (and of its base): the largest any variable of a
// recursive function asks for, at least 8 (saved 64-bit slots, the return address).
uint32_t stack_alignment(const Program& p) {
  uint32_t a = 8;
  for (size_t f = 0; f < p.nf; ++f)
    if (p.recursive[f])
      for (const auto* vs : {&p.m.funcs[f].params, &p.m.funcs[f].rets, &p.m.funcs[f].vars})
        for (const Var& v : *vs) a = std::max(a, v.align);
  return a;
}

// The rest of recursive function f's frame on the call stack, after its variables (`o` bytes):
// the save slots of the registers and predicates its recursive calls save, the return address.
uint64_t lay_out_saves(Program& p, size_t f, uint64_t o) {
  const Function& F = p.m.funcs[f];
  p.reg_save[f].assign(F.regs.size(), -1);
  p.pred_save[f].assign(F.preds.size(), -1);
  o = align_up(o, 8);
  for (auto& [k, s] : p.saves[f])
    for (uint32_t r : s.regs)
      if (p.reg_save[f][r] < 0) p.reg_save[f][r] = int64_t(o), o += 8;
  for (auto& [k, s] : p.saves[f])
    for (uint32_t q : s.preds)
      if (p.pred_save[f][q] < 0) p.pred_save[f][q] = int64_t(o), o += 1;
  return align_up(o, 8) + 8;
}

}  // namespace

// Per-function frames in local memory: parameters, return values, .local and .param variables.
// A recursive function's frame is on the call stack, one per activation, with its save slots and
// return address; its static frame keeps only the parameters and return values, through which
// its callers pass them (the prologue and epilogue copy them to and from the activation's frame).
void lay_out_frames(Program& p) {
  size_t nf = p.nf;
  p.var_off.assign(nf, {});
  p.param_off.assign(nf, {});
  p.ret_off.assign(nf, {});
  p.frame.assign(nf, 0);
  p.stack_frame.assign(nf, 0);
  p.reg_save.assign(nf, {});
  p.pred_save.assign(nf, {});
  const uint32_t align = stack_alignment(p);
  for (size_t f = 0; f < nf; ++f) {
    const Function& F = p.m.funcs[f];
    uint64_t o = 0;
    const std::string region = fmt::format("the local memory of '{}' per thread", F.name);
    if (!F.entry) {
      for (auto& v : F.params) p.param_off[f].push_back(place_var(p.m, v, o, region));
      for (auto& v : F.rets) p.ret_off[f].push_back(place_var(p.m, v, o, region));
    }
    if (p.recursive[f]) p.frame[f] = uint32_t(align_up(o, 8));
    for (auto& v : F.vars) p.var_off[f].push_back(place_var(p.m, v, o, region));
    if (!p.recursive[f]) {
      p.frame[f] = uint32_t(align_up(o, 8));
      continue;
    }
    o = align_up(lay_out_saves(p, f, o), align);
    if (o > kMaxRegion) fail_fn(p.m, F, fmt::format("{}-byte frame on the call stack, beyond {}", o, kMaxRegion));
    p.stack_frame[f] = uint32_t(o);
  }
}

// Register slots of each function: its virtual registers, plus one scratch slot (the last) when
// it contains calls, used by the argument/return-value copies the call lowering emits.
// Slot/frame bases: kernels start at 0; every .func gets its own range above the largest kernel
// that calls anything, so callees never clobber callers (but on a call cycle: asm_saves.cc). In a
// module with recursion the stack pointer slot comes first, and the call stack after the frames.
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
  const bool recursion = std::find(p.recursive.begin(), p.recursive.end(), 1) != p.recursive.end();
  if (recursion) p.sp = uint16_t(std::min<uint32_t>(r0++, isa::kNoReg));
  for (size_t f = 0; f < nf; ++f)
    if (!m.funcs[f].entry && m.funcs[f].has_body) {
      p.rbase[f] = r0, p.pbase[f] = p0, p.lbase[f] = l0;
      if (uint64_t{l0} + p.frame[f] > kMaxRegion)  // the .funcs' frames sit one above the other
        fail_fn(m, m.funcs[f], fmt::format("the functions' frames pass {} bytes of local memory per thread", kMaxRegion));
      r0 += p.nregs[f];
      p0 += uint32_t(m.funcs[f].preds.size());
      l0 += p.frame[f];
    }
  if (recursion) p.stack_base = uint32_t(std::min(align_up(l0, stack_alignment(p)), kMaxRegion));
  for (size_t f = 0; f < nf; ++f) {
    if (p.rbase[f] + p.nregs[f] >= isa::kNoReg) fail_fn(m, m.funcs[f], "too many register slots");
    if (p.pbase[f] + m.funcs[f].preds.size() > 2048) fail_fn(m, m.funcs[f], "too many predicate slots (max 2048)");
  }
}

}  // namespace gpuvp::ptx::detail
