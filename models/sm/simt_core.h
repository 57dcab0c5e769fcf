#pragma once
// Functional SIMT core of one SM: resident blocks, their warps, the warp scheduler, shared and local
// memory, the instruction buffer and decode cache. It knows nothing about SystemC processes: time is
// a local SM cycle counter, and everything outside the SM (instruction fetch, constant and global
// memory) goes through CoreEnv, which the Sm module implements with TLM sockets and tests implement
// with plain arrays. See docs/sm.md.
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sw/isa/device_error.h"
#include "sw/isa/kernel_desc.h"
#include "models/common/print_sink.h"
#include "models/common/registry.h"
#include "models/memory/atomic_extension.h"
#include "models/sm/cluster_distributor.h"
#include "models/sm/block_room.h"
#include "models/sm/flexgrip_pipeline.h"
#include "models/sm/sm_config.h"
#include "models/sm/warp.h"
#include "sw/isa/isa.h"

namespace gpuvp {

// The SM's view of the platform. Each access starts at core cycle `at` and returns the cycle at
// which it completed (>= at), or kFail after filling `fault` (TLM error response).
class CoreEnv {
 public:
  static constexpr uint64_t kFail = ~uint64_t{0};
  enum class Port { Fetch, Const, GlobalRead, GlobalWrite, GlobalReadNc };  // Nc: ld.global.nc (read-only path)
  struct Fault {
    std::string kind;     // "address" or "tlm"
    std::string message;  // target's response, for the error message
  };
  virtual ~CoreEnv() = default;
  // Reads (write=false) or writes `len` bytes at absolute address `addr`. With `atomic` set the
  // access is a global atomic: one write transaction carrying the extension (data = operand in,
  // old value out).
  virtual uint64_t access(Port port, uint64_t addr, uint8_t* data, unsigned len, bool write,
                          AtomicExtension* atomic, uint64_t at, Fault& fault) = 0;
  // Reads `len` bytes without taking bus time (debug transport); false after filling `fault`.
  // Default: a timed read whose time is ignored.
  virtual bool peek(Port port, uint64_t addr, uint8_t* data, unsigned len, Fault& fault) {
    return access(port, addr, data, len, false, nullptr, 0, fault) != kFail;
  }
  // The instruction cache's copy of code (an SM with one): the bytes of [addr, addr + len) its valid
  // sectors hold, copied over `data`, without time. Default: no cache, data unchanged.
  virtual void fetch_view(uint64_t /*addr*/, uint8_t* /*data*/, unsigned /*len*/) {}
  // Whether every fetch must read the instruction cache's copy (fetch_view), not only the instruction
  // buffer's: its reads are recorded (lifetimes), so the buffer reports the reads a fault there would
  // meet. An injection into the cache says so itself (SimtCore::code_cache_written). Default: no.
  virtual bool fetch_watched() const { return false; }
  // While fetches are watched: what fetch_view's bytes and the reads it records follow from besides
  // its arguments (the recording instant, the cache's changes). Two views of one address under the
  // same known key copy the same bytes, the second recording nothing new. Default: unknown.
  struct ViewKey {
    bool known = false;
    uint64_t ps = 0, changes = 0;
    bool same(const ViewKey& o) const { return known && o.known && ps == o.ps && changes == o.changes; }
  };
  virtual ViewKey fetch_view_key() { return {}; }
  // Lets simulated time catch up with the core (quantum expiry, idle jumps). Default: nothing.
  virtual void sync(uint64_t /*at*/) {}
  // membar.gl / membar.sys at cycle `at`: what the SM's stores left in its caches becomes visible
  // beyond the SM (a write-back L1 writes its dirty lines back).
  virtual void fence(uint64_t /*at*/) {}
  // Every warp waits until core cycle `until` (memory latency, nanosleep): let simulated time pass
  // until then unless work arrives for the core first. Returns the cycle reached (<= until; == until
  // when nothing arrived). Only SimtCore::run_blocks calls it. Default: sync(until), return until.
  virtual uint64_t idle(uint64_t until) {
    sync(until);
    return until;
  }
  // Work for the core arrived (concurrent mode: a block): run_blocks returns after a sync. Default: never.
  virtual bool work_waiting() const { return false; }
  // Concurrent mode: the first core cycle at which work may arrive, as far as the environment can tell
  // at core cycle `now` (simulated time having caught up with it); kUnknown (the default): it cannot
  // tell, and the core looks at a grid of its own cycles.
  static constexpr uint64_t kUnknown = ~uint64_t{0} - 1;
  virtual uint64_t no_arrival_before(uint64_t /*now*/) const { return kUnknown; }
  // Cycle at which the last access released its port. A pipelined memory (DRAM) returns data
  // later than that, so the next transaction of the same instruction can issue at the release.
  // kFail: unknown, the completion time is used.
  virtual uint64_t last_release() const { return kFail; }
  // The simulated instant now, in ps, for what the core does outside instructions (placing a block):
  // access recording reports it at the instant simulated time has (docs/campaigns.md, "Lifetimes").
  virtual uint64_t sim_ps() const { return 0; }
  // A line a thread printed (device printf). Default: dropped.
  virtual void print(DevicePrint /*line*/) {}
  // Bytes of text a line may have at most (the printf FIFO's size): longer ones are not made.
  virtual size_t print_capacity() const { return ~size_t{0}; }

