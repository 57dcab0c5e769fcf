// Access recording of the warp control state (gpu.smN.warp[w].group_pc, group_mask, ngroups, live,
// state; ACE analysis and fault-space pruning, docs/campaigns.md "Lifetimes, ACE and pruning"), at the
// same instants as the register file's (simt_core_access.cc): max(issue instant, simulated time).
//
// What reads what (warp.h, exec_control.cc):
//  - issuing a warp (also when its fetch misses or the scoreboard holds it) reads ngroups and the PC of
//    every group (the frontier rule picks the lowest); executing its instruction reads the executing
//    group's mask (the active lanes) and, when it moves lanes on, every group's PC again (a merge looks
//    for a group at the target) and the masks it changes (a merge ORs lanes in, a move takes them out);
//    a group removed copies the last group over it (that one's PC and mask are read);
//  - exit reads and writes `live`; a barrier arrival and a bar.red delivery read it;
//  - `state` is read by the warp schedulers at every pick, for every warp of their set, whatever its
//    state (an exited warp is skipped because its state says so): one span of reads from the block's
//    placement until the batch ends or the block is released. A free slot's state is not read.
// An instruction's changes are found by comparing the groups before and after it: a PC is only ever
// assigned whole, so a changed PC was written; a changed mask may have been changed in part, so it is
// read and written; groups pushed (beyond the old count) are written, groups popped (beyond the new
// count) were read. A value rewritten unchanged is not reported written: its PC (or mask) was read at
// the same instant, so the interval ends there all the same.
#include <algorithm>

#include "models/sm/simt_core.h"

namespace gpuvp {

namespace {
uint32_t below(unsigned n) { return n >= 32 ? ~0u : (1u << n) - 1; }
}  // namespace

// The core's own time, never before simulated time nor an access already recorded: the latest
// instant at which the schedulers may have read a warp's state so far.
uint64_t SimtCore::core_now_ps() const { return std::max({now_ * period_ps_, acc_floor_ps_, env_.sim_ps()}); }

// The scheduler picked warp w: its group count and every group's PC were read to find the frontier.
void SimtCore::note_frontier(const Warp& w) {
  const WarpTargets* t = warp_targets(w);
  if (!t) return;
  frontier_read_ps_ = inst_access_ps();
  acc_reg_->note(*t->ngroups, 0, Access::Read, frontier_read_ps_);
  acc_reg_->note_lanes(*t->pc, 0, below(w.ngroups), 1, Access::Read, frontier_read_ps_);
}

void SimtCore::snapshot_groups(const Warp& w, GroupSnapshot& s) const {
  s.ngroups = w.ngroups;
  std::copy(w.groups, w.groups + std::min(w.ngroups, 32u), s.groups);
}

// After warp w's instruction (group gi) executed: its reads from the frontier's read to now (one span
// when it waited meanwhile), then what it wrote (the header's rules).
void SimtCore::note_groups(const Warp& w, unsigned gi, const GroupSnapshot& before) {
  const WarpTargets* t = warp_targets(w);
  if (!t) return;
  const unsigned n0 = std::min(before.ngroups, 32u), n1 = std::min(w.ngroups, 32u);
  uint32_t mask_read = 1u << gi, pc_written = 0, mask_written = 0;
  for (unsigned i = 0; i < std::max(n0, n1); ++i) {
    const uint32_t bit = 1u << i;
    if (i >= n1) {
      mask_read |= bit;  // popped: copied over a removed group, or the removed group itself
    } else if (i >= n0) {
      pc_written |= bit, mask_written |= bit;  // pushed
    } else {
      if (w.groups[i].pc != before.groups[i].pc) pc_written |= bit;
      if (w.groups[i].mask != before.groups[i].mask) mask_read |= bit, mask_written |= bit;
    }
  }
  const uint64_t now = inst_access_ps(), from = std::min(frontier_read_ps_, now);
  const Access r = now > from ? Access::ReadSpan : Access::Read;
  const uint64_t at = now > from ? from : now, until = now > from ? now : 0;
  acc_reg_->note(*t->ngroups, 0, r, at, until);
  acc_reg_->note_lanes(*t->pc, 0, below(n0), 1, r, at, until);
  acc_reg_->note_lanes(*t->mask, 0, mask_read, 1, r, at, until);
  acc_reg_->note_lanes(*t->pc, 0, pc_written, 1, Access::Write, now);
  acc_reg_->note_lanes(*t->mask, 0, mask_written, 1, Access::Write, now);
  if (n1 != n0) acc_reg_->note(*t->ngroups, 0, Access::Write, now);
}

// The executing instruction reads warp w's live lanes (and, written, replaces them: exit).
void SimtCore::note_live(const Warp& w, bool written) {
  const WarpTargets* t = warp_targets(w);
  if (!t) return;
  const uint64_t ps = inst_access_ps();
  acc_reg_->note(*t->live, 0, Access::Read, ps);
  if (written) acc_reg_->note(*t->live, 0, Access::Write, ps);
}

// Warp w was set up for a block at `ps` (init_warps: every field anew); the schedulers read its state
// from now on.
void SimtCore::note_warp_placed(const Warp& w, uint64_t ps) {
  const WarpTargets* t = warp_targets(w);
  if (!t) return;
  acc_reg_->note_lanes(*t->pc, 0, ~0u, 1, Access::Write, ps);
  acc_reg_->note_lanes(*t->mask, 0, ~0u, 1, Access::Write, ps);
  for (Target* x : {t->ngroups, t->live, t->state}) acc_reg_->note(*x, 0, Access::Write, ps);
  state_span_from_[w.id] = ps;
}

void SimtCore::close_state_span(unsigned slot, uint64_t ps) {
  if (slot >= t_warps_.size() || state_span_from_[slot] == kNoSpan) return;
  acc_reg_->note(*t_warps_[slot].state, 0, Access::ReadSpan, state_span_from_[slot], ps);
  state_span_from_[slot] = kNoSpan;
}

// A batch ended (every warp exited) or its blocks leave: the schedulers stop reading their states.
void SimtCore::close_state_spans() {
  const uint64_t ps = core_now_ps();
  for (unsigned w = 0; w < t_warps_.size(); ++w) close_state_span(w, ps);
}

// compact() moved warps (from slot, to slot): what the old slot held that is still to be read (the
// groups below the count, the count, the live lanes, the state) was read there, and the new slot is
// written whole (its groups beyond the count are stale copies no one reads before a push rewrites them).
void SimtCore::note_warps_moved(const std::vector<std::pair<unsigned, unsigned>>& moves) {
  const uint64_t ps = core_now_ps();
  for (auto [from, to] : moves) {
    if (from >= t_warps_.size()) continue;
    const WarpTargets& t = t_warps_[from];
    const Warp& w = warps_[to];
    acc_reg_->note_lanes(*t.pc, 0, below(w.ngroups), 1, Access::Read, ps);
    acc_reg_->note_lanes(*t.mask, 0, below(w.ngroups), 1, Access::Read, ps);
    for (Target* x : {t.ngroups, t.live}) acc_reg_->note(*x, 0, Access::Read, ps);
    close_state_span(from, ps);
  }
  for (auto [from, to] : moves) note_warp_placed(warps_[to], ps);
}

}  // namespace gpuvp
