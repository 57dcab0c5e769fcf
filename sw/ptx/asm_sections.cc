// Assembler stage: data sections. .global and .const variables get absolute addresses (and the
// image their contents); .shared variables get offsets in each kernel's shared memory.
#include <fmt/format.h>

#include <algorithm>

#include "sw/ptx/asm_internal.h"

namespace gpuvp::ptx::detail {

using isa::Space;

namespace {

// A variable that would end at `end` bytes of a section that may hold `capacity`: refused, naming it.
void check_fits(const Module& m, const Var& V, uint64_t end, uint64_t capacity, const char* memory) {
  if (end > capacity)
    throw ParseError(m.source_name, V.line, 1,
                     fmt::format("variable '{}' ({} bytes) does not fit: the module's {} variables need {} bytes, "
                                 "{} memory has room for {}",
                                 V.name, V.size, memory, end, memory, capacity),
                     V.name);
}

}  // namespace

// Module variables: .global and .const packed in declaration order.
void lay_out_module_vars(Program& p, Image& img) {
  const Module& m = p.m;
  p.mvar.assign(m.vars.size(), 0);
  uint64_t g = 0, cst = 0;
  for (size_t v = 0; v < m.vars.size(); ++v) {
    const Var& V = m.vars[v];
    if (V.space == Space::Global) {
      g = align_up(g, V.align);
      check_fits(m, V, g + V.size, p.layout.global_capacity, "global");
      p.mvar[v] = p.layout.global_base + g;
      img.globals.push_back({V.name, p.mvar[v], V.size, V.init});
      g += V.size;
    } else if (V.space == Space::Const) {
      cst = align_up(cst, V.align);
      check_fits(m, V, cst + V.size, p.layout.const_capacity, "constant");
      p.mvar[v] = p.layout.const_base + cst;
      img.consts.push_back({V.name, p.mvar[v], V.size, V.init});
      img.const_data.resize(size_t(cst), 0);
      std::vector<uint8_t> bytes = V.init;
      bytes.resize(V.size, 0);
      img.const_data.insert(img.const_data.end(), bytes.begin(), bytes.end());
      cst += V.size;
    }
  }
  img.global_bytes = g;
}

namespace {

// Variables used by a .func get module-wide offsets (region 0, shared code).
void lay_out_region0(Program& p) {
  const Module& m = p.m;
  p.shared_uses.assign(p.nf, {});
  for (size_t f = 0; f < p.nf; ++f)
    for (auto& in : m.funcs[f].body)
      for (auto& r : in.refs)
        if (r.kind == RefKind::ModuleVar && m.vars[r.index].space == Space::Shared) p.shared_uses[f].insert(r.index);
  p.region0.assign(m.vars.size(), -1);
  for (size_t v = 0; v < m.vars.size(); ++v) {
    bool in_func = false;
    for (size_t f = 0; f < p.nf; ++f)
      if (!m.funcs[f].entry && p.shared_uses[f].count(v)) in_func = true;
    if (!in_func) continue;
    if (m.vars[v].dynamic) { p.dyn_in_func = true; continue; }
    p.region0_end = align_up(p.region0_end, m.vars[v].align);
    p.region0[v] = int64_t(p.region0_end);
    p.region0_end += m.vars[v].size;
  }
}

// Kernel k: region 0 (when it reaches a .func that needs it), then the variables only it uses,
// then dynamic shared memory (16-byte aligned, or more when declared so).
void lay_out_kernel_shared(Program& p, size_t k) {
  const Module& m = p.m;
  const Function& K = m.funcs[k];
  std::set<size_t> used = p.shared_uses[k];
  for (size_t f : reachable(p, k)) used.insert(p.shared_uses[f].begin(), p.shared_uses[f].end());
  bool need_r0 = false;
  for (size_t v : used) if (p.region0[v] >= 0) need_r0 = true;
  uint64_t o = need_r0 ? p.region0_end : 0;
  auto& ks = p.kshared[k];
  ks.assign(m.vars.size(), -1);
  uint32_t dyn_align = 16;
  for (size_t v = 0; v < m.vars.size(); ++v) {
    if (!used.count(v)) continue;
    if (p.region0[v] >= 0) { ks[v] = p.region0[v]; continue; }
    if (m.vars[v].dynamic) { dyn_align = std::max(dyn_align, m.vars[v].align); continue; }
    ks[v] = place_var(m, m.vars[v], o, fmt::format("the shared memory of '{}'", K.name));
  }
  bool has_dyn = false;
  for (size_t v : used) if (m.vars[v].dynamic) has_dyn = true;
  if (has_dyn && dyn_align > 16) o = align_up(o, dyn_align);
  uint64_t dyn = align_up(o, 16);
  for (size_t v : used)
    if (m.vars[v].dynamic) ks[v] = int64_t(dyn);
  if (p.dyn_in_func && has_dyn) {
    if (p.func_dyn >= 0 && p.func_dyn != int64_t(dyn))
      fail_fn(m, K, "dynamic shared memory used in a .func called from kernels with different static shared sizes");
    p.func_dyn = int64_t(dyn);
  }
  if (o > kMaxRegion)  // region 0 (.funcs' variables) alone can pass it
    fail_fn(m, K, fmt::format("{} bytes of static shared memory, beyond {}", o, kMaxRegion));
  p.static_shared[k] = uint32_t(o);
}

}  // namespace

// Shared memory. Variables used by a .func get module-wide offsets (region 0, shared code);
// those used only by one kernel body are laid out per kernel after it when needed.
void lay_out_shared(Program& p) {
  lay_out_region0(p);
  p.kshared.assign(p.nf, {});
  p.static_shared.assign(p.nf, 0);
  for (size_t k = 0; k < p.nf; ++k)
    if (p.m.funcs[k].entry && p.m.funcs[k].has_body) lay_out_kernel_shared(p, k);
}

// Offset of .shared variable v as function f addresses it (in for messages).
uint64_t shared_offset(const Program& p, size_t f, size_t v, const Instr& in) {
  const Module& m = p.m;
  if (m.funcs[f].entry) return uint64_t(p.kshared[f][v]);
  if (m.vars[v].dynamic) {
    if (p.func_dyn < 0) fail(m, in, "dynamic shared memory in a function no kernel calls");
    return uint64_t(p.func_dyn);
  }
  return uint64_t(p.region0[v]);
}

}  // namespace gpuvp::ptx::detail
