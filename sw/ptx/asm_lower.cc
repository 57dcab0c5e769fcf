// Assembler stage: lowering the function bodies into instruction sites, in code order. Every
// register/predicate gets its function's slot base, every symbol reference its address or offset
// (code addresses are left to asm_code.cc), and every call is lowered.
//
// A call is lowered into plain instructions around the Call (docs/isa-encoding.md, "Call
// convention"): each argument is copied from the caller's call-block .param variable to the
// callee's parameter frame, and after the Call each return value from the callee's return frame
// to the caller's variable, with ld.local/st.local through the caller's scratch register slot.
// Those extra sites carry synthetic = true and no symbol references.
#include "sw/ptx/asm_internal.h"

namespace gpuvp::ptx::detail {

using isa::Opcode;
using isa::OpKind;
using isa::Space;

namespace {

// ld.local/st.local pairs copying size bytes from local offset `from` to `to`, in the widest
// pieces both alignments allow, through f's scratch slot; guarded like the call.
void local_copy(Program& p, size_t f, const Instr& call, uint32_t from, uint32_t to, uint32_t size, size_t k) {
  uint16_t scratch = uint16_t(p.rbase[f] + p.nregs[f] - 1);
  for (uint32_t off = 0; off < size;) {
    uint32_t c = 8;
    while (c > 1 && (size - off < c || (from + off) % c || (to + off) % c)) c >>= 1;
    isa::DType t = c == 8 ? isa::DType::B64 : c == 4 ? isa::DType::B32 : c == 2 ? isa::DType::B16 : isa::DType::B8;
    isa::Inst ld, st;
    ld.op = Opcode::Ld, st.op = Opcode::St;
    ld.type = st.type = t;
    ld.mod.space = st.mod.space = Space::Local;
    ld.guard = st.guard = call.inst.guard < 0 ? int16_t(-1) : int16_t(call.inst.guard + int(p.pbase[f]));
    ld.guard_neg = st.guard_neg = call.inst.guard_neg;
    ld.line = st.line = call.line;
    ld.nops = st.nops = 2;
    ld.ops[0] = {OpKind::Reg, false, scratch, 0};
    ld.ops[1] = {OpKind::Mem, false, isa::kNoReg, int64_t(from + off)};
    st.ops[0] = {OpKind::Mem, false, isa::kNoReg, int64_t(to + off)};
    st.ops[1] = {OpKind::Reg, false, scratch, 0};
    p.sites.push_back({f, k, ld, true});
    p.sites.push_back({f, k, st, true});
    off += c;
  }
}

// The instruction with f's register and predicate slot bases applied.
isa::Inst rename_slots(const Program& p, size_t f, const Instr& in) {
  isa::Inst I = in.inst;
  I.line = in.line;
  if (I.guard >= 0) I.guard = int16_t(I.guard + int(p.pbase[f]));
  for (int o = 0; o < I.nops; ++o) {
    auto& op = I.ops[o];
    if (op.kind == OpKind::Reg || (op.kind == OpKind::Mem && op.reg != isa::kNoReg)) op.reg = uint16_t(op.reg + p.rbase[f]);
    if (op.kind == OpKind::Pred) op.reg = uint16_t(op.reg + p.pbase[f]);
  }
  return I;
}

// Value of a (non-label) reference and the space the referenced entity lives in (*vs).
uint64_t ref_value(const Program& p, const Image& img, size_t f, const Instr& in, const Ref& r, Space* vs) {
  const Function& F = p.m.funcs[f];
  switch (r.kind) {
    case RefKind::ModuleVar:
      *vs = p.m.vars[r.index].space;
      return *vs == Space::Shared ? shared_offset(p, f, r.index, in) : p.mvar[r.index];
    case RefKind::FuncVar:  // call-block .param variables live in the local frame too
      *vs = Space::Local;
      return p.lbase[f] + p.var_off[f][r.index];
    case RefKind::Param:
      if (F.entry) {
        *vs = Space::Param;
        const KernelInfo* ki = nullptr;
        for (auto& kk : img.kernels) if (kk.name == F.name) ki = &kk;
        return ki->params[r.index].offset;
      }
      *vs = Space::Local;
      return p.lbase[f] + p.param_off[f][r.index];
    case RefKind::Ret:
      *vs = Space::Local;
      return p.lbase[f] + p.ret_off[f][r.index];
    case RefKind::Label:
      break;
  }
  return 0;
}

// Adds every symbol reference's value to its operand's immediate; a memory access to a
// parameter that lives in local memory becomes .local, generic accesses get the window base.
void resolve_refs(const Program& p, const Image& img, size_t f, const Instr& in, isa::Inst& I) {
  for (auto& r : in.refs) {
    if (r.kind == RefKind::Label) continue;  // code addresses: asm_code.cc
    auto& op = I.ops[r.op];
    bool is_mem = op.kind == OpKind::Mem;
    Space vs = Space::Param;
    uint64_t val = ref_value(p, img, f, in, r, &vs);
    if (is_mem) {
      if (I.mod.space == Space::Param && vs == Space::Local) I.mod.space = Space::Local;
      if (I.mod.space == Space::Generic && vs == Space::Shared) val += isa::kSharedWindowBase;
      if (I.mod.space == Space::Generic && vs == Space::Local) val += isa::kLocalWindowBase;
    }
    op.imm += int64_t(val);
  }
}

// Argument copies, the Call (target only: the SM needs no call-site table), result copies.
void lower_call(Program& p, size_t f, size_t k, isa::Inst I) {
  const Function& F = p.m.funcs[f];
  const Instr& in = F.body[k];
  size_t c = size_t(in.callee);
  for (size_t j = 0; j < in.call_args.size(); ++j)
    local_copy(p, f, in, p.lbase[f] + p.var_off[f][in.call_args[j]], p.lbase[c] + p.param_off[c][j],
               F.vars[in.call_args[j]].size, k);
  I.nops = 1;
  I.ops[1] = isa::Operand{};
  p.sites.push_back({f, k, I, false});
  for (size_t j = 0; j < in.call_rets.size(); ++j)
    local_copy(p, f, in, p.lbase[c] + p.ret_off[c][j], p.lbase[f] + p.var_off[f][in.call_rets[j]],
               F.vars[in.call_rets[j]].size, k);
}

// vprintf (docs/isa-encoding.md, "Device printf"): the SM reads the format and argument pointers
// from the caller's call-block variables and writes the result to its result variable, so the
// instruction names their local offsets and needs no copies.
void lower_vprintf(Program& p, size_t f, size_t k, isa::Inst I) {
  const Instr& in = p.m.funcs[f].body[k];
  auto local = [&](uint32_t var) { return isa::Operand{OpKind::Mem, false, isa::kNoReg, int64_t(p.lbase[f] + p.var_off[f][var])}; };
  I.nops = 3;
  I.mod.space = Space::Local;
  I.mod.flags = 0;
  I.ops[0] = in.call_rets.empty() ? isa::Operand{} : local(in.call_rets[0]);
  I.ops[1] = local(in.call_args[0]);
  I.ops[2] = local(in.call_args[1]);
  p.sites.push_back({f, k, I, false});
}

}  // namespace

void lower_functions(Program& p, const Image& img) {
  p.first.assign(p.nf, 0), p.fend.assign(p.nf, 0);
  p.site_of.assign(p.nf, {});
  for (size_t f : p.order) {
    const Function& F = p.m.funcs[f];
    p.first[f] = p.sites.size();
    p.site_of[f].assign(F.body.size() + 1, p.sites.size());
    if (!F.has_body) { p.fend[f] = p.sites.size(); continue; }
    for (size_t k = 0; k < F.body.size(); ++k) {
      const Instr& in = F.body[k];
      p.site_of[f][k] = p.sites.size();
      isa::Inst I = rename_slots(p, f, in);
      resolve_refs(p, img, f, in, I);
      if (I.op == Opcode::Call) lower_call(p, f, k, I);
      else if (I.op == Opcode::Vprintf) lower_vprintf(p, f, k, I);
      else p.sites.push_back({f, k, I, false});
    }
    p.site_of[f][F.body.size()] = p.fend[f] = p.sites.size();
  }
}

}  // namespace gpuvp::ptx::detail