  // The warp whose global accesses follow (block linear index << 16 | warp in block), set by the core
  // before them: the memory profiler counts the distinct warps touching each block.
  uint64_t warp_tag = 0;
};

// A kernel's launch as the SMP controller set it up (kernel_desc.h), with the linear indices of the
// blocks of one batch (launch) or none (add_block, one block at a time).
struct LaunchParams : KernelDesc {
  std::vector<uint64_t> blocks;
};

// Shared memory layout of a block (docs/sm.md): 16-byte header, parameters, then the user region
// (static shared, then dynamic) starting 16-byte aligned.
constexpr uint32_t kBlockHeaderBytes = 16;
// Nested calls a thread may make before it is stopped with a "stack" error.
constexpr size_t kMaxCallDepth = 64;
// Named barriers per block (bar.sync 0..15), as on the hardware the model follows.
constexpr unsigned kBarriers = 16;
inline uint32_t user_region_offset(uint32_t param_bytes) {
  return (kBlockHeaderBytes + param_bytes + 15u) & ~15u;
}

// One executed warp instruction, as a retire observer sees it (fault injection: instruction-output
// and functional-unit faults, which must strike at the exact instruction in the SM's own time, not at
// a simulated instant the SM has already run past). The observer may change the result: `values` are
// the 32 lanes of the first destination register as the instruction wrote them (for a global load
// whose data is still in flight, the values it will write when it completes), `pred` the first
// destination predicate's lane mask; both nullptr for an instruction without such a destination.
struct RetiredInst {
  uint64_t seq = 0;     // warp instructions this SM executed so far, this one included (1-based)
  uint64_t cycle = 0;   // core cycle it issued at (it may execute later: FlexGripPlus pipeline stages)
  const isa::Inst* in = nullptr;
  InstClass cls = InstClass::Other;
  UnitClass unit = UnitClass::None;
  unsigned warp = 0;    // warp slot (%warpid)
  uint32_t active = 0;  // lanes that executed it
  uint64_t* values = nullptr;
  uint32_t* pred = nullptr;
  // Where the warp's registers are (fault injection maps register-file words to warp, lane and PTX
  // register): the register file slot of its register 0, lane 0 (register r, lane l is slot
  // reg_base + r * 32 + l; registry word 2s is slot s's low half, 2s + 1 its high half), the kernel's
  // register slots per thread and entry address.
  uint64_t reg_base = 0;
  uint32_t num_regs = 0;
  uint64_t entry = 0;
};
class RetireObserver {
 public:
  virtual ~RetireObserver() = default;
  virtual void retired(RetiredInst& r) = 0;
};
namespace power {
class ActivityLog;  // models/power/activity.h
}

namespace sm {
// Why an instruction fetch returned nothing: a failed fetch transaction at `addr`, or undecodable bytes.
struct FetchError {
  bool decode = false;     // true: undecodable (why), false: fetch fault (fault, addr)
  CoreEnv::Fault fault;
  uint64_t addr = 0;
  std::string why;
};
class WarpScheduler;      // warp_scheduler.h
class InstructionBuffer;  // instruction_buffer.h
struct Exec;              // exec.h: one warp instruction in execution
struct OpEntry;           // exec.h: the handler of an opcode
}  // namespace sm

class SimtCore {
 public:
  SimtCore(const SmConfig& cfg, CoreEnv& env);
  ~SimtCore();
  SimtCore(const SimtCore&) = delete;
  SimtCore& operator=(const SimtCore&) = delete;

