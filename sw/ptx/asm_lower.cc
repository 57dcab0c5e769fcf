// Assembler stage: lowering the function bodies into instruction sites, in code order. Every
// register/predicate gets its function's slot base, every symbol reference its address or offset
// (code addresses are left to asm_code.cc), and every call is lowered.
//
// A call is lowered into plain instructions around the Call (docs/isa-encoding.md, "Call
// convention"): each argument is copied from the caller's call-block .param variable to the
// callee's parameter frame, and after the Call each return value from the callee's return frame
// to the caller's variable, with ld.local/st.local through the caller's scratch register slot.
// Those extra sites carry synthetic = true and no symbol references. A recursive function's
// frame is on the call stack (asm_lower_stack.cc): its variables are addressed through the stack
// pointer register.
#include "sw/ptx/asm_internal.h"

namespace gpuvp::ptx::detail {

using isa::Opcode;
using isa::OpKind;
using isa::Space;

Loc frame_loc(const Program& p, size_t f, uint32_t off) {
  if (p.recursive[f]) return {p.sp, int64_t(p.stack_base) - int64_t(p.stack_frame[f]) + off};
  return {isa::kNoReg, int64_t(p.lbase[f]) + off};
}

void push_synthetic(Program& p, size_t f, size_t k, isa::Inst I, const Instr& at, bool guarded) {
  I.line = at.line;
  if (guarded && at.inst.guard >= 0) {
    I.guard = int16_t(at.inst.guard + int(p.pbase[f]));
    I.guard_neg = at.inst.guard_neg;
  }
  p.sites.push_back({f, k, I, true});
}

isa::Inst local_access(bool load, isa::DType t, uint16_t reg, Loc at) {
  isa::Inst I;
  I.op = load ? Opcode::Ld : Opcode::St;
  I.type = t;
  I.mod.space = Space::Local;
  I.nops = 2;
  const isa::Operand r{OpKind::Reg, false, reg, 0}, m{OpKind::Mem, false, at.reg, at.off};
  I.ops[0] = load ? r : m;
  I.ops[1] = load ? m : r;
  return I;
}

// In the widest pieces both alignments allow (a stack pointer is a multiple of 8).
void local_copy(Program& p, size_t f, const Instr& call, Loc from, Loc to, uint32_t size, size_t k) {
  uint16_t scratch = uint16_t(p.rbase[f] + p.nregs[f] - 1);
  for (uint32_t off = 0; off < size;) {
    uint32_t c = 8;
    while (c > 1 && (size - off < c || uint64_t(from.off + off) % c || uint64_t(to.off + off) % c)) c >>= 1;
    isa::DType t = c == 8 ? isa::DType::B64 : c == 4 ? isa::DType::B32 : c == 2 ? isa::DType::B16 : isa::DType::B8;
    push_synthetic(p, f, k, local_access(true, t, scratch, {from.reg, from.off + off}), call, true);
    push_synthetic(p, f, k, local_access(false, t, scratch, {to.reg, to.off + off}), call, true);
    off += c;
  }
}

namespace {

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

// Value of a (non-label) reference, the space the referenced entity lives in (*vs) and the
// register it is relative to (*base: kNoReg, or the stack pointer in a recursive function's frame).
uint64_t ref_value(const Program& p, const Image& img, size_t f, const Instr& in, const Ref& r, Space* vs,
                   uint16_t* base) {
  const Function& F = p.m.funcs[f];
  *base = isa::kNoReg;
  auto frame = [&](uint32_t off) {
    *vs = Space::Local;
    const Loc l = frame_loc(p, f, off);
    *base = l.reg;
    return uint64_t(l.off);
  };
  switch (r.kind) {
    case RefKind::ModuleVar:
      *vs = p.m.vars[r.index].space;
      return *vs == Space::Shared ? shared_offset(p, f, r.index, in) : p.mvar[r.index];
    case RefKind::FuncVar:  // call-block .param variables live in the local frame too
      return frame(p.var_off[f][r.index]);
    case RefKind::Param:
      if (F.entry) {
        *vs = Space::Param;
        const KernelInfo* ki = nullptr;
        for (auto& kk : img.kernels) if (kk.name == F.name) ki = &kk;
        return ki->params[r.index].offset;
      }
      return frame(p.param_off[f][r.index]);
    case RefKind::Ret:
      return frame(p.ret_off[f][r.index]);
    case RefKind::Label:
      break;
  }
  return 0;
}

// `mov d, var` of a variable in a recursive function's frame: d = stack pointer + offset.
void frame_address(isa::Inst& I, uint16_t base) {
  I.op = Opcode::Add;
  I.type = isa::bits_of(I.type) == 64 ? isa::DType::U64 : isa::DType::U32;
  I.nops = 3;
  I.ops[2] = I.ops[1];
  I.ops[1] = {OpKind::Reg, false, base, 0};
}

// Adds every symbol reference's value to its operand's immediate; a memory access to a
// parameter that lives in local memory becomes .local, generic accesses get the window base.
void resolve_refs(const Program& p, const Image& img, size_t f, const Instr& in, isa::Inst& I) {
  for (auto& r : in.refs) {
    if (r.kind == RefKind::Label) continue;  // code addresses: asm_code.cc
    auto& op = I.ops[r.op];
    bool is_mem = op.kind == OpKind::Mem;
    Space vs = Space::Param;
    uint16_t base;
    uint64_t val = ref_value(p, img, f, in, r, &vs, &base);
    if (is_mem) {
      if (I.mod.space == Space::Param && vs == Space::Local) I.mod.space = Space::Local;
      if (I.mod.space == Space::Generic && vs == Space::Shared) val += isa::kSharedWindowBase;
      if (I.mod.space == Space::Generic && vs == Space::Local) val += isa::kLocalWindowBase;
    }
    op.imm += int64_t(val);
    if (base == isa::kNoReg) continue;
    if (is_mem) op.reg = base;  // the parser allows a symbol or a register, never both
    else frame_address(I, base);
  }
}

// Argument copies to the callee's parameter frame, the Call (target only: the SM needs no call-site
// table), result copies. A recursive callee's frame is on the call stack: the Call also names where
// it ends, and the caller saves what the callee may overwrite around it (asm_saves.cc).
void lower_call(Program& p, size_t f, size_t k, isa::Inst I) {
  const Function& F = p.m.funcs[f];
  const Instr& in = F.body[k];
  size_t c = size_t(in.callee);
  auto var = [&](size_t j) { return frame_loc(p, f, p.var_off[f][j]); };
  auto callee = [&](uint32_t off) { return Loc{isa::kNoReg, int64_t(p.lbase[c] + off)}; };
  lower_saves(p, f, k, false);
  for (size_t j = 0; j < in.call_args.size(); ++j)
    local_copy(p, f, in, var(in.call_args[j]), callee(p.param_off[c][j]), F.vars[in.call_args[j]].size, k);
  I.nops = 1;
  I.ops[1] = isa::Operand{};
  if (p.recursive[c]) {
    I.nops = 2;
    I.mod.space = Space::Local;
    I.ops[1] = frame_end(p, c);
  }
  p.sites.push_back({f, k, I, false});
  lower_saves(p, f, k, true);
  for (size_t j = 0; j < in.call_rets.size(); ++j)
    local_copy(p, f, in, callee(p.ret_off[c][j]), var(in.call_rets[j]), F.vars[in.call_rets[j]].size, k);
}

// vprintf (docs/isa-encoding.md, "Device printf"): the SM reads the format and argument pointers
// from the caller's call-block variables and writes the result to its result variable, so the
// instruction names their local offsets and needs no copies.
void lower_vprintf(Program& p, size_t f, size_t k, isa::Inst I) {
  const Instr& in = p.m.funcs[f].body[k];
  auto local = [&](uint32_t var) {
    const Loc l = frame_loc(p, f, p.var_off[f][var]);
    return isa::Operand{OpKind::Mem, false, l.reg, l.off};
  };
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
    if (p.recursive[f]) lower_prologue(p, f);  // a label on the first instruction follows it
    for (size_t k = 0; k < F.body.size(); ++k) {
      const Instr& in = F.body[k];
      p.site_of[f][k] = p.sites.size();
      isa::Inst I = rename_slots(p, f, in);
      resolve_refs(p, img, f, in, I);
      if (I.op == Opcode::Call) lower_call(p, f, k, I);
      else if (I.op == Opcode::Vprintf) lower_vprintf(p, f, k, I);
      else if (I.op == Opcode::Ret && p.recursive[f]) lower_stack_ret(p, f, k, I);
      else p.sites.push_back({f, k, I, false});
    }
    p.site_of[f][F.body.size()] = p.fend[f] = p.sites.size();
  }
}

}  // namespace gpuvp::ptx::detail
