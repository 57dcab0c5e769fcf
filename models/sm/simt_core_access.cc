// Access recording of the register file and the predicates (ACE analysis and fault-space pruning,
// docs/campaigns.md "Lifetimes, ACE and pruning"). Each warp instruction reports, per register operand,
// one entry with its lanes: its reads once it executed (a read, or a span of reads when it waited for
// memory meanwhile), its writes after. Everything an instruction names that it does not certainly
// overwrite in full for its lanes is reported as read: a read recorded too many only ends an interval
// early and makes it live (faults there still run), whereas a write that did not happen would declare
// the value before it dead, and pruning would be wrong.
//
// When: an access is recorded at the instant a stop is ordered against it (simt_core.h). An
// instruction issued at cycle c executes, if the core is ahead of simulated time, before a stop at
// t > c and after a stop at t <= c (the horizon makes the core wait at c); if the core lags (a previous
// instruction's transactions waited past c), it executes at the simulated instant s > c, after any
// stop before s. So max(c, s). An instruction whose transactions wait reads some operands later than
// others (an atomic reads lane l's operands after lane l-1's transaction): its reads are one span from
// its first instant to its last, faults inside it run one by one. It writes its registers at its end.
#include <algorithm>

#include "models/sm/exec.h"
#include "models/sm/inst_class.h"