  // Batch mode: sets up the blocks of a batch of one kernel starting at core cycle `start`. False
  // (error() set, kind "resource") when the batch does not fit the SM.
  bool launch(const LaunchParams& lp, uint64_t start);
  // Runs until every warp exited (true) or a detected error stopped the batch (false).
  bool run();
  void clear();  // drops every block and the error (smp_reset)

  // Concurrent mode (docs/sm.md, "Concurrent kernels"): blocks of several kernels, added one at a
  // time while others run. Adds one block of kernel `k` (k->blocks is ignored) with linear index
  // `linear`, starting at core cycle `start` (>= now()): a block slot, contiguous warp slots,
  // register and predicate storage, shared memory (first fit) and local memory. False, with nothing
  // changed and no error, when the SM has not room for it now; false with a "resource" error when
  // no SM of this configuration runs such a block (parameters beyond the per-block limits, more
  // than an empty SM holds, flexgrip timing). A finished batch still resident is dropped first.
  bool add_block(std::shared_ptr<const LaunchParams> k, uint64_t linear, uint64_t start);
  // How many more blocks of `k` would fit now (the checks of add_block).
  unsigned room_for(const LaunchParams& k) const;
  // The resource one more block of `k` lacks now (for messages), or nullptr if it fits.
  const char* short_of(const LaunchParams& k) const;
  // Runs the resident warps until a block completed (its resources are free at once), no warp is
  // live, an error, or the environment interrupted an idle wait (CoreEnv::idle returned before its
  // target; now() is where it stopped). False only on an error.
  bool run_blocks();
  struct Completed {
    uint64_t launch_id, block, start, end;  // kernel, linear block index, core cycles
  };
  // The blocks run_blocks completed since the last call, in completion order.
  std::vector<Completed> take_completed();
  unsigned resident_blocks() const;

  uint64_t now() const { return now_; }
  const DeviceErrorInfo* error() const { return has_error_ ? &error_ : nullptr; }
  const SmStats& stats() const { return stats_; }
  SmStats& stats() { return stats_; }
  // Per-block start/end in core cycles of the resident blocks, by block slot (a batch: in launch order).
  struct BlockTimes {
    uint64_t block = 0;
    uint64_t start = 0, end = 0;
  };
  std::vector<BlockTimes> block_times() const;

  std::vector<uint8_t>& smem() { return smem_; }
  void set_quantum(uint64_t cycles) { quantum_ = cycles; }
  // The core never executes an instruction at or after core cycle `cycle` before simulated time
  // has caught up with it: whoever stops simulated time there (fault injection, a debugger) sees
  // the core's state as it is at that instant, not at the core's local time ahead of it.
  void set_horizon(uint64_t cycle) { horizon_ = cycle; }
  // What the core's future timing depends on beyond its registered state: its cycle and the cycle
  // each warp may issue again (state comparisons for early stops).
  uint64_t timing_hash() const;
  // Appends the issue cycle of every warp instruction to `log` (nullptr: off).
  void set_issue_log(std::vector<uint64_t>* log) { issue_log_ = log; }
  // Shows every executed warp instruction to `o` right after it executed (nullptr: off; one test per
  // instruction when off).
  void set_retire_observer(RetireObserver* o) { observer_ = o; }
  // Counts each warp instruction's energy events into `log` at its issue cycle (nullptr: off).
  void set_activity(power::ActivityLog* log);
  // Which lane cluster each warp instruction's activity is charged to (nullptr: the warp's slot modulo
  // the clusters). It never changes timing.
  void set_distributor(std::unique_ptr<sm::ClusterDistributor> d);

  // An injection wrote the instruction cache's arrays (their registry hook): from now on every fetch
  // reads the instruction's bytes through the cache (fetch_view), so the fault reaches decode as the
  // cache delivers it (instruction_buffer.h).
  void code_cache_written();

  // Registers the architectural state (register file, predicates, per-warp PCs, masks and
  // divergence groups) under `path` (simt_core_state.cc).
  void register_state(Registry& reg, const std::string& path);
  // The instant at which a stop is ordered against what the SM does for the core now (its caches'
  // accesses, its transactions; simt_core_access.cc): an executing instruction's, else the core's
  // instant outside instructions.
  uint64_t access_instant_ps() { return in_step_ ? inst_access_ps() : outside_access_ps(); }

  // Test access: register slot / predicate of thread `tid` (linear in block) of the block in slot `b`.
  uint64_t reg(unsigned b, unsigned tid, unsigned slot) const;
  bool pred(unsigned b, unsigned tid, unsigned slot) const;
  uint8_t* local(unsigned b, unsigned tid);

