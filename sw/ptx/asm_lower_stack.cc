// Assembler stage, part of the lowering: the code of the per-thread call stack (docs/isa-encoding.md,
// "Call stack"). The stack pointer register holds the bytes of the call stack in use (0 in the
// kernel: registers start zeroed); the stack starts at local offset stack_base. The activation of a
// recursive function f has its frame (stack_frame[f] bytes, the return address in its last 8) just
// below the stack pointer:
//   entry: sp += frame; copy the parameters from f's static frame, where its callers put them
//   ret:   copy the return values to f's static frame, where its callers take them; sp -= frame;
//          ret.local [return address]
// The Call of f checks that the frame fits and stores the return address (frame_end).
#include "sw/ptx/asm_internal.h"

namespace gpuvp::ptx::detail {

using isa::DType;
using isa::Opcode;
using isa::OpKind;

namespace {

// add.u64 sp, sp, by
isa::Inst move_sp(const Program& p, int64_t by) {
  isa::Inst I;
  I.op = Opcode::Add;
  I.type = DType::U64;
  I.nops = 3;
  I.ops[0] = I.ops[1] = {OpKind::Reg, false, p.sp, 0};
  I.ops[2] = {OpKind::Imm, false, isa::kNoReg, by};
  return I;
}

// Offset and bytes of f's parameters (rets: return values) in its frames.
std::pair<uint32_t, uint32_t> block_of(const Program& p, size_t f, bool rets) {
  const auto& vars = rets ? p.m.funcs[f].rets : p.m.funcs[f].params;
  const auto& off = rets ? p.ret_off[f] : p.param_off[f];
  if (vars.empty()) return {0, 0};
  return {off.front(), off.back() + vars.back().size - off.front()};
}

Loc static_loc(const Program& p, size_t f, uint32_t off) { return {isa::kNoReg, int64_t(p.lbase[f]) + off}; }

// A predicate saved as a byte: selp.u32 scratch, 1, 0, p / restored: setp.ne.u32 p, scratch, 0.
isa::Inst pred_move(bool restore, uint16_t pred, uint16_t scratch) {
  isa::Inst I;
  I.op = restore ? Opcode::Setp : Opcode::Selp;
  I.type = DType::U32;
  I.nops = 4;
  const isa::Operand p{OpKind::Pred, false, pred, 0}, s{OpKind::Reg, false, scratch, 0};
  const isa::Operand one{OpKind::Imm, false, isa::kNoReg, 1}, zero{OpKind::Imm, false, isa::kNoReg, 0};
  if (restore) {
    I.mod.cmp = isa::Cmp::Ne;
    I.ops[0] = p, I.ops[2] = s, I.ops[3] = zero;
  } else {
    I.ops[0] = s, I.ops[1] = one, I.ops[2] = zero, I.ops[3] = p;
  }
  return I;
}

}  // namespace

isa::Operand frame_end(const Program& p, size_t c) {
  return {OpKind::Mem, false, p.sp, int64_t(p.stack_base) + p.stack_frame[c]};
}

void lower_prologue(Program& p, size_t f) {
  Instr at;  // unguarded, at the function's line
  at.line = p.m.funcs[f].line;
  push_synthetic(p, f, 0, move_sp(p, p.stack_frame[f]), at, false);
  auto [off, size] = block_of(p, f, false);
  local_copy(p, f, at, static_loc(p, f, off), frame_loc(p, f, off), size, 0);
}

void lower_stack_ret(Program& p, size_t f, size_t k, isa::Inst I) {
  const Instr& in = p.m.funcs[f].body[k];
  auto [off, size] = block_of(p, f, true);
  local_copy(p, f, in, frame_loc(p, f, off), static_loc(p, f, off), size, k);
  push_synthetic(p, f, k, move_sp(p, -int64_t(p.stack_frame[f])), in, true);
  I.nops = 1;
  I.mod.space = isa::Space::Local;
  I.ops[0] = {OpKind::Mem, false, p.sp, int64_t(p.stack_base) + p.stack_frame[f] - 8};
  p.sites.push_back({f, k, I, false});
}

// Unguarded: lanes that skip a guarded call store and load their own values, and the guard itself
// is restored before the guarded result copies read it.
void lower_saves(Program& p, size_t f, size_t k, bool restore) {
  auto it = p.saves[f].find(k);
  if (it == p.saves[f].end()) return;
  const Instr& in = p.m.funcs[f].body[k];
  const uint16_t scratch = uint16_t(p.rbase[f] + p.nregs[f] - 1);
  for (uint32_t r : it->second.regs) {
    const Loc at = frame_loc(p, f, uint32_t(p.reg_save[f][r]));
    push_synthetic(p, f, k, local_access(restore, DType::B64, uint16_t(p.rbase[f] + r), at), in, false);
  }
  for (uint32_t q : it->second.preds) {
    const Loc at = frame_loc(p, f, uint32_t(p.pred_save[f][q]));
    const uint16_t pred = uint16_t(p.pbase[f] + q);
    if (!restore) push_synthetic(p, f, k, pred_move(false, pred, scratch), in, false);
    push_synthetic(p, f, k, local_access(restore, DType::U8, scratch, at), in, false);
    if (restore) push_synthetic(p, f, k, pred_move(true, pred, scratch), in, false);
  }
}

}  // namespace gpuvp::ptx::detail
