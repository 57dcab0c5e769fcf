#pragma once
// Everything an SM needs to know about its platform. SmConfig::from reads the SM's own parameters
// (sm_params.cc); the platform fills in what the wiring decides (id, SM count, clock, block identity).
#include <cstdint>
#include <string>
#include <vector>

#include "models/common/clock.h"
#include "models/common/params.h"
#include "models/sm/sm_caches.h"

namespace gpuvp {

struct SmLatencies {
  // Cycles a warp waits for its result after issue, per instruction class.
  unsigned alu = 4;       // integer/fp32 add, logic, compare, mov, cvt
  unsigned mul = 4;       // integer multiply, mad, fma
  unsigned fp64 = 8;
  unsigned sfu = 16;      // sqrt, rsqrt, rcp, sin, cos, ex2, lg2, div, rem
  unsigned shared = 4;    // shared memory access
  unsigned branch = 2;
  unsigned barrier = 2;
  unsigned atomic = 4;    // extra cycles of a read-modify-write at the memory
};

// Which ready warp issues next (models/sm/warp_scheduler.h).
enum class WarpPolicy : uint8_t {
  RoundRobin = 0,  // "rr": the next ready warp after the last one that issued
  Gto = 1,         // "gto": greedy-then-oldest: keep issuing from the last warp while it is ready
  StrictRoundRobin = 2,  // "rr_strict": warp ids in turn, waiting for the next one (FlexGripPlus)
};
WarpPolicy parse_warp_policy(const std::string& s);  // "rr" | "gto" | "rr_strict"

// Execution unit class an instruction occupies under issue timing (docs/sm.md, "Issue timing").
enum class UnitClass : uint8_t { Lanes = 0, Fp64, Sfu, Ldst, None, Count };

// What an instruction is, for the per-class counts (SmStats::inst_class; inst_class.h classifies).
enum class InstClass : uint8_t {
  Int = 0, Fp32, Fp64, Sfu, Move, Global, Const, Param, Shared, Local, Atomic, Control, Barrier, WarpLevel, Other,
  Count
};
const char* inst_class_name(InstClass c);  // "int", "fp32", ... (statistics keys)

// Why a warp scheduler issued nothing in a cycle (SmStats::SchedulerStats::stall_cycles).
enum class StallReason : uint8_t {
  NoWarp = 0,   // no live warp resident on the scheduler
  Fetch,        // the picked warp's instruction is being fetched
  PendingLoad,  // waiting for the data of a global/constant load (or an atomic's old value)
  Dependency,   // waiting for the latency of an earlier instruction (arithmetic, shared, branch)
  UnitBusy,     // the instruction's execution unit is busy with earlier instructions
  Barrier,      // every live warp waits at a barrier
  MemoryPort,   // memory structural hazard: a transaction waits for its port, or the loads in flight are at their bound
  Nanosleep,    // the warp sleeps
  Count
};
const char* stall_reason_name(StallReason r);  // "no_warp", "fetch", ...

// How the core times an instruction (docs/sm.md, "Timing").
enum class SmTiming : uint8_t {
  Issue = 0,     // "issue": warp schedulers, execution units, a latency per instruction class (simt_core_issue.cc)
  Flexgrip = 1,  // "flexgrip": the FlexGripPlus five-stage pipeline, packet by packet (flexgrip_pipeline.h)
};

struct SmConfig {
  unsigned id = 0;
  unsigned num_sms = 1;
  unsigned warp_size = 32;
  unsigned sps = 8;                     // SPs (CUDA cores) per SM, split evenly between the warp schedulers
  // Issue timing (docs/sm.md, "Issue timing"): warp schedulers, each with sps/schedulers lanes and the
  // warps of slots s, s + schedulers, ...; instructions one warp may issue per scheduler and cycle.
  unsigned schedulers = 1;
  unsigned dispatch = 1;
  // Execution units per SM of the classes that are not the schedulers' lanes (0: the class runs on the
  // lanes, as everything does by default), split evenly between the schedulers.
  unsigned units_fp64 = 0, units_sfu = 0, units_ldst = 0;
  Clock clock{100.0};
  unsigned max_threads = 2048;          // resident threads per SM
  unsigned max_threads_per_block = 1024;
  unsigned max_blocks = 8;              // resident blocks per SM (hardware limit)
  unsigned registers = 65536;           // 32-bit registers per SM
  uint32_t shared_bytes = 16384;        // shared memory per SM
  uint32_t shared_per_block = 16384;    // max shared memory per block
  unsigned ibuf_insts = 64;             // instruction buffer (instructions); 0 = fetch every instruction
  SmCaches caches;                      // L1 data, constant, instruction caches (sm_caches.h); none by default
  SmLatencies lat;
  // Global memory access shape: lane by lane (flexgrip: one transaction per active lane, served in
  // lane order) or coalesced into aligned segments of `coalesce_bytes` (tk1/tx2).
  bool coalesce = false;
  unsigned coalesce_bytes = 32;
  // Block identity of a batch (block-scheduler.md): interleaved b+id+j*num_sms (round robin), or a
  // contiguous range b+j from this SM's own block_idx (the fill policies).
  bool interleaved_blocks = true;
  // The concurrent-kernel mode: blocks come one at a time from the dispatcher (models/common/gpu_work.h),
  // not in batches over smp_en.
  bool concurrent = false;
  WarpPolicy warp_policy = WarpPolicy::RoundRobin;
  SmTiming timing = SmTiming::Issue;
  bool fold_operands = false;           // flexgrip: PTX that G80 code has as operands takes no packet
  // Issue timing: global/constant loads a warp may have in flight while it issues independent
  // instructions (docs/sm.md, "Scoreboard"); 0: a warp waits for each load's data.
  unsigned max_pending_loads = 0;
  // Issue timing: banks of 4-byte words of the shared memory (docs/sm.md, "Shared memory banks"); a warp
  // access replays once per extra distinct word in its busiest bank. 0: no bank model (a flat latency).
  unsigned shared_banks = 0;
  // Whether the SM keeps its per-instruction statistics (SmStats: scheduler cycles and stalls,
  // instruction classes, per-launch shares, resident warps, shared accesses); false leaves them 0 and
  // spares their bookkeeping (host-time measurements). Totals of instructions are always kept.
  bool statistics = true;
  uint32_t max_local_bytes = 16384;     // per-thread local memory limit
  // Per-thread call stack of kernels that reach recursive functions: the runtime adds it to their
  // local memory (docs/sm.md, "Call stack"); the SM names it when a call overflows.
  uint32_t stack_bytes = 1024;

