// Reads, writes and fences of each instruction for the vulnerable-period scheduler and estimate.
// Conservative on purpose: an operand the instruction may write is also counted as read when in
// doubt, and every instruction whose effect depends on other lanes, on time or on other threads is
// a fence, so a move that these facts allow cannot change what the kernel computes.
#include "sw/ptx/vp_access.h"

#include <algorithm>

#include "sw/ptx/asm_internal.h"

namespace gpuvp::ptx::vp {

using isa::Opcode;
using isa::OpKind;

namespace {

// Effects that depend on other lanes, other threads or time, or that leave the block.
bool is_fence(const isa::Inst& I) {
  switch (I.op) {
    case Opcode::Bar: case Opcode::BarRed: case Opcode::BarWarp: case Opcode::Membar: case Opcode::Shfl:
    case Opcode::Vote: case Opcode::Match: case Opcode::Activemask: case Opcode::Vprintf:
    case Opcode::Nanosleep: case Opcode::Call: case Opcode::Ret: case Opcode::Exit: case Opcode::Trap:
    case Opcode::Bra:
      return true;
    default:
      break;
  }
  if (I.mod.flags & isa::kVolatile) return true;
  for (int o = 0; o < I.nops; ++o)
    if (I.ops[o].kind == OpKind::SReg) {
      const auto r = isa::SReg(I.ops[o].reg);
      if (r == isa::SReg::Clock || r == isa::SReg::ClockHi || r == isa::SReg::Clock64 ||
          r == isa::SReg::GlobalTimer || r == isa::SReg::GlobalTimerLo || r == isa::SReg::GlobalTimerHi)
        return true;
    }
  return false;
}

bool is_control(Opcode op) {
  return op == Opcode::Bra || op == Opcode::Call || op == Opcode::Ret || op == Opcode::Exit || op == Opcode::Trap;
}

// The carry flag (the last operand of the carry chain) is written by .cc forms besides being read.
bool writes_carry(const isa::Inst& I, int o) {
  return (I.mod.flags & isa::kCc) && o == I.nops - 1 && I.ops[o].kind == OpKind::Pred;
}

void add_operands(const isa::Inst& I, uint32_t nregs, Access& a) {
  const std::vector<int> defs = detail::def_ops(I);
  for (int o = 0; o < I.nops; ++o) {
    const isa::Operand& op = I.ops[o];
    int64_t v = -1;
    if (op.kind == OpKind::Reg || (op.kind == OpKind::Mem && op.reg != isa::kNoReg)) v = op.reg;
    if (op.kind == OpKind::Pred) v = int64_t(nregs) + op.reg;
    if (v < 0) continue;
    const bool def = op.kind != OpKind::Mem && std::find(defs.begin(), defs.end(), o) != defs.end();
    if (def || writes_carry(I, o)) a.writes.push_back(uint32_t(v));
    if (!def) a.reads.push_back(uint32_t(v));
  }
}

void add_memory(const isa::Inst& I, Access& a) {
  a.mem_read = I.op == Opcode::Ld || I.op == Opcode::Atom || I.op == Opcode::Red;
  a.mem_write = I.op == Opcode::St || I.op == Opcode::Atom || I.op == Opcode::Red;
}

bool meets(const std::vector<uint32_t>& x, const std::vector<uint32_t>& y) {
  for (uint32_t v : x)
    if (std::find(y.begin(), y.end(), v) != y.end()) return true;
  return false;
}

}  // namespace

std::vector<Access> accesses(const Function& f) {
  const auto nregs = uint32_t(f.regs.size());
  std::vector<Access> out(f.body.size());
  for (size_t k = 0; k < f.body.size(); ++k) {
    const isa::Inst& I = f.body[k].inst;
    Access& a = out[k];
    add_operands(I, nregs, a);
    add_memory(I, a);
    if (I.guard >= 0) a.reads.push_back(nregs + uint32_t(I.guard));
    a.unguarded = I.guard < 0;
    a.fence = is_fence(I);
    a.control = is_control(I.op);
  }
  return out;
}

bool conflict(const Access& a, const Access& b) {
  if (meets(a.writes, b.reads) || meets(a.reads, b.writes) || meets(a.writes, b.writes)) return true;
  return (a.mem_write && (b.mem_read || b.mem_write)) || (b.mem_write && a.mem_read);
}

}  // namespace gpuvp::ptx::vp
