// Control flow: bra, call, ret, exit, bar, bar.red, trap (control handlers: they run with or without active
// lanes and move the warp's groups themselves), nop and nanosleep; and the core's divergence,
// call stack, warp exit and barrier bookkeeping (docs/sm.md, "Divergence: thread frontier").
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "models/sm/exec.h"

namespace gpuvp {

using sm::lanes;

void SimtCore::finish_warp(Warp& w) {
  w.state = Warp::Exited;
  note_issue(w);
  --live_warps_;
  Block& b = blocks_[w.block];
  if (cfg_.statistics) {
    stats_.warp_resident_cycles += now_ - b.start;  // (occupancy: resident warps over time)
    stats_.launches[b.stat].warp_resident_cycles += now_ - b.start;
  }
  if (--b.live_warps == 0) {
    b.end = now_;
    finished_.push_back(w.block);  // run_blocks releases it after this instruction
  }
  // Exited threads no longer take part (PTX: barriers waiting only on exited threads are released):
  // a pending barrier completes when every warp still running has arrived.
  for (unsigned id = 0; id < kBarriers; ++id)
    if (b.bar_arrived[id]) {
      b.bar_expected[id] = uint16_t(std::min<unsigned>(b.bar_expected[id], b.live_warps));
      check_barrier(b, id);
    }
  delete[] w.rstack;
  w.rstack = nullptr;
}

void SimtCore::exit_lanes(Warp& w, Group& g, uint32_t lanes_out) {
  unsigned gi = unsigned(&g - w.groups);
  uint32_t rest = g.mask & ~lanes_out;
  if (recording()) note_live(w, true);
  w.live &= ~lanes_out;
  if (rest) g.mask = rest;
  else w.remove(gi, lanes_out);
  if (w.ngroups == 0) finish_warp(w);
}

void SimtCore::do_call(Warp& w, const isa::Inst& in, Group& g, uint32_t m) {
  // Arguments and return values were lowered by the assembler into local-memory copies around the
  // call: a call only saves the return address (docs/isa-encoding.md).
  uint64_t ret = g.pc + in.size;
  if (in.nops > 1 && in.ops[1].kind == isa::OpKind::Mem) return push_frame(w, in.ops[1], ret, m);
  if (!w.rstack) w.rstack = new std::vector<uint64_t>[32];
  lanes(m, [&](unsigned l) {
    if (w.rstack[l].size() >= kMaxCallDepth) {
      fail("stack", fmt::format("call depth exceeds {}", kMaxCallDepth), &w, int(l), 0);
      return;
    }
    w.rstack[l].push_back(ret);
  });
}

// A call of a recursive function: `end` is the end of the callee's frame on the lane's call stack
// (docs/isa-encoding.md, "Call stack"), which must lie in the thread's local memory; the frame's
// last 8 bytes take the return address.
void SimtCore::push_frame(Warp& w, const isa::Operand& end, uint64_t ret, uint32_t m) {
  uint64_t tmp[32];
  const uint64_t* e = src(end, w, m, tmp);
  const uint32_t local_bytes = blocks_[w.block].lp->local_bytes;
  lanes(m, [&](unsigned l) {
    if (has_error_) return;
    if (e[l] < 8 || e[l] > local_bytes) {
      fail("stack",
           fmt::format("stack overflow: the callee's frame would end at local offset {:#x}, beyond the thread's {} "
                       "bytes of local memory (its frames and the call stack: sm.stack_bytes, or cudaLimitStackSize)",
                       e[l], local_bytes),
           &w, int(l), e[l]);
      return;
    }
    std::memcpy(local_ptr(w, l, isa::Space::Local, e[l] - 8, 8), &ret, 8);
  });
}

// Return addresses of the lanes in m: from the return stack, or (ret of a recursive function) from
// local memory at ops[0]. Lanes with an empty return stack (a kernel's ret) are in *exiting.
bool SimtCore::pop_returns(Warp& w, const isa::Inst& in, uint32_t m, uint64_t* target, uint32_t* exiting) {
  if (in.nops > 0 && in.ops[0].kind == isa::OpKind::Mem) {
    uint64_t tmp[32];
    const uint64_t* a = src(in.ops[0], w, m, tmp);
    bool ok = true;
    lanes(m, [&](unsigned l) {
      const uint8_t* p = ok ? local_ptr(w, l, isa::Space::Local, a[l], 8) : nullptr;
      if (p) std::memcpy(&target[l], p, 8);
      ok = p != nullptr;
    });
    return ok;
  }
  lanes(m, [&](unsigned l) {
    if (!w.rstack || w.rstack[l].empty()) {
      *exiting |= 1u << l;
      return;
    }
    target[l] = w.rstack[l].back();
    w.rstack[l].pop_back();
  });
  return true;
}

// Returns false when the lanes exited (ret from the kernel) or a return address could not be read.
bool SimtCore::do_ret(Warp& w, const isa::Inst& in, Group& g, uint32_t m) {
  uint32_t exiting = 0;
  unsigned gi = unsigned(&g - w.groups);
  // Move lanes to their return address (one move per distinct address).
  uint64_t target[32];
  if (!pop_returns(w, in, m, target, &exiting)) return false;
  uint32_t moving = m & ~exiting;
  while (moving) {
    unsigned l0 = unsigned(__builtin_ctz(moving));
    uint32_t same = 0;
    lanes(moving, [&](unsigned l) {
      if (target[l] == target[l0]) same |= 1u << l;
    });
    moving &= ~same;
    w.move(gi, same, target[l0]);
    // gi may have been removed if it emptied; find the group at the original pc again
    gi = w.ngroups;
    for (unsigned i = 0; i < w.ngroups; ++i)
      if (w.groups[i].pc == cur_pc_) gi = i;
    if (gi == w.ngroups) break;
  }
  if (exiting) {
    for (unsigned i = 0; i < w.ngroups; ++i)
      if (w.groups[i].pc == cur_pc_) {
        exit_lanes(w, w.groups[i], exiting);
        break;
      }
    return false;
  }
  return true;
}

// The warp (converged, all live lanes active) waits at barrier `id` for `count` threads (all warps
// of the block when not counted), of which only those not exited can arrive. `votes`: the lanes whose
// bar.red predicate is true.
void SimtCore::arrive_barrier(Warp& w, unsigned id, bool counted, uint64_t count, uint32_t votes) {
  Block& b = blocks_[w.block];
  unsigned expected = b.nwarps;
  if (counted) {
    expected = unsigned((count + cfg_.warp_size - 1) / cfg_.warp_size);
    if (expected == 0 || expected > b.nwarps) expected = b.nwarps;
  }
  expected = std::min(expected, b.live_warps);
  w.state = Warp::Barrier;
  note_issue(w);
  w.bar_id = uint8_t(id);
  b.bar_expected[id] = uint16_t(expected);
  ++b.bar_arrived[id];
  // Exited lanes are not in `live`: they take no part in a reduction.
  if (recording()) note_live(w, false);
  b.bar_threads[id] += unsigned(__builtin_popcount(w.live));
  b.bar_votes[id] += unsigned(__builtin_popcount(votes & w.live));
  check_barrier(b, id);
}

void SimtCore::check_barrier(Block& b, unsigned id) {
  if (b.bar_arrived[id] < b.bar_expected[id]) return;
  b.bar_arrived[id] = 0;
  for (unsigned k = 0; k < b.nwarps; ++k) {
    Warp& w = warps_[b.first_warp + k];
    if (w.state == Warp::Barrier && w.bar_id == id) {
      deliver_reduction(w, b, id);
      w.state = Warp::Ready;
      w.ready = std::max(w.ready, now_ + cfg_.lat.barrier);
      w.why = uint8_t(StallReason::Barrier);
      wake_warp(w);
    }
  }
  b.bar_threads[id] = b.bar_votes[id] = 0;
}

// bar.red: every thread of a released warp receives the block's result (popc: the number of true
// predicates; and/or: whether all / any of them were true).
void SimtCore::deliver_reduction(Warp& w, const Block& b, unsigned id) {
  if (w.red == Warp::Red::None) return;
  if (recording()) note_live(w, false);
  const uint32_t votes = b.bar_votes[id];
  if (w.red == Warp::Red::Popc) {
    uint64_t scratch[32];
    uint64_t* d = dst(w.red_dst, w, scratch);
    lanes(w.live, [&](unsigned l) { d[l] = votes; });
    // Delivered while the last warp's arrival executes: at that instruction's instant.
    if (recording() && w.red_dst.kind == isa::OpKind::Reg) note_reg(w, w.red_dst.reg, w.live, Access::Write, inst_access_ps());
  } else {
    bool r = w.red == Warp::Red::And ? votes == b.bar_threads[id] : votes != 0;
    write_pred(w.red_dst, w, w.live, r ? ~0u : 0u);
  }
  w.red = Warp::Red::None;
}

namespace sm {

namespace {

// Moves `lanes` of the group at `pc` (if any) to `to`.
void move_at(Warp& w, uint64_t pc, uint32_t lanes_in, uint64_t to) {
  for (unsigned i = 0; i < w.ngroups; ++i)
    if (w.groups[i].pc == pc) {
      w.move(i, lanes_in, to);
      return;
    }
}

// The whole group still at pc (lanes that did not take part) moves on to the next instruction.
void advance_rest(Exec& x) {
  for (unsigned i = 0; i < x.w.ngroups; ++i)
    if (x.w.groups[i].pc == x.pc) {
      x.w.move(i, x.w.groups[i].mask, x.next);
      return;
    }
}

// Active lanes jump to the target, the others fall through.
void bra(Exec& x) {
  uint32_t nt = x.g.mask & ~x.m;
  x.lat() = x.cfg().lat.branch;
  if (x.m) x.w.move(x.gi, x.m, uint64_t(x.in.ops[0].imm));
  if (nt) move_at(x.w, x.pc, nt, x.next);  // gi still holds them at pc (or was reused): found again
}

void call(Exec& x) {
  x.lat() = x.cfg().lat.branch;
  uint32_t rest = x.g.mask & ~x.m;
  if (x.m) {
    x.call();
    if (x.core.error()) {  // too deep: no lane moves
      x.halt = true;
      return;
    }
    x.w.move(x.gi, x.m, uint64_t(x.in.ops[0].imm));
  }
  if (rest) move_at(x.w, x.pc, rest, x.next);
}

// ret from a function returns to the popped address; from the kernel it exits the lanes.
void ret(Exec& x) {
  x.lat() = x.cfg().lat.branch;
  uint32_t rest = x.g.mask & ~x.m;
  if (x.m) x.ret();
  if (x.core.error()) {  // a return address outside local memory
    x.halt = true;
    return;
  }
  if (rest && x.w.state != Warp::Exited) advance_rest(x);
}

void exit_op(Exec& x) {
  x.lat() = x.cfg().lat.branch;
  uint32_t rest = x.g.mask & ~x.m;
  if (x.m) x.exit_lanes(x.m);
  if (rest && x.w.state != Warp::Exited) advance_rest(x);
}

// The barrier number of operand i (lane l0); beyond the block's barriers it stops the warp.
bool barrier_id(Exec& x, int i, unsigned l0, unsigned& id) {
  uint64_t tmp[32];
  const uint64_t id_value = x.src(i, tmp)[l0];
  if (id_value >= kBarriers) {
    x.fail("barrier", fmt::format("barrier {} out of range: the SM has {} barriers (0..{})", id_value, kBarriers,
                                  kBarriers - 1),
           int(l0), 0);
    x.halt = true;
    return false;
  }
  id = unsigned(id_value);
  return true;
}

// bar.red: the reduction the warp takes part in, from its predicate operand (ops[3]).
uint32_t join_reduction(Exec& x) {
  const isa::Inst& in = x.in;
  x.w.red = in.type == isa::DType::U32         ? Warp::Red::Popc
            : in.mod.boolop == isa::BoolOp::And ? Warp::Red::And
                                                : Warp::Red::Or;
  x.w.red_dst = in.ops[0];
  return x.pred_mask(3);
}

// bar.sync / barrier.sync a[, b] and bar.red d, a[, b], c: the whole (converged) warp waits at
// barrier a.
void bar(Exec& x) {
  x.lat() = x.cfg().lat.barrier;
  if (!x.m) {
    x.w.move(x.gi, x.g.mask, x.next);
    return;
  }
  if (x.w.ngroups > 1 || x.m != x.w.live) {
    x.fail("barrier", "bar.sync executed by a diverged warp", -1, 0);
    x.halt = true;
    return;
  }
  const int first = x.in.op == isa::Opcode::BarRed ? 1 : 0;  // bar.red: ops[0] is the result
  uint64_t tmp[32];
  unsigned l0 = unsigned(__builtin_ctz(x.m));
  unsigned id;
  if (!barrier_id(x, first, l0, id)) return;
  bool counted = x.in.nops > first + 1 && x.in.ops[first + 1].kind != isa::OpKind::None;
  uint64_t count = counted ? x.src(first + 1, tmp)[l0] : 0;
  uint32_t votes = first ? join_reduction(x) : 0;
  x.w.move(x.gi, x.g.mask, x.next);
  x.arrive_barrier(id, counted, count, votes);
}

void trap(Exec& x) {
  if (x.m) {
    x.fail("trap", "trap instruction executed", __builtin_ctz(x.m), 0);
    x.halt = true;
    return;
  }
  x.w.move(x.gi, x.g.mask, x.next);
}

void nop(Exec&) {}

// nanosleep.u32 t: the warp sleeps t ns (of the first active lane), at most 1 ms.
void nanosleep_op(Exec& x) {
  uint64_t sa[32];
  const uint64_t* a = x.src(0, sa);
  uint64_t ns = std::min<uint64_t>(a[__builtin_ctz(x.m)] & 0xFFFFFFFFull, 1000000);
  uint64_t cyc = (ns * 1000 + x.period_ps() - 1) / x.period_ps();
  x.done_at() = std::max(x.done_at(), x.now() + cyc);
}

}  // namespace

void add_control_ops(OpTable& t) {
  auto control = [&](isa::Opcode op, Handler h) { t[size_t(op)] = OpEntry{h, nullptr, true}; };
  control(isa::Opcode::Bra, bra);
  control(isa::Opcode::Call, call);
  control(isa::Opcode::Ret, ret);
  control(isa::Opcode::Exit, exit_op);
  control(isa::Opcode::Bar, bar);
  control(isa::Opcode::BarRed, bar);
  control(isa::Opcode::Trap, trap);
  t[size_t(isa::Opcode::Nop)].fn = nop;
  t[size_t(isa::Opcode::Nanosleep)].fn = nanosleep_op;
}

}  // namespace sm

}  // namespace gpuvp
