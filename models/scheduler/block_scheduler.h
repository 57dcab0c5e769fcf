#pragma once
// Block scheduler (block-scheduler.md), SystemC model of the pin-level interface that the
// Verilated RTL (rtl/) implements too. The platform picks one (scheduler.impl = model | rtl).
//
// ---------------------------------------------------------------------------------------------
// Pins (BlockDispatcher; S = number of SMs, 1..64)
// ---------------------------------------------------------------------------------------------
//   in : rst (synchronous, active high), en (start; level, sampled only in IDLE)
//        cfg_blocks_per_core, cfg_grid_x, cfg_grid_y, cfg_grid_z, cfg_block_x, cfg_block_y,
//        cfg_block_z, cfg_shmem_size, cfg_dyn_shmem_size, cfg_param_size   (uint32_t, from the
//        configuration block; sampled at the edges where they are used)
//        smp_done[S]          (bool, pulse of >= 1 cycle per SM and batch)
//   out: rdy, kernel_done (one-cycle pulse)
//        num_blocks[S], block_idx[S] (uint32_t), smp_en[S], smp_reset[S] (one-cycle pulses)
//        block_x, block_y, block_z, grid_x, grid_y, grid_z, threads_per_block, shmem_per_block
//        (uint32_t, latched in CHECK_BLOCKS)
//
// ---------------------------------------------------------------------------------------------
// Registers (registry names under <path>, widths); every output is one of these flip-flops
// ---------------------------------------------------------------------------------------------
//   state 3 (0 IDLE, 1 CALC_BLOCKS, 2 CHECK_BLOCKS, 3 SCHEDULE_BLOCKS, 4 SCHEDULE_WAIT; 5..7
//   behave as IDLE), blocks_scheduled_cnt 32, num_blocks[i] 8 (one target per SM, decimal index:
//   <path>.num_blocks[3]), smp_done_array S, block_idx[i] 32 (per SM), block_x,
//   block_y, block_z, grid_x, grid_y, grid_z 16, threads_per_block 32, shmem_per_block 32, rdy 1
//   (reset 1), kernel_done 1, smp_en S, smp_reset S, prng 64 (Random policy only; reset = seed).
//   Inputs are truncated: blocks_per_core to 8 bits, dims to 16 bits, grid_dimension =
//   grid_x*grid_y*grid_z (grids above 2^32-1 blocks are not supported).
//
// ---------------------------------------------------------------------------------------------
// Next-state equations at a rising edge (inputs = values sampled at that edge; pulses default 0)
// ---------------------------------------------------------------------------------------------
//   rst:             every register to its reset value.
//   IDLE:            rdy'=1, cnt'=0; if en: rdy'=0, state'=CALC_BLOCKS.
//   CALC_BLOCKS:     if cnt >= grid_dimension: kernel_done'=1, rdy'=1, state'=IDLE.
//                    else num_blocks' = batch_counts(policy, ...), (Random: prng' = step(prng)),
//                    state'=CHECK_BLOCKS.
//   CHECK_BLOCKS:    latch block/grid dims, threads_per_block = bx*by*bz,
//                    shmem_per_block = roundup256(16 + shmem + dyn_shmem + 4*param_size),
//                    block_idx[i]' = cnt (+ range offset for fill policies), state'=SCHEDULE_BLOCKS.
//   SCHEDULE_BLOCKS: cnt' = cnt + sum(num_blocks); smp_en'[i] = num_blocks[i] != 0;
//                    smp_done_array' = 0; state'=SCHEDULE_WAIT.
//   SCHEDULE_WAIT:   smp_done_array' = smp_done_array | smp_done;
//                    if popcount(smp_done_array) == #active && #active != 0 (the register value,
//                    i.e. dones latched at earlier edges): smp_reset'[i] = num_blocks[i] != 0,
//                    state'=CALC_BLOCKS. (#active = SMs with num_blocks != 0; blocks_per_core = 0
//                    therefore hangs in SCHEDULE_WAIT, as the RTL does.)
//
// ---------------------------------------------------------------------------------------------
// Cycle timing (edges at k*T; an input changing in [(k-1)T, kT) is sampled at edge k; outputs
// computed at edge k change at kT)
// ---------------------------------------------------------------------------------------------
//   en sampled at edge k        -> rdy low at kT, num_blocks at (k+1)T, launch outputs and
//                                  block_idx at (k+2)T, smp_en high during [(k+3)T, (k+4)T).
//   last smp_done sampled at d  -> smp_reset high during [(d+1)T, (d+2)T);
//                                  more blocks: next smp_en high during [(d+4)T, (d+5)T);
//                                  grid done: kernel_done high during [(d+2)T, (d+3)T), rdy high
//                                  from (d+2)T.
//   A one-batch kernel with en sampled at k and smp_done sampled at d: kernel_done at (d+2)T.
//
// Clock gating: the process sleeps until an input changes (or a registry write) and evaluates at
// the next edge strictly after now; after an evaluation it schedules the next edge only if that
// edge would change a register with the inputs as they are. In IDLE and SCHEDULE_WAIT with
// stable inputs nothing is evaluated; the model stays cycle-exact with an RTL evaluating every edge.
//
// ---------------------------------------------------------------------------------------------
// Policies: the order in which SMs receive blocks, and the per-SM counts of a batch
// ---------------------------------------------------------------------------------------------
//   RoundRobin (default, the spec): order 0..S-1; balanced counts: all blocks_per_core when
//              remaining >= S*bpc, else q = rem/S, r = rem%S, SMs 0..r-1 get q+1, others q.
//   Ordered:   order 0..S-1; fill: each SM in order takes min(bpc, blocks left) (SM 0 first).
//   EvenOdd:   order 0,2,4,...,1,3,5,...; fill in that order (even SMs first, then odd).
//   Random:    a permutation of 0..S-1 drawn per batch from the prng register (splitmix64,
//              seeded by config.seed); fill in that order.
//   Block identity: a batch starting at b = blocks_scheduled_cnt covers b .. b + sum - 1.
//   RoundRobin (the spec): block_idx[i] = b for every SM and SM k runs b+k, b+k+S, b+k+2S, ...
//   Fill policies: SM i runs the contiguous range block_idx[i] .. block_idx[i] + num_blocks[i] - 1,
//   the ranges in SM-id order (block_idx[i] = b + sum of num_blocks[k] for k < i). The SM side
//   only needs its own block_idx, num_blocks and whether the policy interleaves. The concurrent-kernel dispatcher (tx2-scheduling.md) is another BlockDispatcher.
#include <systemc>

