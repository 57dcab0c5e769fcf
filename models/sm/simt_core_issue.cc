// Issue timing (sm.timing = issue; docs/sm.md, "Issue timing"): the SM's warp schedulers. Each has the
// warps of its slots (slot mod schedulers), sps / schedulers lanes, a policy instance, and issues at most
// `dispatch` instructions per cycle, each holding the scheduler for issue_cycles_ cycles and its
// execution unit for warp_size / (the unit's lanes) cycles. The core keeps one cycle counter now_: every
// cycle, the schedulers free at now_ issue in scheduler order, then now_ moves on to the next cycle at
// which one of them can issue, so the core's accesses are made in non-decreasing cycle order.
#include <algorithm>

#include "models/sm/exec.h"
#include "models/sm/inst_class.h"
#include "models/sm/instruction_buffer.h"
#include "models/sm/warp_scheduler.h"

namespace gpuvp {

using namespace isa;

namespace {
constexpr uint64_t kNever = sm::kNotReady;

// Registers (and predicates) an instruction writes: ops[0..n) of the opcode's destination count,
// and every predicate operand (carry flags, setp's pair), counted as written to stay conservative.
bool writes(const Inst& in, const Operand& o, int i) {
  if (o.kind == OpKind::Pred) return true;
  if (o.kind != OpKind::Reg) return false;
  switch (in.op) {
    case Opcode::St: case Opcode::Red: return false;
    case Opcode::Ld: return i < in.vec;
    case Opcode::Setp: case Opcode::Shfl: case Opcode::Match: return i < 2;
    case Opcode::Mov: return i < std::max(1, int(in.nops) - 1);  // unpack: mov.b64 {d0, d1}, a
    default: return i == 0;
  }
}

bool same_slot(const Operand& a, const Operand& b) {
  const bool ra = a.kind == OpKind::Reg || (a.kind == OpKind::Mem && a.reg != kNoReg);
  const bool rb = b.kind == OpKind::Reg || (b.kind == OpKind::Mem && b.reg != kNoReg);
  if (ra && rb) return a.reg == b.reg;
  return a.kind == OpKind::Pred && b.kind == OpKind::Pred && a.reg == b.reg;
}

// Whether `second` reads or writes a register or predicate `first` writes (it must wait for it).
bool depends(const Inst& first, const Inst& second) {
  for (int i = 0; i < first.nops; ++i) {
    const Operand& d = first.ops[i];
    if (!writes(first, d, i)) continue;
    if (d.kind == OpKind::Pred && second.guard == int(d.reg)) return true;
    for (int j = 0; j < second.nops; ++j)
      if (same_slot(d, second.ops[j])) return true;
  }
  return false;
}
}  // namespace

// A new batch, or the first block on an empty SM: the schedulers start counting at `start`.
void SimtCore::start_schedulers(uint64_t start) {
  for (Sched& sc : sched_) {
    sc.free = std::max(sc.free, start);
    sc.acct = std::max(sc.acct, start);
    sc.why = StallReason::NoWarp;
    sc.who = last_launch_;
  }
  reset_picks();
}

void SimtCore::reset_picks() {
  for (Sched& sc : sched_) {
    sc.last = sc.pinned = -1;
    sc.wake_at = 0;
  }
}

// Warp w became ready (a barrier released it, its block arrived): its scheduler looks at its warps
// again from w.ready on.
void SimtCore::wake_warp(const Warp& w) {
  note_issue(w);
  if (pipe_) return;
  Sched& sc = sched_[w.id % sched_.size()];
  sc.wake_at = std::min(sc.wake_at, w.ready);
}

// Scheduler s issued nothing from its accounted cycle to t: those cycles stalled for its reason, on
// the SM and on the launch they are charged to.
void SimtCore::count_until(unsigned s, uint64_t t) {
  Sched& sc = sched_[s];
  if (t <= sc.acct) return;
  const auto charge = [&](SmStats::Scheduler& st) {
    st.stall_cycles[size_t(sc.why)] += t - sc.acct;
    st.cycles += t - sc.acct;
  };
  if (cfg_.statistics) {
    charge(stats_.schedulers[s]);
    if (sc.who < stats_.launches.size()) charge(stats_.launches[sc.who].schedulers[s]);  // none before a first block
  }
  sc.acct = t;
}

// The cycle from which a unit of class u of scheduler s has a free lane.
uint64_t SimtCore::unit_wait(unsigned s, UnitClass u) const {
  const UnitClass c = unit_of_[size_t(u)];
  const unsigned lanes = unit_lanes_[size_t(c)];
  return lanes ? sched_[s].busy[size_t(c)] / lanes : 0;
}

// The cycle from which warp w's instruction on a unit of class u may issue from scheduler s: under a
// counter distribution a lane instruction needs a lane cluster the distribution unit gives it (its
// choice then made: picked_cluster_), any other its scheduler's unit.
uint64_t SimtCore::issue_wait(const Warp& w, unsigned s, UnitClass u) {
  if (cluster_free_.empty() || unit_of_[size_t(u)] != UnitClass::Lanes) return unit_wait(s, u);
  uint64_t wait = 0;
  const int c = dist_->pick(w.id, cluster_free_, now_, wait);
  if (c < 0) return wait;
  picked_cluster_ = c;
  return 0;
}

unsigned SimtCore::book_cluster() {
  uint64_t& f = cluster_free_[size_t(picked_cluster_)];
  f = std::max(f, now_) + cluster_cycles_;
  return cluster_cycles_;
}

// A warp instruction starting at now_ on a unit of class u: it takes warp_size lanes from the first
// free one on (a unit narrower than the warp is busy over several cycles; a wider one takes two
// instructions in a cycle). Returns the cycles it holds the unit.
unsigned SimtCore::book_unit(unsigned s, UnitClass u) {
  const UnitClass c = unit_of_[size_t(u)];
  const unsigned lanes = unit_lanes_[size_t(c)];
  if (!lanes) return 0;
  uint64_t& b = sched_[s].busy[size_t(c)];
  b = std::max(b, now_ * lanes) + cfg_.warp_size;
  return (cfg_.warp_size + lanes - 1) / lanes;
}

// Shared bank-conflict replays of the instruction just executed: each holds the scheduler's
// load/store unit (the lanes when it has none of its own) one cycle more.
void SimtCore::book_replays(unsigned s) {
  const UnitClass c = unit_of_[size_t(UnitClass::Ldst)];
  sched_[s].busy[size_t(c)] += uint64_t(bank_replays_) * unit_lanes_[size_t(c)];
}

// The cycle at which scheduler s may issue again, and what it waits for: its picked warp (a policy
// that waits for its turn), else its first ready warp; a barrier if all its live warps wait at one.
SimtCore::Wake SimtCore::wake(unsigned s, int picked) const {
  const Sched& sc = sched_[s];
  if (picked >= 0) {
    const Warp& w = warps_[unsigned(picked)];
    return {std::max(sc.free, w.ready), StallReason(w.why), blocks_[w.block].stat};
  }
  // The scan reads the slots' issue cycles only: the reason and launch of the one warp that decides
  // are looked up once, and the warp records only when none is ready (the last at a barrier decides).
  const unsigned n = unsigned(warps_.size()), step = unsigned(sched_.size());
  unsigned first = n, barrier = n;
  uint64_t at = kNever;
  for (unsigned i = s; i < n; i += step)
    if (issue_at_[i] < at) at = issue_at_[i], first = i;
  if (first < n) return {std::max(at, sc.free), StallReason(warps_[first].why), blocks_[warps_[first].block].stat};
  for (unsigned i = s; i < n; i += step)
    if (warps_[i].state == Warp::Barrier) barrier = i;
  if (barrier < n) return {kNever, StallReason::Barrier, blocks_[warps_[barrier].block].stat};
  return {kNever, StallReason::NoWarp, last_launch_};
}

// One cycle of the issue timing at now_: every scheduler free now issues (in scheduler order); then the
// core moves to the next cycle at which one may issue (a wait: syncs and arrivals as wait_until
// handles them). False when the environment interrupted a wait (concurrent mode).
bool SimtCore::issue_cycle(bool batch) {
  bool active = false, issued = false;
  for (unsigned s = 0; s < sched_.size() && !has_error_; ++s) {
    if (sched_[s].free > now_ || sched_[s].wake_at > now_) continue;  // busy, or no warp ready before then
    const Outcome o = try_issue(s);
    active |= o != Outcome::Idle;
    issued |= o == Outcome::Issued;
  }
  if (has_error_) return true;
  if (active) {
    advance_after_issue();
    if (issued && now_ - synced_ >= quantum_) sync_now();
    return true;
  }
  uint64_t t = kNever;
  for (const Sched& sc : sched_) t = std::min(t, std::max(sc.pinned >= 0 ? sc.free : sc.wake_at, sc.free));
  if (t != kNever) return wait_until(std::max(now_ + 1, t), batch);
  return wait_turn(-1, batch);  // every live warp at a barrier that never completes: the error
}

// Some scheduler issued (or started a fetch) at now_: the next cycle at which one may issue, the
// earliest of the busy ones' free cycle and (when that is not the next cycle) the idle ones' wake.
void SimtCore::advance_after_issue() {
  uint64_t next = kNever;
  for (const Sched& sc : sched_)
    if (sc.free > now_) next = std::min(next, sc.free);
  if (next > now_ + 1)
    for (const Sched& sc : sched_)
      if (sc.free <= now_) next = std::min(next, sc.wake_at);
  now_ = std::max(now_ + 1, next);
}

// Scheduler s at now_: its policy picks a ready warp, which issues; a warp the scoreboard or a busy
// unit holds issues nothing, and the scheduler picks again in the same cycle.
SimtCore::Outcome SimtCore::try_issue(unsigned s) {
  Sched& sc = sched_[s];
  const sm::WarpSet set{int(s), int(sched_.size())};
  while (!has_error_) {
    const int i = sc.pinned >= 0 ? sc.pinned : policies_[s]->pick(issue_at_, sc.last, now_, set);
    if (i < 0 || warps_[unsigned(i)].ready > now_) {
      count_until(s, now_);
      const Wake k = wake(s, i);
      sc.why = k.why;
      sc.who = k.who;
      sc.wake_at = k.at;
      return Outcome::Idle;
    }
    const Outcome o = issue(i, s);
    if (o != Outcome::Held) return o;
    if (now_ - synced_ >= quantum_) sync_now();
  }
  return Outcome::Idle;
}

SimtCore::Outcome SimtCore::issue(int i, unsigned s) {
  if (now_ >= horizon_) sync_now();  // let simulated time reach the core before it goes past the horizon
  const uint64_t at = now_;
  issue_cycle_ = at;
  in_step_ = true;  // a stop while the instruction waits for memory sees its data in flight
  const Outcome o = step(warps_[unsigned(i)], s);
  in_step_ = false;
  if (o == Outcome::Issued) {
    sched_[s].last = i;
    if (issue_log_) issue_log_->push_back(at);
  }
  return o;
}

// Warp w's next instruction on scheduler s at now_: fetched (a miss holds the scheduler, with w
// picked, until the line is there), checked against the scoreboard and its unit, then executed.
SimtCore::Outcome SimtCore::step(Warp& w, unsigned s) {
  Sched& sc = sched_[s];
  const unsigned gi = w.ngroups == 1 ? 0 : w.frontier();
  const uint64_t pc = w.groups[gi].pc;
  if (recording()) note_frontier(w);
  cur_pc_ = pc;
  const Inst* in = nullptr;
  if (sc.pinned == int(w.id) && sc.pinned_decodes == ibuf_->decodes()) {
    in = sc.pinned_inst;  // fetched when the scheduler picked it
  } else {
    const uint64_t t = now_;
    in = fetch(w, pc);
    if (!in) return Outcome::Issued;  // the error stops the core
    if (now_ > t) {  // the fetch completes later: the scheduler waits for it with this warp
      count_until(s, t);
      sc.why = StallReason::Fetch;
      sc.who = blocks_[w.block].stat;
      sc.free = now_;
      sc.pinned = int(w.id);
      sc.pinned_inst = in;
      sc.pinned_decodes = ibuf_->decodes();
      now_ = t;
      return Outcome::Fetching;
    }
  }
  sc.pinned = -1;
  if (w.pending) {
    bool bound = false;
    const uint64_t t = scoreboard_wait(w, *in, &bound);
    if (t > now_) {
      w.ready = t;
      w.why = uint8_t(bound ? StallReason::MemoryPort : StallReason::PendingLoad);
      note_issue(w);
      return Outcome::Held;
    }
  }
  const sm::InstKind kind = sm::classify(*in);
  if (const uint64_t t = issue_wait(w, s, kind.unit); t > now_) {
    w.ready = t;
    w.why = uint8_t(StallReason::UnitBusy);
    note_issue(w);
    return Outcome::Held;
  }
  if (now_ >= horizon_) sync_now();  // execute only once simulated time is there
  else retire_due();
  count_until(s, now_);
  if (cfg_.statistics)
    for (SmStats::Scheduler* st : {&stats_.schedulers[s], &stats_.launches[blocks_[w.block].stat].schedulers[s]}) {
      st->issue_cycles += issue_cycles_;
      st->cycles += issue_cycles_;
      ++st->warp_insts;
    }
  sc.acct = sc.free = now_ + issue_cycles_;
  execute_timed(w, gi, *in, pc, s, kind.unit, kind.cls);
  dual_issue(w, s, *in, pc);
  return Outcome::Issued;
}

// Executes `in` issued at now_: its unit booked, its memory accesses issue_cycles_ later (when its
// lanes have been dispatched), the warp ready again after the unit's cycles and the class latency.
void SimtCore::execute_timed(Warp& w, unsigned gi, const Inst& in, uint64_t pc, unsigned s, UnitClass unit,
                             InstClass cls) {
  const uint64_t t = now_;
  const unsigned held = picked_cluster_ >= 0 ? book_cluster() : book_unit(s, unit);
  now_ = t + issue_cycles_;
  lat_ = cfg_.lat.alu;
  const uint64_t base = t + std::max(issue_cycles_, held);
  done_at_ = base;
  const unsigned pending = w.pending;
  bank_replays_ = 0;
  const bool ran = execute(w, gi, in, pc, cls);
  picked_cluster_ = -1;
  if (bank_replays_) book_replays(s);
  if (ran && w.state == Warp::Ready && done_at_ + lat_ > w.ready) {
    w.ready = done_at_ + lat_;
    StallReason why = StallReason::Dependency;
    if (in.op == Opcode::Nanosleep) why = StallReason::Nanosleep;
    else if (done_at_ > base && w.pending > pending) why = StallReason::MemoryPort;  // a load's port, released late
    else if (done_at_ > base) why = in.op == Opcode::St ? StallReason::MemoryPort : StallReason::PendingLoad;
    w.why = uint8_t(why);
  }
  note_issue(w);
  now_ = t;
}

// Dual issue (sm.dispatch_per_scheduler = 2): the warp's next instruction issues in the same cycle
// when neither is a control instruction, it follows the first in the code, is in the instruction
// buffer (no fetch transaction), does not use what the first writes, and its unit and the scoreboard let it.
// A nanosleep suspends the warp: nothing after it issues before the sleep ends (a %globaltimer read
// paired with it would see the time before the sleep).
void SimtCore::dual_issue(Warp& w, unsigned s, const Inst& first, uint64_t first_pc) {
  if (cfg_.dispatch < 2 || has_error_ || w.state != Warp::Ready || ops_[size_t(first.op)].control ||
      first.op == Opcode::Nanosleep)
    return;
  const unsigned gi = w.ngroups == 1 ? 0 : w.frontier();
  const uint64_t pc = w.groups[gi].pc;
  if (recording()) note_frontier(w);
  if (pc != first_pc + first.size || !ibuf_->resident(pc, now_)) return;
  const Inst* in = fetch(w, pc);
  if (!in || ops_[size_t(in->op)].control || depends(first, *in)) return;
  if (w.pending && scoreboard_wait(w, *in) > now_) return;
  const sm::InstKind kind = sm::classify(*in);
  if (issue_wait(w, s, kind.unit) > now_) return;
  cur_pc_ = pc;
  if (cfg_.statistics)
    for (SmStats::Scheduler* st : {&stats_.schedulers[s], &stats_.launches[blocks_[w.block].stat].schedulers[s]}) {
      ++st->warp_insts;
      ++st->dual_issued;
    }
  if (issue_log_) issue_log_->push_back(now_);
  execute_timed(w, gi, *in, pc, s, kind.unit, kind.cls);
}

}  // namespace gpuvp
