#pragma once
// FlexGripPlus pipeline timing (sm.timing = flexgrip), modelled on the soft GPU's VHDL; docs/sm.md
// ("FlexGripPlus timing") gives each rule and the file it comes from.
//  - A warp instruction passes the stages as warp_size/sps packets, one lane group of sps threads each.
//  - Each stage holds one packet and hands it on when the next stage takes it (no FIFOs): the slowest
//    stage sets the rate, one packet per occupancy + 1 cycles.
//  - A warp has one instruction in flight: it issues again once its last packet left the warp checker.
//  - Global accesses are served thread after thread inside the read stage (loads) or the write stage
//    (stores); the SIMT core supplies those phases (their transactions go through the platform's
//    arbiters), everything else is a fixed occupancy per stage.
#include <cstdint>

#include "sw/isa/isa.h"

namespace gpuvp::sm {

enum FgStage : unsigned { kSched, kFetch, kDecode, kRead, kExecute, kWrite, kCheck, kFgStages };

// Fixed occupancy (cycles) of one packet in each stage.
struct FgPacket {
  unsigned o[kFgStages] = {};
  unsigned mem_before = 0;  // cycles of the memory stage before its per-thread phase (the rest after it)
};

// What one warp instruction costs in the pipeline.
struct FgCosts {
  FgPacket first, rest;  // lane group 0 (fetches, reads predicates) and the others
  unsigned words = 2;    // instruction width in 32-bit words, fetched one per cycle over the 32-bit bus
  // Stage with a per-thread memory phase (gather in read, scatter in write), or kFgStages for none.
  unsigned mem_stage = kFgStages;
  unsigned mem_words = 1;   // 32-bit words per thread (the byte-wide controller moves one word at a time)
  // PTX the G80 code FlexGripPlus runs has as an operand of its consumer (ld.param, %ctaid/%ntid/
  // %nctaid, cvta): no packet of its own (sm.fold_operands).
  bool folded = false;
};

// The costs of `in` on an SM whose warps pass in `packets` lane groups.
FgCosts flexgrip_costs(const isa::Inst& in, unsigned packets, bool fold_operands);

// Per-thread cost of the memory phase (global_memory_controller around the byte-wide
// memory_controller): a cycle to enable the controller, the word's access (idle + one cycle per byte
// on chip; a transaction through the arbiter for global memory), a cycle to see it done; a
// masked-off thread costs one cycle.
constexpr unsigned kFgThreadEnable = 1, kFgThreadDetect = 1;
constexpr unsigned kFgMaskedThread = 1;

// Cycles the SMP controller spends setting up a batch: block headers and parameters into shared
// memory, R0 (thread id) of every thread, the warp pool.
uint64_t flexgrip_setup_cycles(unsigned blocks, unsigned threads_per_block, unsigned param_words, unsigned warps);
// From the last packet leaving the warp checker to the SM's done: the scheduler sees every warp finished.
constexpr unsigned kFgBatchEnd = 3;

// Stage occupancy of the pipeline: when each stage can take its next packet.
class FlexgripPipeline {
 public:
  // A packet on its way through the stages: the cycle it is available to stage `next`.
  struct Cursor {
    uint64_t t = 0;
    unsigned next = 0;
  };
  void reset(uint64_t t);
  // Starts the packet's next stage (at the packet's cycle or when the stage frees, whichever is
  // later; the stage before it is free one cycle after) and returns the start cycle.
  uint64_t start(Cursor& c);
  void finish(Cursor& c, uint64_t end);
  // Runs the packet through its stages below `until` at their fixed occupancy.
  void run(Cursor& c, const FgPacket& p, unsigned until);
  uint64_t free_at(unsigned stage) const { return free_[stage]; }
  uint64_t hash(uint64_t h) const;

 private:
  uint64_t free_[kFgStages] = {};
};

}  // namespace gpuvp::sm
