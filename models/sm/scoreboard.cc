// Scoreboard of the issue timing (sm.max_pending_loads; docs/sm.md, "Scoreboard"): a global or
// constant load reads its data at issue but writes its destination registers only at its completion
// cycle; the warp goes on issuing instructions that neither read nor write those registers.
#include <algorithm>

#include "models/sm/exec.h"

namespace gpuvp {

using namespace isa;

namespace {
// Instructions that wait for every load of their warp: a barrier, and those that may end the warp
// (its registers are freed with its block).
bool waits_for_all(Opcode op) {
  return op == Opcode::Bar || op == Opcode::BarRed || op == Opcode::Exit || op == Opcode::Ret ||
         op == Opcode::Trap;
}

bool may_be_global_load(const Inst& in) {
  return in.op == Opcode::Ld && in.mod.space != Space::Shared && in.mod.space != Space::Local &&
         in.mod.space != Space::Param;
}

// Whether an operand of `in` (source, destination or address register) is one of the load's destinations.
template <typename Load>
bool touches(const Inst& in, const Load& p) {
  for (int i = 0; i < in.nops; ++i) {
    const Operand& o = in.ops[i];
    if (o.kind != OpKind::Reg && !(o.kind == OpKind::Mem && o.reg != kNoReg)) continue;
    if (std::find(p.regs, p.regs + p.n, o.reg) != p.regs + p.n) return true;
  }
  return false;
}
}  // namespace

// The cycle from which `in` may issue as far as w's loads in flight go: after those whose registers it
// uses (RAW, WAW), after all of them at a barrier or exit, after the first one to complete when a
// further load would exceed max_pending_loads.
uint64_t SimtCore::scoreboard_wait(const Warp& w, const Inst& in, bool* bound) const {
  const bool all = waits_for_all(in.op);
  uint64_t t = 0, first = ~uint64_t{0};
  for (const PendingLoad& p : pending_) {
    if (p.warp != w.id) continue;
    first = std::min(first, p.done);
    if (all || touches(in, p)) t = std::max(t, p.done);
  }
  if (may_be_global_load(in) && w.pending >= cfg_.max_pending_loads && first > t) {
    t = first;
    if (bound) *bound = true;
  }
  return t;
}

// Called by do_ld once its transactions are issued and their data is in buf_: the data is kept for
// its completion cycle (the old rule's ready cycle) and the warp may issue again once the last
// transaction released its port, after an ALU latency (address generation).
void SimtCore::defer_load(Warp& w, const Inst& in, uint32_t m) {
  const unsigned es = bits_of(in.type) / 8;
  const bool sx = is_signed(in.type) && es < 8;
  const uint64_t done = done_at_ + lat_;
  // Completion order, equal cycles in issue order: a load mostly completes after those before it.
  auto at = std::upper_bound(pending_.begin(), pending_.end(), done,
                             [](uint64_t d, const PendingLoad& q) { return d < q.done; });
  PendingLoad& p = *pending_.emplace(at);
  deferred_ = &p;
  p.warp = w.id;
  p.done = done;
  p.mask = m;
  for (unsigned i = 0; i < in.vec; ++i) {
    if (in.ops[i].kind != OpKind::Reg) continue;  // a sink: nothing to write
    p.regs[p.n] = in.ops[i].reg;
    std::fill(std::begin(p.vals[p.n]), std::end(p.vals[p.n]), uint64_t{0});
    sm::lanes(m, [&](unsigned l) {
      uint64_t v = 0;
      std::memcpy(&v, buf_[l] + i * es, es);
      p.vals[p.n][l] = sx ? uint64_t(sm::sext(v, es * 8)) : v;
    });
    ++p.n;
  }
  ++w.pending;
  done_at_ = std::max(now_, issued_at_);
  lat_ = cfg_.lat.alu;
}

// Writes the loads done by `upto` and before `before` into their registers, in completion order.
void SimtCore::retire(uint64_t upto, uint64_t before) {
  while (!pending_.empty() && pending_.front().done <= upto && pending_.front().done < before) {
    const PendingLoad& p = pending_.front();
    Warp& w = warps_[p.warp];
    for (unsigned i = 0; i < p.n; ++i) {
      uint64_t* d = w.regs + size_t(p.regs[i]) * 32;
      sm::lanes(p.mask, [&](unsigned l) { d[l] = p.vals[i][l]; });
      // Written at its completion cycle (a completion before the horizon is written before a stop
      // there), or later when the core lags simulated time (a stop may have passed meanwhile).
      if (recording()) note_reg(w, p.regs[i], p.mask, Access::Write, std::max(p.done * period_ps_, env_.sim_ps()));
    }
    --w.pending;
    pending_.pop_front();
  }
}

// The loads done by now: written at once, unless one completes at or after the horizon and simulated
// time is not there yet (a stop at the horizon must not see it): then after a sync.
// pending_ is in completion order: the first load done at or after the horizon tells.
void SimtCore::retire_due() {
  if (pending_.empty() || pending_.front().done > now_) return;  // none done yet
  const auto at_horizon = std::partition_point(pending_.begin(), pending_.end(),
                                               [&](const PendingLoad& p) { return p.done < horizon_; });
  const bool late = synced_ < now_ && at_horizon != pending_.end() && at_horizon->done <= now_;
  if (late) sync_now();
  else retire(now_, ~uint64_t{0});
}

uint64_t SimtCore::next_completion() const { return pending_.empty() ? ~uint64_t{0} : pending_.front().done; }

}  // namespace gpuvp