  // The SM's parameters of instance `p` (sm.* or gpu.smN.*).
  static SmConfig from(const Params& p);
};

// Per-block record for timelines (start/end/SM of every block).
struct BlockRecord {
  uint64_t launch_id = 0;
  uint64_t block = 0;  // linear block index
  unsigned sm = 0;
  uint64_t start_ps = 0;
  uint64_t end_ps = 0;
};

struct SmStats {
  // Shared memory (docs/statistics.md): warp accesses that reached it, and the bank-conflict replays
  // (transactions beyond one per phase) with the LSU cycles they held.
  struct Shared {
    uint64_t accesses = 0;
    uint64_t replays = 0;
    uint64_t replay_cycles = 0;
  };
  // Per warp scheduler (issue timing): every cycle the SM holds a block is a cycle of each scheduler,
  // either an issue cycle or a stall cycle of exactly one reason (cycles = issue_cycles + stalls).
  struct Scheduler {
    uint64_t cycles = 0;        // cycles with at least one resident block (issue cycles available)
    uint64_t issue_cycles = 0;  // cycles spent dispatching (warp_size / lanes cycles per instruction)
    uint64_t warp_insts = 0;    // instructions issued
    uint64_t dual_issued = 0;   // of which issued as the second of a pair in the same cycle
    uint64_t stall_cycles[size_t(StallReason::Count)] = {};
  };
  std::vector<Scheduler> schedulers;
  unsigned dispatch = 1;              // instructions a scheduler may issue per cycle
  unsigned issue_cycles_per_inst = 1; // cycles an instruction holds its scheduler (warp_size / lanes)
  // Per kernel launch that ran on the SM: the blocks and warps of it an empty SM holds at once and
  // the resource that bounds them ("blocks", "warp_slots", "threads", "registers", "shared_memory"),
  // and the share of the SM's scheduler cycles, instructions and resident warps that was its
  // (docs/statistics.md, "Per launch": summed over the launches they equal the SM's).
  struct Launch {
    uint64_t launch_id = 0;
    unsigned blocks = 0, warps = 0;
    std::string limited_by;
    std::vector<Scheduler> schedulers;
    uint64_t thread_insts = 0;
    uint64_t warp_resident_cycles = 0;
    Shared shared;
    uint64_t inst_class[size_t(InstClass::Count)] = {};  // its warp instructions by class
    uint64_t blocks_run = 0;                             // its blocks this SM ran
  };
  std::vector<Launch> launches;
  Shared shared;
  uint64_t inst_class[size_t(InstClass::Count)] = {};  // warp instructions by class
  uint64_t warp_resident_cycles = 0;  // resident warps integrated over cycles (warps x cycles)
  uint64_t warp_insts = 0;
  uint64_t thread_insts = 0;     // active lanes summed over executed warp instructions
  uint64_t busy_ps = 0;          // time with at least one resident block
  uint64_t fetches = 0;          // instruction fetch transactions
  uint64_t mem_transactions = 0; // global/constant transactions issued
  uint64_t batches = 0;
  uint64_t blocks = 0;
};

}  // namespace gpuvp