#include <cstdint>
#include <string>
#include <vector>

#include "models/common/clock.h"
#include "models/common/launch_signals.h"
#include "models/common/params.h"
#include "models/common/registry.h"

namespace gpuvp {

// The values are the RTL's `policy` strap encoding (rtl/block_scheduler.sv): keep them in step.
enum class SchedPolicy : uint8_t { RoundRobin = 0, Ordered = 1, EvenOdd = 2, Random = 3 };
SchedPolicy parse_sched_policy(const std::string& s);  // "round_robin"|"rr", "ordered", "even_odd", "random"
const char* to_string(SchedPolicy p);
// Whether SM k of a batch runs blocks b+k, b+k+S, ... (true) or a contiguous range (block identity above).
bool interleaves_blocks(SchedPolicy p);

// The SM handshake and configuration pins shared by every block dispatcher (this model, the
// Verilated RTL wrapper, a future concurrent-kernel dispatcher).
class BlockDispatcher : public sc_core::sc_module {
 public:
  sc_core::sc_in<bool> rst{"rst"};
  sc_core::sc_in<bool> en{"en"};
  LaunchConfigPins<InPin> launch{"cfg_"};  // from the configuration block
  sc_core::sc_vector<sc_core::sc_in<bool>> smp_done;

  sc_core::sc_out<bool> rdy{"rdy"};
  sc_core::sc_out<bool> kernel_done{"kernel_done"};
  sc_core::sc_vector<sc_core::sc_out<uint32_t>> num_blocks;
  sc_core::sc_vector<sc_core::sc_out<uint32_t>> block_idx;
  sc_core::sc_vector<sc_core::sc_out<bool>> smp_en;
  sc_core::sc_vector<sc_core::sc_out<bool>> smp_reset;
  LaunchDimsPins<OutPin> dims;          // latched launch dimensions, to every SM

  BlockDispatcher(sc_core::sc_module_name name, unsigned num_sms)
      : sc_core::sc_module(name),
        smp_done("smp_done", num_sms),
        num_blocks("num_blocks", num_sms),
        block_idx("block_idx", num_sms),
        smp_en("smp_en", num_sms),
        smp_reset("smp_reset", num_sms) {}
  unsigned num_sms() const { return static_cast<unsigned>(smp_done.size()); }
  // Phase entries (fault-campaign markers) and the batch log, records per batch: kept only when
  // asked (default on), so that a huge grid grows no memory.
  void record_history(bool on) { record_history_ = on; }

 protected:
  bool record_history_ = true;
};

struct BlockSchedulerConfig {
  unsigned num_sms = 1;
  Clock clock;
  SchedPolicy policy = SchedPolicy::RoundRobin;
  uint64_t seed = 1;             // Random policy
  std::string path = "gpu.sched";  // registry prefix and log module

