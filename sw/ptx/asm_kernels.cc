// Assembler stage: KernelInfo of every kernel with a body, in module order. The static part
// (parameters, memory sizes, slots) before lowering, which resolves kernel parameters through it;
// entry/end addresses and the register estimate once the code is laid out, and the FuncInfo of
// every .func.
#include <algorithm>

#include "sw/ptx/asm_internal.h"
#include "sw/ptx/parser_internal.h"

namespace gpuvp::ptx::detail {

namespace {

// Slot -> PTX name (KernelInfo::reg_names): slots [base, base + nregs) of function f are its
// registers in declaration order, then its call scratch slot when it calls; a .func's are prefixed
// with its name, since its %r1 is not the kernel's.
void name_slots(const Program& p, size_t f, const std::string& prefix, std::vector<std::string>& names) {
  const Function& F = p.m.funcs[f];
  if (names.size() < p.rbase[f] + p.nregs[f]) names.resize(p.rbase[f] + p.nregs[f]);
  for (size_t i = 0; i < F.regs.size(); ++i) names[p.rbase[f] + i] = prefix + F.regs[i].name;
  if (p.nregs[f] > F.regs.size()) names[p.rbase[f] + p.nregs[f] - 1] = prefix + "(call scratch)";
}

KernelInfo kernel_info(const Program& p, size_t k) {
  const Function& K = p.m.funcs[k];
  KernelInfo ki;
  ki.name = K.name;
  ki.static_shared_bytes = p.static_shared[k];
  uint64_t po = 0;
  for (auto& v : K.params) {
    po = align_up(po, v.align);
    ki.params.push_back({v.name, uint32_t(po), v.size, v.align, type_name(v.type)});
    po += v.size;
  }
  ki.param_bytes = uint32_t(po);
  // Slots and local memory: the kernel's own, or the highest a function it reaches uses.
  ki.local_bytes = p.frame[k];
  ki.num_regs = p.nregs[k];
  ki.num_preds = uint32_t(K.preds.size());
  for (size_t f : reachable(p, k)) {
    ki.local_bytes = std::max(ki.local_bytes, p.lbase[f] + p.frame[f]);
    ki.num_regs = std::max(ki.num_regs, p.rbase[f] + p.nregs[f]);
    ki.num_preds = std::max(ki.num_preds, p.pbase[f] + uint32_t(p.m.funcs[f].preds.size()));
    ki.call_stack |= p.recursive[f] != 0;
  }
  if (ki.call_stack) ki.local_bytes = std::max(ki.local_bytes, p.stack_base);
  name_slots(p, k, "", ki.reg_names);
  for (size_t f : reachable(p, k)) name_slots(p, f, p.m.funcs[f].name + ":", ki.reg_names);
  ki.reg_names.resize(ki.num_regs);
  if (p.sp < ki.num_regs) ki.reg_names[p.sp] = "(stack pointer)";
  for (int d = 0; d < 3; ++d) ki.max_ntid[d] = K.maxntid[d], ki.reqntid[d] = K.reqntid[d];
  return ki;
}

}  // namespace

void fill_kernel_infos(const Program& p, Image& img) {
  for (size_t k = 0; k < p.nf; ++k)
    if (p.m.funcs[k].entry && p.m.funcs[k].has_body) img.kernels.push_back(kernel_info(p, k));
}

void finish_kernel_infos(const Program& p, Image& img) {
  Liveness live(p.m, &p.scc);
  // Functions in code order, callees before callers: each run() finds its callees' counts memoised
  // and recurses no deeper than one call (a chain of thousands of .funcs would overflow the stack).
  for (size_t f : p.order) live.run(f);
  for (auto& ki : img.kernels) {
    size_t f = 0;
    while (p.m.funcs[f].name != ki.name) ++f;
    ki.entry = p.addr[p.first[f]];
    ki.end = p.addr[p.fend[f]];
    ki.regs_per_thread = live.run(f) + (ki.call_stack ? 2 : 0);  // + the 64-bit stack pointer
  }
  for (size_t f = 0; f < p.nf; ++f)
    if (!p.m.funcs[f].entry && p.m.funcs[f].has_body)
      img.functions.push_back({p.m.funcs[f].name, p.addr[p.first[f]], p.addr[p.fend[f]], p.recursive[f] != 0,
                               p.stack_frame[f]});
}

}  // namespace gpuvp::ptx::detail