 private:
  friend struct sm::Exec;  // the instruction families (exec_*.cc) reach the core through it

  // A resident block (a slot of blocks_ with a kernel). Per-kernel state lives here, not in the
  // core: blocks of different kernels are resident at once.
  struct Block {
    std::shared_ptr<const LaunchParams> kernel;  // null: a free slot
    const LaunchParams* lp = nullptr;            // kernel.get(), for the hot paths
    sm::BlockShape k;                            // what the kernel's blocks need (threads, warps, layout)
    uint64_t linear = 0;
    uint64_t start = 0, end = 0;     // core cycles: added, last warp exited
    uint32_t stat = 0;               // its launch's entry in stats_.launches
    uint32_t smem_base = 0;          // offset of the block's region in smem_
    size_t reg_base = 0, pred_base = 0;  // offsets of its warps' storage in regfile_ / predfile_
    unsigned first_warp = 0, nwarps = 0, live_warps = 0;
    uint16_t bar_arrived[kBarriers] = {};   // warps waiting at barrier id
    uint16_t bar_expected[kBarriers] = {};
    uint32_t bar_threads[kBarriers] = {};   // bar.red: threads that arrived, and those whose predicate was true
    uint32_t bar_votes[kBarriers] = {};
    std::vector<uint8_t> local;      // threads * local_bytes
  };

  static constexpr unsigned kPredSlotsPerWarp = 32;  // predicate words per warp in the registry

  // Access recording (simt_core_access.cc; ACE and fault-space pruning): while the registry records,
  // the register file's and the predicates' reads and writes, per warp instruction operand with its
  // lanes, at the instant a stop (an injected fault) is ordered against them: an access is before a
  // stop at t exactly when its recorded instant is below t. The core may be ahead of simulated time
  // (the horizon then holds an instruction issued at or after t until the stop) or behind it (a
  // transaction's wait let simulated time, and a stop, pass while the core had not yet reached its
  // next issue cycle): an instruction's accesses are at max(issue instant, simulated time now).
  Registry* acc_reg_ = nullptr;
  Target* t_regs_ = nullptr;
  Target* t_preds_ = nullptr;
  uint64_t acc_floor_ps_ = 0;  // the latest instant an instruction's access was recorded at
  bool recording() const { return acc_reg_ && acc_reg_->recording(); }
  uint64_t inst_ps() const { return issue_cycle_ * period_ps_; }
  uint64_t inst_access_ps();
  uint64_t outside_access_ps() const;
  void note_reg(const Warp& w, unsigned r, uint32_t lanes, Access k, uint64_t ps, uint64_t until_ps = 0);
  void note_pred(const Warp& w, unsigned k, Access a, uint64_t ps, uint64_t until_ps = 0);
  void note_reads(const Warp& w, const isa::Inst& in, InstClass cls, uint32_t active, uint64_t ps, uint64_t until);
  void note_late_reads(const Warp& w, const isa::Inst& in, InstClass cls, uint32_t active, uint64_t from_ps);
  void note_writes(const Warp& w, const isa::Inst& in, InstClass cls, uint32_t active);
  void note_placement(const Block& b);
  void note_warp_slots_moved();
  // Shared memory (8-bit words, simt_core_access.cc): the block header the special registers read, the
  // on-chip lanes of loads, stores and atomics (shared and parameter space), placement, compaction.
  Target* t_smem_ = nullptr;
  void note_smem(uint64_t first, uint64_t n, Access k, uint64_t ps);
  void note_smem_lanes(uint32_t lanes, uint8_t* const* ptrs, unsigned size, Access k);
  void note_smem_ptr(const uint8_t* p, unsigned size, Access k);
  void note_header_read(const Warp& w, const isa::Inst& in, uint64_t ps, uint64_t until);
  // Warp control state (the same file): each warp slot's targets, the start of its open span of
  // scheduler reads of `state` (kNoSpan: none), and the instant the issuing instruction's frontier was read.
  struct WarpTargets {
    Target* pc = nullptr;
    Target* mask = nullptr;
    Target* ngroups = nullptr;
    Target* live = nullptr;
    Target* state = nullptr;
  };
  struct GroupSnapshot {  // a warp's groups before an instruction
    unsigned ngroups = 0;
    Group groups[32];
  };
  static constexpr uint64_t kNoSpan = ~uint64_t{0};
  std::vector<WarpTargets> t_warps_;
  std::vector<uint64_t> state_span_from_;
  uint64_t frontier_read_ps_ = 0;
  GroupSnapshot groups_before_;  // the executing instruction's warp's groups before it (while recording)
  const WarpTargets* warp_targets(const Warp& w) const { return w.id < t_warps_.size() ? &t_warps_[w.id] : nullptr; }
  uint64_t core_now_ps() const;
  void note_frontier(const Warp& w);
  void snapshot_groups(const Warp& w, GroupSnapshot& s) const;
  void note_groups(const Warp& w, unsigned gi, const GroupSnapshot& before);
  void note_live(const Warp& w, bool written);
  void note_warp_placed(const Warp& w, uint64_t ps);
  void close_state_span(unsigned slot, uint64_t ps);
  void close_state_spans();
  void note_warps_moved(const std::vector<std::pair<unsigned, unsigned>>& moves);

