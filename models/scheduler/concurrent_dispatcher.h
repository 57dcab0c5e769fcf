#pragma once
// Concurrent-kernel dispatcher of the tk1 and tx2 presets (docs/concurrent-kernels.md):
// the work queues (work_queues.h: G1-G4, X1, C1-C4, N1-N2, A1-A2), the
// SMs' free resources (sm_room.h: R1-R3) and most-room placement. It hands blocks to SMs one at a time
// (BlockTarget) and learns of each block's completion (BlockDoneSink); copies go to the copy engine.
//
// Timing: the dispatcher evaluates at clock edges. At an edge it takes what happened strictly before
// it (submissions, block and copy completions: inputs sampled at an edge, as a flip-flop samples
// them, so the order of processes within an instant never matters), then assigns blocks of the head
// kernel while an SM has room, one block per scheduler.dispatch_cycles cycles (0: every block that
// fits at once), then starts the head copy if the copy engine is free.
#include <systemc>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/common/clock.h"
#include "models/common/gpu_work.h"
#include "models/common/params.h"
#include "models/common/registry.h"
#include "models/scheduler/recorded_table.h"
#include "models/scheduler/sm_room.h"
#include "models/scheduler/work_queues.h"

namespace gpuvp {

struct ConcurrentDispatcherConfig {
  unsigned num_sms = 1;
  Clock clock;
  SmLimits limits;              // every SM's resources (the platform reads them from the SMs)
  unsigned slots = 64;          // work table entries (kernels, copies, events in flight)
  unsigned events = 64;
  unsigned dispatch_cycles = 1; // cycles per block assignment
  unsigned sm_sets = 64;        // SM sets (set 0: every SM, fixed)
  std::string path = "gpu.sched";

  static ConcurrentDispatcherConfig from(const Params& p, unsigned num_sms, const Clock& clk, const SmLimits& lim);
};

// What the host submits: a work item and, for a kernel, its description; for a copy, its job.
struct Submission {
  WorkItem item;
  // Submissions at the same instant join the queues in this order (the host's thread and call order),
  // not in the order the simulator happened to run the host threads.
  uint64_t order = 0;
  std::shared_ptr<const KernelDesc> kernel;
  std::shared_ptr<CopyJob> copy;
  // A kernel: the grid's blocks it runs are [first_block, first_block + item.blocks) (a sub-kernel
  // runs a range; the blocks keep their indices in the grid), and only on the SMs of SM set `sm_set`.
  uint64_t first_block = 0;
  uint32_t sm_set = 0;
};

class ConcurrentDispatcher : public sc_core::sc_module,
                             public BlockDoneSink,
                             public CopyDoneSink,
                             public ConcurrentHorizon {
 public:
  ConcurrentDispatcher(sc_core::sc_module_name name, const ConcurrentDispatcherConfig& cfg, Registry& reg);
  SC_HAS_PROCESS(ConcurrentDispatcher);

  void connect_sm(unsigned i, BlockTarget& sm) { sms_.at(i) = &sm; }
  void connect_copy_engine(CopyTarget& ce) { ce_ = &ce; }
  // Called when a kernel's last block, a copy or an event record completed (simulated instant, ps).
  std::function<void(const WorkItem& w, uint64_t ps)> on_done;
  // The earliest instant (ps) at which the host may submit a kernel (its launch calls take the driver's
  // latency); unset: it may at any time.
  std::function<uint64_t()> host_lookahead;
  // Called when a block is handed to an SM (observers: statistics, fault-injection triggers).
  std::function<void(unsigned sm, const BlockWork& b)> on_assign;

  // G1 from the host side (a thread): false when the work table is full (wait for slot_freed()).
  bool submit(const Submission& s);
  const sc_core::sc_event& slot_freed() const { return freed_; }
  // Why `k` can never run on this GPU ("" if it can): the block needs more than an empty SM has.
  std::string never_fits(const KernelDesc& k) const;

  void block_done(unsigned sm, const BlockWork& w) override;
  // ConcurrentHorizon: while a kernel's blocks are being handed out, the next assignment slot; when
  // only a new launch can bring blocks, the host's lookahead; when a queued kernel waits for a
  // completion anywhere, kUnknown.
  uint64_t no_assignment_before_ps() const override;
  void copy_done(uint32_t slot) override;

  // SM set `set` (1 .. sm_sets-1) is now the SMs whose bits are set in `sms` (bit i: SM i), sampled at
  // the next edge as every input is (before submissions of the same instant). Blocks handed out from
  // then on go to these SMs only; blocks already running finish where they are.
  // Throws std::invalid_argument for set 0, a set out of range, no SM or an SM the GPU lacks.
  void set_sm_set(uint32_t set, uint64_t sms);
  uint64_t sm_set(uint32_t set) const;  // the SMs a kernel of this set may use now
  unsigned sm_sets() const { return unsigned(set_sms_.size()); }

  const WorkQueues& queues() const { return queues_; }
  // The inputs waiting for the next edge and the next assignment slot, relative to `now` (ps)
  // (Registry::add_timing).
  uint64_t timing_digest(uint64_t now) const;
  uint64_t blocks_dispatched() const { return dispatched_; }

 private:
  void edge();                  // SC_METHOD at the clock edges where something may change
  void wake();                  // evaluate at the next edge strictly after now
  bool assign_one();            // one block of the first kernel that may take one (pick)
  // The kernel whose next block may be assigned now and the SM it goes to (-1, -1: none).
  std::pair<int, int> pick() const;
  uint64_t all_sms() const;
  void settle_and_report();
  void done(int slot);
  void note_set_reads(uint64_t now_ps);  // access recording of the SM sets (while recording)
  BlockNeeds needs(const KernelDesc& k) const;

  ConcurrentDispatcherConfig cfg_;
  WorkQueues queues_;
  SmRoom room_;
  std::vector<BlockTarget*> sms_;
  CopyTarget* ce_ = nullptr;
  std::vector<Submission> work_;                  // per slot
  // Inputs since the last edge, with the instant (ps) they came.
  struct Input {
    uint64_t at;
    enum { Submit, Block, Copy, SetSms } what;
    unsigned sm;
    BlockWork block;
    uint32_t slot;  // Copy: its slot; SetSms: the set
    Submission sub;
    uint64_t sms = 0;  // SetSms
  };
  std::vector<Input> inputs_;
  unsigned staged_submissions_ = 0;
  void take(const Input& in);
  EdgeTimer timer_;
  sc_core::sc_event freed_;
  uint64_t dispatched_ = 0;
  uint64_t next_assign_ = 0;    // first cycle the next block may be assigned
  RecordedTable<uint64_t> set_sms_;  // per SM set: its SMs (registered: <path>.sm_set.sms[i])
  std::map<uint32_t, uint64_t> set_read_from_;  // sets a kernel in an EE queue reads, since when (ps)
};

}  // namespace gpuvp
