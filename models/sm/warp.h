#pragma once
// One warp's SIMT state: SoA register slots (regs[slot * 32 + lane]), one lane mask per predicate
// slot, and the thread-frontier divergence state: a small set of (pc, lane mask) groups. The core
// always executes the group with the lowest PC and merges groups that arrive at the same PC, which
// reconverges nested if/else, loops with per-lane trip counts, break/continue and early exits
// without reconvergence annotations (docs/sm.md).
#include <cstdint>
#include <vector>

#include "sw/isa/isa.h"

namespace gpuvp {

struct Group {
  uint64_t pc = 0;
  uint32_t mask = 0;
};

struct Warp {
  enum State : uint8_t { Ready, Barrier, Exited };

  static constexpr unsigned kNoBlock = ~0u;
  static constexpr uint64_t kNotReady = ~uint64_t{0};

  unsigned id = 0;          // warp slot in the SM (%warpid)
  unsigned block = kNoBlock;  // slot of its block in the core (kNoBlock: a free warp slot)
  unsigned in_block = 0;    // warp index within its block
  uint32_t live = 0;        // lanes that exist and have not exited
  State state = Ready;
  uint8_t bar_id = 0;       // barrier the warp waits at (state Barrier)
  // bar.red: the reduction the warp waits for and where its result goes when the barrier completes.
  enum class Red : uint8_t { None, Popc, And, Or };
  Red red = Red::None;
  isa::Operand red_dst;
  uint64_t ready = 0;       // first cycle the warp may issue again
  uint8_t why = 0;          // what it waits for until then (StallReason, issue timing's statistics)
  unsigned pending = 0;     // its loads in flight (scoreboard entries, SimtCore::pending_)
  uint64_t* regs = nullptr; // num_regs * 32 slots
  uint32_t* preds = nullptr;
  Group groups[32];         // every live lane is in exactly one group
  unsigned ngroups = 0;
  // Per-lane return stacks for call/ret (allocated on the first call).
  std::vector<uint64_t>* rstack = nullptr;

  // The first cycle the warp may issue at: its `ready` while it is Ready; kNotReady at a barrier,
  // exited or in a free slot.
  uint64_t issue_at() const { return state == Ready ? ready : kNotReady; }
  // Index of the group with the lowest PC (the thread frontier rule).
  unsigned frontier() const {
    unsigned best = 0;
    for (unsigned i = 1; i < ngroups; ++i)
      if (groups[i].pc < groups[best].pc) best = i;
    return best;
  }
  // Moves `lanes` of group g to `pc`, merging with an existing group at that pc.
  void move(unsigned g, uint32_t lanes, uint64_t pc);
  // Removes `lanes` from group g (exit); drops the group when empty.
  void remove(unsigned g, uint32_t lanes);
};

}  // namespace gpuvp