  // Launch and issue loop (simt_core.cc).
  unsigned max_warps() const;
  uint32_t* pred_word(uint64_t index);
  void register_warp(Registry& reg, const std::string& path, unsigned w);
  Warp* warp_in_use(uint64_t w);
  bool resource(const std::string& what);
  std::string block_limits(const LaunchParams& lp) const;
  std::string memory_limits(const LaunchParams& lp, const sm::BlockShape& s) const;
  bool fits(const LaunchParams& lp, const sm::BlockShape& s);
  void reset_files(size_t reg_slots, size_t pred_words);
  void grow_files(size_t reg_slots, size_t pred_words);
  void zero_block_regs(const Block& b);
  inline void mark_rows(const Warp& w, const isa::Inst& in);
  void compact();
  void place_block(std::shared_ptr<const LaunchParams> k, const sm::BlockShape& s, const sm::Placement& p,
                   uint64_t linear, uint64_t start);
  void init_shared(const Block& b);
  uint32_t record_occupancy(const LaunchParams& lp, const sm::BlockShape& s);
  void init_warps(unsigned j);
  // Issue timing (simt_core_issue.cc; docs/sm.md "Issue timing"): the warp schedulers in one cycle.
  enum class Outcome { Idle, Issued, Fetching, Held };
  struct Wake {
    uint64_t at;
    StallReason why;
    uint32_t who;  // the stats_.launches entry of the warp it waits for
  };
  bool issue_cycle(bool batch);
  Outcome try_issue(unsigned s);
  Outcome issue(int i, unsigned s);
  Outcome step(Warp& w, unsigned s);
  void execute_timed(Warp& w, unsigned gi, const isa::Inst& in, uint64_t pc, unsigned s, UnitClass unit,
                     InstClass cls);
  void dual_issue(Warp& w, unsigned s, const isa::Inst& first, uint64_t first_pc);
  uint64_t unit_wait(unsigned s, UnitClass u) const;
  unsigned book_unit(unsigned s, UnitClass u);
  void book_replays(unsigned s);
  void advance_after_issue();
  Wake wake(unsigned s, int picked) const;
  void wake_warp(const Warp& w);
  void count_until(unsigned s, uint64_t t);
  void start_schedulers(uint64_t start);
  void reset_picks();
  void issue_flexgrip(int i);
  bool wait_turn(int picked, bool batch);
  bool wait_until(uint64_t t, bool batch);
  uint64_t next_ready() const;
  void sync_now();
  // Concurrent mode: room, and freeing completed blocks (simt_core_blocks.cc).
  sm::Occupancy occupancy(bool with_resident, bool packed = false) const;
  std::string unrunnable(const LaunchParams& k) const;
  void warp_slots(size_t top);
  void free_warp(Warp& w);
  void release_block(unsigned j);
  const isa::Inst* fetch(Warp& w, uint64_t pc);
  const isa::Inst* fetched(Warp& w, uint64_t pc, const isa::Inst* in, const sm::FetchError& err, bool validated);
  bool validate(const isa::Inst& in, uint64_t pc, const LaunchParams& lp);
  // Scoreboard of issue timing (sm.max_pending_loads, scoreboard.cc; docs/sm.md "Scoreboard").
  // `bound`: the wait is for a free entry (max_pending_loads), not for a register.
  uint64_t scoreboard_wait(const Warp& w, const isa::Inst& in, bool* bound = nullptr) const;
  void defer_load(Warp& w, const isa::Inst& in, uint32_t m);
  void retire_due();
  void retire(uint64_t upto, uint64_t before);
  uint64_t next_completion() const;
  // cls: sm::classify(in).cls, which the caller has already worked out (once per warp instruction).
  bool execute(Warp& w, unsigned gi, const isa::Inst& in, uint64_t pc, InstClass cls);
  void notify_retired(Warp& w, const isa::Inst& in, uint32_t active, bool control);
  // FlexGripPlus pipeline timing (simt_core_flexgrip.cc).
  void step_flexgrip(Warp& w, unsigned gi, uint64_t pc);
  bool fg_fetch(Warp& w, uint64_t pc, const isa::Inst*& in);
  bool fg_packets(Warp& w);
  bool fg_threads(Warp& w, unsigned group, uint64_t& t);
  bool fg_memory(Warp& w, uint32_t m, unsigned size, bool write, CoreEnv::Port port);
  void fail(const std::string& kind, const std::string& what, const Warp* w, int lane, uint64_t addr);
  bool fault_at(const CoreEnv::Fault& f, const Warp& w, int lane, uint64_t addr);