namespace gpuvp {

using namespace isa;

namespace {
// The arithmetic, comparison and conversion families, and atom, write their first operand, a register,
// for every active lane, in full (the 64-bit slot: both words of the registry).
bool full_write(const Inst& in, InstClass cls) {
  if (in.nops == 0 || in.ops[0].kind != OpKind::Reg) return false;
  switch (cls) {
    case InstClass::Int: case InstClass::Fp32: case InstClass::Fp64: case InstClass::Sfu: return true;
    case InstClass::Move:  // mov d, a and cvta (not the packing and unpacking movs: several registers)
      return in.op == Opcode::Cvta || (in.nops == 2 && !(in.mod.flags & (kPack | kUnpack)));
    case InstClass::Atomic:  // atom d, [a], b: the old values, once every lane's operation is done
      return in.op == Opcode::Atom;
    default: return false;
  }
}

// Predicates an instruction writes through write_pred, which reports them: the first operand of a
// comparison, logic or move, and setp's second.
bool pred_dest(const Inst& in, InstClass cls, int i) {
  if (in.ops[i].kind != OpKind::Pred) return false;
  if (in.op == Opcode::Setp) return i < 2;
  return i == 0 && (cls == InstClass::Int || cls == InstClass::Fp32 || cls == InstClass::Fp64 || cls == InstClass::Move);
}

// A load's destinations: written when its data arrive (retire) or, done at once, after it executes.
int load_dests(const Inst& in) { return in.op == Opcode::Ld ? std::max(1, int(in.vec)) : 0; }

// Lanes whose operands an instruction reads: its active lanes, except where a handler reads other
// lanes (shuffles, votes, barriers, control, printf): then every lane.
uint32_t read_lanes(InstClass cls, uint32_t active) {
  switch (cls) {
    case InstClass::Int: case InstClass::Fp32: case InstClass::Fp64: case InstClass::Sfu: case InstClass::Move:
    case InstClass::Global: case InstClass::Const: case InstClass::Param: case InstClass::Shared:
    case InstClass::Local:
      return active;
    default: return ~0u;
  }
}
}  // namespace

// The executing instruction's accesses now (the header's rule); every later one of the core is recorded
// at this instant or after (issue cycles and simulated time only grow).
uint64_t SimtCore::inst_access_ps() {
  acc_floor_ps_ = std::max({acc_floor_ps_, inst_ps(), env_.sim_ps()});
  return acc_floor_ps_;
}

// What the core does outside instructions (placing blocks, moving warps) happens at the simulated
// instant, but never before an access of an instruction that came before it: if that instruction
// is after a stop (the horizon held it), so is this.
uint64_t SimtCore::outside_access_ps() const { return std::max(acc_floor_ps_, env_.sim_ps()); }

// Register r of warp w, lanes `lanes`: the 64-bit slots (w.regs - regfile) + r * 32 + l, words 2s, 2s+1.
// until_ps > ps: a span of reads.
void SimtCore::note_reg(const Warp& w, unsigned r, uint32_t lanes, Access k, uint64_t ps, uint64_t until_ps) {
  const uint64_t slot = uint64_t(w.regs - regfile_.data()) + uint64_t(r) * 32;
  if (until_ps > ps) acc_reg_->note_lanes(*t_regs_, 2 * slot, lanes, 2, Access::ReadSpan, ps, until_ps);
  else acc_reg_->note_lanes(*t_regs_, 2 * slot, lanes, 2, k, ps);
}

void SimtCore::note_pred(const Warp& w, unsigned k, Access a, uint64_t ps, uint64_t until_ps) {
  const uint64_t i = uint64_t(w.id) * kPredSlotsPerWarp + k;
  if (until_ps > ps) acc_reg_->note(*t_preds_, i, Access::ReadSpan, ps, until_ps);
  else acc_reg_->note(*t_preds_, i, a, ps);
}

// The instruction's reads at `ps`, or over [ps, until] (a span).
void SimtCore::note_reads(const Warp& w, const Inst& in, InstClass cls, uint32_t active, uint64_t ps, uint64_t until) {
  note_header_read(w, in, ps, until);
  if (in.guard >= 0) note_pred(w, unsigned(in.guard), Access::Read, ps, until);
  const uint32_t lanes = read_lanes(cls, active);
  const bool first_written = full_write(in, cls);
  const int loaded = load_dests(in);
  for (int i = 0; i < in.nops; ++i) {
    const Operand& o = in.ops[i];
    if (i < loaded || (i == 0 && first_written) || pred_dest(in, cls, i)) continue;
    if (o.kind == OpKind::Reg || (o.kind == OpKind::Mem && o.reg != kNoReg)) note_reg(w, o.reg, lanes, Access::Read, ps, until);
    else if (o.kind == OpKind::Pred) note_pred(w, o.reg, Access::Read, ps, until);
  }
}

// The instruction executed from `from_ps` (its reads were reported there, before its writes) to now: if
// it waited meanwhile, its operands may have been read at any instant in between.
void SimtCore::note_late_reads(const Warp& w, const Inst& in, InstClass cls, uint32_t active, uint64_t from_ps) {
  const uint64_t until = inst_access_ps();
  if (until > from_ps) note_reads(w, in, cls, active, from_ps, until);
}

// After the instruction executed: its full destination, or a load's registers when it completed at once
// (a deferred load's are reported by retire, when its data arrive).
void SimtCore::note_writes(const Warp& w, const Inst& in, InstClass cls, uint32_t active) {
  const uint64_t ps = inst_access_ps();
  if (full_write(in, cls)) note_reg(w, in.ops[0].reg, active, Access::Write, ps);
  if (deferred_) return;
  for (int i = 0; i < load_dests(in) && i < in.nops; ++i)
    if (in.ops[i].kind == OpKind::Reg) note_reg(w, in.ops[i].reg, active, Access::Write, ps);
}

// A placed block's registers and predicates are zero from now on (place_block).
void SimtCore::note_placement(const Block& b) {
  const uint64_t ps = outside_access_ps();
  for (size_t s = b.reg_base; s < b.reg_base + b.k.reg_slots; s += 32) {
    const size_t n = std::min<size_t>(32, b.reg_base + b.k.reg_slots - s);
    acc_reg_->note_lanes(*t_regs_, 2 * s, n >= 32 ? ~0u : (1u << n) - 1, 2, Access::Write, ps);
  }
  for (unsigned k = 0; k < b.nwarps; ++k)
    acc_reg_->note_lanes(*t_preds_, uint64_t(b.first_warp + k) * kPredSlotsPerWarp, ~0u, 1, Access::Write, ps);
  for (unsigned k = 0; k < b.nwarps; ++k) note_warp_placed(warps_[b.first_warp + k], ps);
  note_smem(b.smem_base, b.k.stride, Access::Write, ps);  // init_shared: header, parameters, zeroed user bytes
}

// --- shared memory ---------------------------------------------------------------------------------
// Its words are bytes: an access of a lane is `size` words. Every access happens while the core executes
// the instruction, at the instruction's instant (the registers' rule), or outside instructions at the
// simulated instant (placement, compaction). A load's on-chip lanes are read before any of its global
// transactions, a store's written before them; an atomic's shared lanes between its global lanes' waits.

void SimtCore::note_smem(uint64_t first, uint64_t n, Access k, uint64_t ps) {
  if (!t_smem_) return;
  for (uint64_t i = first; i < first + n; i += 255)
    acc_reg_->note_lanes(*t_smem_, i, 1, uint8_t(std::min<uint64_t>(255, first + n - i)), k, ps);
}

// The lanes of `lanes` whose pointer is into shared memory (not a thread's local memory): one entry
// when they all access the same bytes (a parameter, a broadcast) or consecutive ones (lane l at
// p0 + l * size), else one per lane.
void SimtCore::note_smem_lanes(uint32_t lanes, uint8_t* const* ptrs, unsigned size, Access k) {
  if (!t_smem_ || !lanes) return;
  const uint8_t* lo = smem_.data();
  const uint8_t* hi = lo + smem_.size();
  uint32_t in = 0;
  for (uint32_t m = lanes; m; m &= m - 1) {
    const unsigned l = unsigned(__builtin_ctz(m));
    if (ptrs[l] >= lo && ptrs[l] < hi) in |= 1u << l;
  }
  if (!in) return;
  const uint64_t ps = inst_access_ps();
  const unsigned first = unsigned(__builtin_ctz(in));
  const uint64_t p0 = uint64_t(ptrs[first] - lo);
  bool same = true, consecutive = p0 >= uint64_t(first) * size;
  for (uint32_t m = in; m && (same || consecutive); m &= m - 1) {
    const unsigned l = unsigned(__builtin_ctz(m));
    same = same && ptrs[l] == ptrs[first];
    consecutive = consecutive && uint64_t(ptrs[l] - lo) == p0 + uint64_t(l - first) * size;
  }
  if (same) {
    acc_reg_->note_lanes(*t_smem_, p0, 1, uint8_t(size), k, ps);
    return;
  }
  if (consecutive) {
    acc_reg_->note_lanes(*t_smem_, p0 - uint64_t(first) * size, in, uint8_t(size), k, ps);
    return;
  }
  for (uint32_t m = in; m; m &= m - 1) {
    const unsigned l = unsigned(__builtin_ctz(m));
    acc_reg_->note_lanes(*t_smem_, uint64_t(ptrs[l] - lo), 1, uint8_t(size), k, ps);
  }
}

// `size` bytes at p, when p is into shared memory (printf reads local memory the same way).
void SimtCore::note_smem_ptr(const uint8_t* p, unsigned size, Access k) {
  if (!t_smem_ || p < smem_.data() || p >= smem_.data() + smem_.size()) return;
  note_smem(uint64_t(p - smem_.data()), size, k, inst_access_ps());
}

// The special registers of the block's shape and index are read from its header (sreg): a read of
// its bytes when an operand names one.
void SimtCore::note_header_read(const Warp& w, const Inst& in, uint64_t ps, uint64_t until) {
  if (!t_smem_) return;
  for (int i = 0; i < in.nops; ++i) {
    if (in.ops[i].kind != OpKind::SReg) continue;
    switch (SReg(in.ops[i].reg)) {
      case SReg::TidX: case SReg::TidY: case SReg::TidZ: case SReg::NtidX: case SReg::NtidY: case SReg::NtidZ:
      case SReg::CtaidX: case SReg::CtaidY: case SReg::CtaidZ: case SReg::NctaidX: case SReg::NctaidY:
      case SReg::NctaidZ: {
        const uint64_t base = blocks_[w.block].smem_base;
        if (until > ps) acc_reg_->note_lanes(*t_smem_, base, 1, kBlockHeaderBytes, Access::ReadSpan, ps, until);
        else acc_reg_->note_lanes(*t_smem_, base, 1, kBlockHeaderBytes, Access::Read, ps);
        return;
      }
      default: break;
    }
  }
}

// Warps changed slots (compact): the predicate words, numbered by warp slot, now show other warps (a
// value at a slot before is read through another slot after). Every slot's words are read and written
// at once: an interval ends there and none is declared dead.
void SimtCore::note_warp_slots_moved() {
  const uint64_t ps = outside_access_ps();
  for (unsigned w = 0; w < max_warps(); ++w)
    for (Access a : {Access::Read, Access::Write})
      acc_reg_->note_lanes(*t_preds_, uint64_t(w) * kPredSlotsPerWarp, ~0u, 1, a, ps);
}

}  // namespace gpuvp
