#pragma once
// Execution of one warp instruction, by instruction family (docs/sm.md, "Files"). SimtCore::step
// looks the opcode up in a table of handlers; each family file (exec_<family>.cc) defines its
// handlers and registers them with add_<family>_ops, so a new instruction touches one family's file.
// Handlers are plain functions of an Exec, the context of the instruction being executed; Exec is a
// friend of SimtCore and gives them the core's operands, timing and units. Internal to models/sm.
#include <array>
#include <cstdint>
#include <string>

#include "models/sm/numeric.h"
#include "models/sm/simt_core.h"

namespace gpuvp::sm {

struct Exec {
  SimtCore& core;
  Warp& w;
  const isa::Inst& in;
  Group& g;          // the executing group: w.groups[gi] at pc
  unsigned gi;
  uint32_t m;        // active lanes: group mask and guard predicate
  uint64_t pc, next; // this instruction, the one after it
  bool halt = false; // set by a control handler that stopped the warp on an error

  // Operands: the values of operand o (or ops[i]) for the lanes in mask (default: the active lanes),
  // in `scratch` unless o is a register; dst: the register's lanes, or `scratch` (write discarded).
  const uint64_t* src(const isa::Operand& o, uint32_t mask, uint64_t* scratch) { return core.src(o, w, mask, scratch); }
  const uint64_t* src(int i, uint64_t* scratch) { return core.src(in.ops[i], w, m, scratch); }
  uint64_t* dst(int i, uint64_t* scratch) { return core.dst(in.ops[i], w, scratch); }
  uint32_t pred_mask(int i) const { return core.pred_mask(in.ops[i], w); }
  void write_pred(int i, uint32_t mask, uint32_t values) { core.write_pred(in.ops[i], w, mask, values); }

  // Timing: the latency class of the instruction (default alu), completion of its accesses.
  const SmConfig& cfg() const { return core.cfg_; }
  unsigned& lat() { return core.lat_; }
  uint64_t& done_at() { return core.done_at_; }
  uint64_t now() const { return core.now_; }
  uint64_t period_ps() const { return core.period_ps_; }

  // Stops the batch with a device error of this warp.
  void fail(const std::string& kind, const std::string& what, int lane, uint64_t addr) {
    core.fail(kind, what, &w, lane, addr);
  }

  // Per-thread memory and the outside, for device printf (exec_printf.cc): a host pointer to `size`
  // bytes of lane's local (or its block's shared) memory, nullptr after reporting the error; the
  // platform's view (peek, print); the block's linear index and the lane's thread index in it.
  uint8_t* onchip(unsigned lane, isa::Space sp, uint64_t addr, unsigned size) {
    return core.local_ptr(w, lane, sp, addr, size);
  }
  // A read of `size` bytes at p (from onchip) by printf: shared memory's access recording.
  void onchip_read(const uint8_t* p, unsigned size) {
    if (core.recording()) core.note_smem_ptr(p, size, Access::Read);
  }
  CoreEnv& env() { return core.env_; }
  uint64_t block_linear() const { return core.blocks_[w.block].linear; }
  uint32_t thread_in_block(unsigned lane) const { return w.in_block * core.cfg_.warp_size + lane; }

  // Memory unit (memory_unit.cc).
  void ld() { core.do_ld(w, in, m); }
  void st() { core.do_st(w, in, m); }
  void atom() { core.do_atom(w, in, m); }