  // Divergence, call/return, exit and barriers (exec_control.cc).
  void exit_lanes(Warp& w, Group& g, uint32_t lanes);
  void finish_warp(Warp& w);
  void do_call(Warp& w, const isa::Inst& in, Group& g, uint32_t m);
  void push_frame(Warp& w, const isa::Operand& end, uint64_t ret, uint32_t m);
  bool do_ret(Warp& w, const isa::Inst& in, Group& g, uint32_t m);
  bool pop_returns(Warp& w, const isa::Inst& in, uint32_t m, uint64_t* target, uint32_t* exiting);
  void arrive_barrier(Warp& w, unsigned id, bool counted, uint64_t count, uint32_t votes);
  void deliver_reduction(Warp& w, const Block& b, unsigned id);
  void check_barrier(Block& b, unsigned id);

  // Operand access (inline in exec.h; sreg in exec.cc).
  inline const uint64_t* src(const isa::Operand& o, Warp& w, uint32_t mask, uint64_t* scratch);
  inline uint64_t* dst(const isa::Operand& o, Warp& w, uint64_t* scratch);
  uint64_t sreg(isa::SReg r, const Warp& w, unsigned lane) const;
  inline uint32_t pred_mask(const isa::Operand& o, const Warp& w) const;
  inline void write_pred(const isa::Operand& o, Warp& w, uint32_t mask, uint32_t values);

  // Memory unit and coalescer (memory_unit.cc).
  void do_ld(Warp& w, const isa::Inst& in, uint32_t m);
  void do_st(Warp& w, const isa::Inst& in, uint32_t m);
  void do_atom(Warp& w, const isa::Inst& in, uint32_t m);
  // Resolves a per-lane address to a space; for shared/local returns a host pointer (nullptr + error).
  uint8_t* local_ptr(Warp& w, unsigned lane, isa::Space sp, uint64_t addr, unsigned size);
  bool mem_common(Warp& w, const isa::Inst& in, uint32_t m, int mi, unsigned size, uint32_t& gm,
                  uint32_t& cm, uint8_t** ptrs);
  bool shared_lanes(Warp& w, const isa::Operand& mo, uint32_t m, unsigned size, uint8_t** ptrs);
  // Shared memory banks (docs/sm.md, "Shared memory banks"): the lanes in m access shared memory.
  void shared_access(const Warp& w, uint32_t m, unsigned size);
  unsigned bank_transactions(uint32_t m, unsigned size, unsigned& phases) const;
  bool conflict_free(uint32_t pm) const;
  bool load_onchip(Warp& w, const isa::Inst& in, uint32_t m, uint8_t* const* ptrs);
  // Global/constant transactions of one instruction: `next` is when the next one can issue (its
  // port released), `ready` when the data of all of them is back.
  struct MemIssue {
    uint64_t next, ready;
  };
  // An aligned coalescing segment of `bytes` at `base`, the lanes accessing it, `size` bytes each.
  struct Segment {
    CoreEnv::Port port;
    uint64_t base;
    uint32_t lanes;
    unsigned bytes, size;
  };
  bool global_lanes(Warp& w, uint32_t m, unsigned size, bool write, CoreEnv::Port port);
  bool transact(CoreEnv::Port port, uint64_t addr, uint8_t* data, unsigned len, bool write, MemIssue& is,
                CoreEnv::Fault& f);
  bool read_segment(Warp& w, const Segment& s, uint64_t lo, uint64_t hi, MemIssue& is);
  bool write_segment(Warp& w, const Segment& s, uint64_t lo, uint64_t hi, MemIssue& is);
  bool transfer_pieces(Warp& w, const Segment& s, unsigned i, unsigned end, bool write, MemIssue& is);
  bool segment_fault(Warp& w, const Segment& s, uint64_t lo, uint64_t hi, const CoreEnv::Fault& whole,
                     uint64_t at_cycle, bool write);
  bool global_atomic(Warp& w, const isa::Inst& in, unsigned lane, unsigned size, uint64_t operand,
                     uint64_t compare, MemIssue& is, uint64_t& old);