  // The scheduler's parameters (block_scheduler_params.cc); the wiring decides SM count and clock.
  static BlockSchedulerConfig from(const Params& p, unsigned num_sms, const Clock& clk);
};

enum class SchedPhase { Idle, Configuration, Dispatch, Wait, Exchange };
const char* to_string(SchedPhase p);
// The phase a scheduler is in, from its state register and whether it pulses smp_reset (the model's
// and the RTL's flip-flops, so both report the same phases).
SchedPhase phase_of_state(unsigned state, bool smp_reset);

struct PhaseMark {
  SchedPhase phase;
  uint64_t cycle;  // edge at which the phase was entered
};

struct BatchRecord {
  uint64_t kernel = 0;               // kernels started before this one (0-based)
  uint32_t first_block = 0;          // block_idx of the batch
  std::vector<uint32_t> num_blocks;  // per SM
  std::vector<unsigned> order;       // policy order of the SMs in this batch
  uint64_t dispatch_cycle = 0;       // edge at which smp_en rose
};

struct SchedulerStats {
  uint64_t kernels_started = 0;
  uint64_t kernels_done = 0;
  uint64_t batches = 0;
  uint64_t blocks = 0;
  uint64_t evaluations = 0;            // edges evaluated (clock-gating efficiency)
  uint64_t phase_cycles[5] = {0, 0, 0, 0, 0};  // cycles spent per SchedPhase (closed intervals)
  std::vector<PhaseMark> phases;       // phase entries in time order (fault-campaign markers)
  std::vector<BatchRecord> batch_log;
};

class BlockScheduler : public BlockDispatcher {
 public:
  enum State : uint8_t { IDLE = 0, CALC_BLOCKS = 1, CHECK_BLOCKS = 2, SCHEDULE_BLOCKS = 3, SCHEDULE_WAIT = 4 };

  struct Regs {
    uint8_t state = IDLE;
    uint32_t cnt = 0;  // blocks_scheduled_cnt
    std::vector<uint32_t> num_blocks;
    uint64_t done_array = 0;
    std::vector<uint32_t> block_idx;  // per SM: its first block of the batch
    uint32_t bx = 0, by = 0, bz = 0, gx = 0, gy = 0, gz = 0;
    uint32_t tpb = 0, shmem = 0;
    bool rdy = true, kernel_done = false;
    uint64_t smp_en = 0, smp_reset = 0;
    uint64_t prng = 0;
    bool operator==(const Regs& o) const;
    bool operator!=(const Regs& o) const { return !(*this == o); }
  };
  struct Inputs {
    bool rst = false, en = false;
    uint32_t bpc = 0, gx = 0, gy = 0, gz = 0, bx = 0, by = 0, bz = 0, shmem = 0, dyn = 0, param = 0;
    uint64_t done = 0;
  };

  BlockScheduler(sc_core::sc_module_name name, const BlockSchedulerConfig& cfg, Registry& reg);
  SC_HAS_PROCESS(BlockScheduler);

  const BlockSchedulerConfig& config() const { return cfg_; }
  const Regs& regs() const { return r_; }
  const SchedulerStats& stats() const { return stats_; }
  SchedPhase phase() const { return phase_of(r_); }
  Regs next(const Regs& r, const Inputs& in) const;  // the documented next-state function

  // --- Policy helpers (pure) ---
  static uint32_t compute_shmem_per_block(uint32_t shmem, uint32_t dyn_shmem, uint32_t param_words);
  // SM order of a batch; prng is the prng register value after the batch's step (Random only).
  static std::vector<unsigned> policy_order(SchedPolicy p, unsigned num_sms, uint64_t prng);
  // Per-SM counts (indexed by SM id) of a batch with `remaining` blocks left.
  static std::vector<uint32_t> batch_counts(SchedPolicy p, unsigned num_sms, uint32_t bpc, uint64_t remaining,
                                            const std::vector<unsigned>& order);
  // Linear block indices SM `sm` runs in a batch starting at `first` (dealing rule above).
  // The linear block indices SM `sm` runs in a batch that starts at `first` (see Block identity).
  static std::vector<uint64_t> blocks_of_sm(SchedPolicy p, const std::vector<uint32_t>& counts, uint64_t first,
                                            unsigned sm);
  static uint64_t prng_step(uint64_t s);

 private:
  void process();
  Inputs sample() const;
  void drive();
  void account(const Regs& before, const Regs& after, uint64_t cycle);
  SchedPhase phase_of(const Regs& r) const;
  void wake() { wake_ev_.notify(sc_core::SC_ZERO_TIME); }
  void track_accesses(Registry& reg);
  void note_accesses(const Regs& r, const Regs& x, const Inputs& in, uint64_t t_ps);

  BlockSchedulerConfig cfg_;
  unsigned n_;
  uint64_t all_;
  Regs r_, reset_;
  sc_core::sc_event wake_ev_;
  EdgeTimer edge_;
  SchedulerStats stats_;
  SchedPhase cur_phase_ = SchedPhase::Idle;
  uint64_t phase_since_ = 0;
  std::vector<unsigned> batch_order_;
  // Access recording: the registry, the targets whose reads next() and the SMs make visible, those read
  // at every instant (state every edge; rdy, kernel_done, smp_en and smp_reset by consumers reacting to
  // any change of their signals), and the edge the current wait phase began at.
  Registry& reg_;
  const Target *t_cnt_ = nullptr, *t_done_ = nullptr, *t_shmem_ = nullptr, *t_tpb_ = nullptr, *t_prng_ = nullptr;
  std::vector<const Target*> t_nb_, t_bidx_, t_dims_;  // dims: block x, y, z, grid x, y, z
  uint64_t wait_from_ps_ = 0;
};

}  // namespace gpuvp