  // Divergence, calls and barriers (exec_control.cc).
  void call() { core.do_call(w, in, g, m); }
  bool ret() { return core.do_ret(w, in, g, m); }
  void exit_lanes(uint32_t lanes) { core.exit_lanes(w, g, lanes); }
  void arrive_barrier(unsigned id, bool counted, uint64_t count, uint32_t votes) {
    core.arrive_barrier(w, id, counted, count, votes);
  }
};

using Handler = void (*)(Exec&);
struct OpEntry {
  Handler fn = nullptr;        // executes the instruction (only with active lanes unless `control`)
  Handler fn_float = nullptr;  // if set, replaces fn for float types (type-generic opcodes: add...)
  bool control = false;        // runs with or without active lanes and moves the group itself
};
using OpTable = std::array<OpEntry, size_t(isa::Opcode::Count)>;

// The table, built once from the families' registrations (exec.cc). Unregistered opcodes fail.
const OpTable& op_table();
void add_int_ops(OpTable& t);      // exec_int.cc: integer arithmetic, logic, bits
void add_carry_ops(OpTable& t);    // exec_carry.cc: addc, subc, madc (and add/sub/mad with .cc)
// add.cc / sub.cc / mad.{lo,hi}.cc: the integer add/sub/mad handlers pass them here (exec_carry.cc).
void carry_arith(Exec& x);
void add_float_ops(OpTable& t);    // exec_float.cc: float arithmetic and special functions
void add_compare_ops(OpTable& t);  // exec_compare.cc: setp, set, selp, slct
void add_convert_ops(OpTable& t);  // exec_convert.cc: mov, cvt, cvta
void add_memory_ops(OpTable& t);   // exec_memory.cc: ld, st, atom, red, membar
void add_control_ops(OpTable& t);  // exec_control.cc: bra, call, ret, exit, bar, trap, nop, nanosleep
void add_warp_ops(OpTable& t);     // exec_warp.cc: shfl, vote, match, activemask, bar.warp
void add_video_ops(OpTable& t);    // exec_video.cc: vabsdiff4
void add_printf_ops(OpTable& t);   // exec_printf.cc: vprintf (device printf)

}  // namespace gpuvp::sm

namespace gpuvp {

// Operand access of the core, inline: used per instruction by every family.
inline const uint64_t* SimtCore::src(const isa::Operand& o, Warp& w, uint32_t mask, uint64_t* s) {
  using isa::OpKind;
  switch (o.kind) {
    case OpKind::Reg: return w.regs + size_t(o.reg) * 32;
    case OpKind::Imm: case OpKind::Target: {
      uint64_t v = uint64_t(o.imm);
      for (unsigned l = 0; l < 32; ++l) s[l] = v;
      return s;
    }
    case OpKind::Mem: {
      // Address operand as a value (mov r, [sym] style).
      const uint64_t* r = o.reg == isa::kNoReg ? nullptr : w.regs + size_t(o.reg) * 32;
      sm::lanes(mask, [&](unsigned l) { s[l] = (r ? r[l] : 0) + uint64_t(o.imm); });
      return s;
    }
    case OpKind::SReg:
      sm::lanes(mask, [&](unsigned l) { s[l] = sreg(isa::SReg(o.reg), w, l); });
      return s;
    case OpKind::Pred: {
      uint32_t p = w.preds[o.reg] ^ (o.neg ? ~0u : 0u);
      sm::lanes(mask, [&](unsigned l) { s[l] = (p >> l) & 1; });
      return s;
    }
    default:
      std::memset(s, 0, 32 * sizeof(uint64_t));
      return s;
  }
}

inline uint64_t* SimtCore::dst(const isa::Operand& o, Warp& w, uint64_t* s) {
  return o.kind == isa::OpKind::Reg ? w.regs + size_t(o.reg) * 32 : s;
}

inline uint32_t SimtCore::pred_mask(const isa::Operand& o, const Warp& w) const {
  using isa::OpKind;
  switch (o.kind) {
    case OpKind::Pred: return w.preds[o.reg] ^ (o.neg ? ~0u : 0u);
    case OpKind::Imm: return o.imm ? ~0u : 0u;
    case OpKind::Reg: {
      uint32_t m = 0;
      const uint64_t* r = w.regs + size_t(o.reg) * 32;
      for (unsigned l = 0; l < 32; ++l) m |= uint32_t(r[l] != 0) << l;
      return m;
    }
    default: return 0;
  }
}

inline void SimtCore::write_pred(const isa::Operand& o, Warp& w, uint32_t mask, uint32_t v) {
  if (o.kind == isa::OpKind::Pred) {
    w.preds[o.reg] = (w.preds[o.reg] & ~mask) | (v & mask);
    // A predicate word holds every lane: written in part, its other lanes keep their bits (a read
    // for the recording: it ends the interval without declaring it dead).
    if (recording()) note_pred(w, o.reg, mask == ~0u ? Access::Write : Access::Read, inst_access_ps());
  } else if (o.kind == isa::OpKind::Reg) {
    uint64_t* d = w.regs + size_t(o.reg) * 32;
    sm::lanes(mask, [&](unsigned l) { d[l] = (v >> l) & 1; });
    if (recording()) note_reg(w, o.reg, mask, Access::Write, inst_access_ps());
  }
}

}  // namespace gpuvp