  const SmConfig cfg_;
  CoreEnv& env_;
  // One policy instance per warp scheduler (flexgrip timing: one scheduler).
  std::vector<std::unique_ptr<sm::WarpScheduler>> policies_;
  struct Sched {
    uint64_t free = 0;  // first cycle it may issue again (dispatching, or its picked warp's fetch in flight)
    uint64_t acct = 0;  // its cycles are counted (SmStats::Scheduler) up to here
    // Per unit class: lane-cycles booked, cycle x lanes + lanes taken in that cycle (book_unit).
    uint64_t busy[size_t(UnitClass::Count)] = {};
    int last = -1;      // warp that issued last (the policy's state)
    // When it issued nothing: the first cycle one of its warps may issue (it is not looked at before;
    // a warp of it made ready sooner, by a barrier or a new block, brings this forward: wake_warp).
    uint64_t wake_at = 0;
    int pinned = -1;    // warp whose instruction is being fetched: it issues when the fetch is done
    const isa::Inst* pinned_inst = nullptr;
    uint64_t pinned_decodes = 0;  // the instruction buffer's decodes() then (pinned_inst valid while equal)
    StallReason why = StallReason::NoWarp;  // reason of the cycles from acct on, if it issues nothing
    uint32_t who = 0;   // the launch (stats_.launches entry) those cycles are charged to
  };
  std::vector<Sched> sched_;
  // The stats_.launches entry of the block that arrived last: a scheduler with no warp charges its
  // cycles to it (docs/statistics.md, "Per launch").
  uint32_t last_launch_ = 0;
  // Per unit class: the class whose lanes it uses (a class with no units of its own uses the lanes)
  // and the lanes each scheduler has of it (0: none, the instruction takes no unit).
  UnitClass unit_of_[size_t(UnitClass::Count)] = {};
  unsigned unit_lanes_[size_t(UnitClass::Count)] = {};
  std::unique_ptr<sm::InstructionBuffer> ibuf_;
  const sm::OpEntry* ops_;  // handler of every opcode, indexed by isa::Opcode (exec.cc)
  uint64_t cur_pc_ = 0;    // PC of the instruction being executed (error reports)
  unsigned lat_ = 0;       // latency class of the instruction being executed
  uint64_t done_at_ = 0;   // completion cycle of its memory accesses
  unsigned bank_replays_ = 0;  // its shared bank-conflict replays: cycles more it holds the LSU
  uint64_t period_ps_;
  unsigned issue_cycles_;
  uint64_t quantum_ = 20000;
  uint64_t horizon_ = ~uint64_t{0};
  // Concurrent mode: no block arrives before this cycle; the core syncs and looks for arrivals there.
  uint64_t arrivals_at_ = 0;
  uint64_t next_arrival_check() const;
  std::vector<uint64_t>* issue_log_ = nullptr;
  RetireObserver* observer_ = nullptr;
  uint64_t issue_cycle_ = 0;  // the cycle the executing instruction issued at (before its pipeline stages)
  power::ActivityLog* act_ = nullptr;
  std::unique_ptr<sm::ClusterDistributor> dist_;
  unsigned slot_modulus_ = 0;  // dist_->slot_modulus(): the default policy without a virtual call per instruction
  // Counter policies: each lane cluster's lanes are busy until cluster_free_[c] (cycles); a lane
  // instruction takes cluster_cycles_ of them (warp_size over the cluster's lanes). Empty otherwise.
  std::vector<uint64_t> cluster_free_;
  unsigned cluster_cycles_ = 1;
  int picked_cluster_ = -1;  // the cluster the issuing lane instruction was given (pick), else -1
  uint64_t issue_wait(const Warp& w, unsigned s, UnitClass u);
  unsigned book_cluster();
  void record_activity(const Warp& w, const Block& b, const isa::Inst& in, uint64_t pc, InstClass cls, unsigned lanes);
  void default_distributor();  // the slot distributor when activity is counted and none was given
  // sm.timing = flexgrip: the pipeline, lane groups per warp instruction, the instruction in flight.
  std::unique_ptr<sm::FlexgripPipeline> pipe_;
  unsigned packets_ = 1;
  struct FgInFlight {
    sm::FgCosts costs;
    sm::FlexgripPipeline::Cursor first;  // lane group 0, fetched
    bool packets_run = false;
    uint32_t active = 0;                 // lanes the guard enables
    uint32_t global = 0;                 // lanes whose memory phase is a transaction (port, size, write)
    CoreEnv::Port port = CoreEnv::Port::GlobalRead;
    unsigned size = 0;
    bool write = false;
  } fg_;
  uint64_t fg_last_ = 0;  // cycle the last packet left the warp checker
  // flexgrip_costs per decoded instruction, valid while the instruction buffer decodes nothing new.
  struct FgCostsEntry {
    const isa::Inst* in = nullptr;
    sm::FgCosts costs;
  };
  std::vector<FgCostsEntry> fg_costs_cache_ = std::vector<FgCostsEntry>(256);
  uint64_t fg_costs_decodes_ = ~uint64_t{0};
  const sm::FgCosts& fg_costs_of(const isa::Inst& in);
  bool in_step_ = false;  // an instruction is executing (its memory accesses may be in flight)
  // A global/constant load whose data is in flight: it is written to the warp's registers at `done`
  // (the data was read at issue), so a fault injected into them before then is overwritten.
  struct PendingLoad {
    unsigned warp = 0;
    uint64_t done = 0;
    uint32_t mask = 0;  // lanes written
    unsigned n = 0;     // destination registers
    uint16_t regs[4] = {};
    uint64_t vals[4][32];  // rows 0..n-1 set in full (lanes outside the mask 0): the timing hash reads them
  };
  // In completion order (ties in issue order): loads retire from the front. A deque, as a load is
  // a kilobyte of lane data that must not move when the front retires.
  std::deque<PendingLoad> pending_;
  PendingLoad* deferred_ = nullptr;  // the load the instruction executing deferred (retire observer)
  uint64_t issued_at_ = 0;  // release of the last transaction of the instruction (next one may start)

  // Storage warps point into, reserved at construction; regfile_ and predfile_ change size only
  // while no block is resident (a batch has them at its size, as the registry shows them). warps_
  // holds the slots up to the highest in use (capacity reserved): free slots are Exited, so the warp
  // schedulers skip them.
  std::vector<uint8_t> smem_;
  std::vector<Block> blocks_;  // cfg.max_blocks slots
  std::vector<Warp> warps_;
  // Per slot, warps_[i].issue_at(): the schedulers' scans (pick, wake) read 8 bytes a warp instead of
  // its record of about 600. note_issue follows every change of a warp's state or ready cycle,
  // note_issue_all every change of warps_' size or order.
  std::vector<uint64_t> issue_at_;
  void note_issue(const Warp& w) { issue_at_[w.id] = w.issue_at(); }
  void note_issue_all();
  std::vector<uint64_t> regfile_;
  std::vector<uint32_t> predfile_;
  size_t preds_clean_ = 0;  // predicate words from here on are zero (unused since zeroed)
  // Per row of 32 register slots (a warp's register for its 32 lanes; blocks' storage starts at a
  // multiple of 32 slots): 1 when it may hold a nonzero value. A row is marked when a warp executes
  // an instruction naming it (only those can write it, mark_rows) and by registry writes (fault
  // injection); place_block zeroes only marked rows, which is the same file as zeroing the block's
  // whole range (a kernel declares many more registers than a warp's path names).
  std::vector<uint8_t> reg_rows_dirty_;
  bool batch_ = false;              // the resident blocks are a batch (launch): they stay until clear()
  std::vector<unsigned> finished_;  // slots of blocks whose last warp exited, not yet released
  std::vector<Completed> completed_;
  unsigned live_warps_ = 0;
  uint64_t now_ = 0, synced_ = 0;

  // Per-access scratch (no allocation per instruction).
  uint64_t addr_[32] = {};  // zeroed: state comparisons hash them while an instruction is in flight
  uint8_t buf_[32][32] = {};           // per-lane access data (up to v4.b64)
  std::vector<uint8_t> segbuf_;
  AtomicExtension atom_ext_;

  bool has_error_ = false;
  DeviceErrorInfo error_;
  SmStats stats_;
};

}  // namespace gpuvp
