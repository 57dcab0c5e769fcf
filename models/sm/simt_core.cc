// SimtCore: launch, and the issue loop (warp choice, fetch, dispatch to the instruction families).
// The other parts of the core are in their own files (docs/sm.md, "Files").
#include "models/sm/simt_core.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "models/sm/exec.h"
#include "models/sm/inst_class.h"
#include "models/power/activity.h"
#include "models/sm/instruction_buffer.h"
#include "models/sm/warp_scheduler.h"

namespace gpuvp {

using namespace isa;

SimtCore::SimtCore(const SmConfig& cfg, CoreEnv& env)
    : cfg_(cfg),
      env_(env),
      ibuf_(std::make_unique<sm::InstructionBuffer>(cfg.ibuf_insts, env)),
      ops_(sm::op_table().data()) {
  period_ps_ = uint64_t(std::llround(cfg.clock.period().to_seconds() * 1e12));
  if (period_ps_ == 0) period_ps_ = 1;
  // Issue timing: each warp scheduler has sps / schedulers lanes (flexgrip: one scheduler, all sps).
  const unsigned nsched = cfg.timing == SmTiming::Flexgrip ? 1 : std::clamp(cfg.schedulers, 1u, std::max(cfg.sps, 1u));
  const unsigned lanes = std::max(cfg.sps / nsched, 1u);
  issue_cycles_ = std::max((cfg.warp_size + lanes - 1) / lanes, 1u);
  sched_.resize(nsched);
  stats_.schedulers.resize(nsched);
  stats_.dispatch = cfg.dispatch;
  stats_.issue_cycles_per_inst = issue_cycles_;
  for (unsigned k = 0; k < nsched; ++k) policies_.push_back(sm::make_warp_scheduler(cfg.warp_policy));
  auto unit = [&](UnitClass u, unsigned per_sm) {
    unit_of_[size_t(u)] = per_sm ? u : UnitClass::Lanes;
    unit_lanes_[size_t(u)] = per_sm ? std::max(per_sm / nsched, 1u) : lanes;
  };
  unit(UnitClass::Lanes, cfg.sps);
  unit(UnitClass::Fp64, cfg.units_fp64);
  unit(UnitClass::Sfu, cfg.units_sfu);
  unit(UnitClass::Ldst, cfg.units_ldst);
  unit_of_[size_t(UnitClass::None)] = UnitClass::None;  // control flow and barriers take no unit
  smem_.assign(cfg.shared_bytes, 0);
  // A batch may hold more warps than max_warps(): partial warps, up to one per block.
  warps_.reserve(max_warps() + cfg.max_blocks);
  blocks_.resize(cfg.max_blocks);
  // Empty until blocks come (the registry shows no register then), room reserved.
  regfile_.reserve(cfg.registers / 2);  // 64-bit entries: two 32-bit registers each
  predfile_.reserve(size_t(max_warps()) * kPredSlotsPerWarp);
  if (cfg.timing == SmTiming::Flexgrip) {
    pipe_ = std::make_unique<sm::FlexgripPipeline>();
    packets_ = issue_cycles_;  // lane groups of sps threads
  }
}

SimtCore::~SimtCore() {
  acc_reg_ = nullptr;  // the registry may be gone: releasing the blocks records nothing
  clear();
}

void SimtCore::clear() {
  for (unsigned j = 0; j < blocks_.size(); ++j)
    if (blocks_[j].lp) release_block(j);
  warps_.clear();
  note_issue_all();
  live_warps_ = 0;
  has_error_ = false;
  batch_ = false;
  finished_.clear();
  completed_.clear();
  pending_.clear();
}

void SimtCore::fail(const std::string& kind, const std::string& what, const Warp* w, int lane, uint64_t addr) {
  if (has_error_) return;
  has_error_ = true;
  error_ = DeviceErrorInfo{};
  error_.kind = kind;
  error_.pc = cur_pc_;
  error_.sm = int(cfg_.id);
  error_.lane = lane;
  error_.address = addr;
  if (w) {
    error_.block = int64_t(blocks_[w->block].linear);
    error_.launch_id = blocks_[w->block].lp->launch_id;
    error_.warp = int(w->id);
  }
  error_.message = fmt::format("{} error: {} (sm {}, pc {:#x}, block {}, warp {}, lane {}, address {:#x})", kind, what,
                               cfg_.id, cur_pc_, error_.block, error_.warp, lane, addr);
}

bool SimtCore::fault_at(const CoreEnv::Fault& f, const Warp& w, int lane, uint64_t addr) {
  fail(f.kind.empty() ? "tlm" : f.kind, f.message.empty() ? "memory access failed" : f.message, &w, lane, addr);
  return false;
}

bool SimtCore::resource(const std::string& what) {
  fail("resource", what, nullptr, -1, 0);
  return false;
}

void SimtCore::code_cache_written() { ibuf_->watch(); }

bool SimtCore::launch(const LaunchParams& lp, uint64_t start) {
  clear();
  batch_ = true;
  auto k = std::make_shared<const LaunchParams>(lp);
  cur_pc_ = lp.entry;
  ibuf_->new_launch();  // the loader may have rewritten code between batches: refetch
  std::string why = block_limits(lp);
  if (!why.empty()) return resource(why);
  const sm::BlockShape s = sm::block_shape(lp, cfg_.warp_size);
  if (!fits(lp, s)) return false;
  const unsigned nb = unsigned(lp.blocks.size());
  reset_files(size_t(nb) * s.reg_slots, size_t(nb) * s.pred_words);  // the registry shows this batch's files
  if (pipe_) {  // the SMP controller sets the batch up before the first warp issues
    start += sm::flexgrip_setup_cycles(nb, s.threads, uint32_t(lp.params.size() + 3) / 4, nb * s.wpb);
    pipe_->reset(start);
    fg_last_ = start;
  }
  warp_slots(size_t(nb) * s.wpb);
  for (unsigned j = 0; j < nb; ++j) {  // blocks one after another: slot j, warps j * wpb, ...
    sm::Placement p{j, j * s.wpb, j * s.reg_slots, j * s.pred_words, j * s.stride};
    place_block(k, s, p, lp.blocks[j], start);
  }
  now_ = synced_ = start;
  pending_.clear();
  start_schedulers(start);
  stats_.batches++;
  return true;
}

// Why no SM of this configuration runs a block of lp ("" when one may): the warp size and the
// block's threads.
std::string SimtCore::block_limits(const LaunchParams& lp) const {
  const uint64_t threads = uint64_t(lp.block[0]) * lp.block[1] * lp.block[2];
  if (cfg_.warp_size == 0 || cfg_.warp_size > 32) return fmt::format("warp size {} (1..32)", cfg_.warp_size);
  if (threads == 0) return "empty block (0 threads)";
  if (threads > cfg_.max_threads_per_block)
    return fmt::format("threads per block: {} > max_threads_per_block {}", threads, cfg_.max_threads_per_block);
  return "";
}

// The same for the block's local memory per thread and shared memory.
std::string SimtCore::memory_limits(const LaunchParams& lp, const sm::BlockShape& s) const {
  if (lp.local_bytes > cfg_.max_local_bytes)
    return fmt::format("local memory: {} bytes per thread > max_local_bytes {}", lp.local_bytes, cfg_.max_local_bytes);
  const uint64_t need = uint64_t(s.user_off) + s.user_bytes;
  if (need > cfg_.shared_per_block)
    return fmt::format("shared memory per block: {} bytes > shared_per_block {}", need, cfg_.shared_per_block);
  return "";
}

// Resource checks of a batch of blocks of shape s (block_limits passed).
bool SimtCore::fits(const LaunchParams& lp, const sm::BlockShape& s) {
  const uint64_t nb = lp.blocks.size(), threads = s.threads;
  if (nb > cfg_.max_blocks) return resource(fmt::format("resident blocks: {} > max_blocks {}", nb, cfg_.max_blocks));
  if (threads * nb > cfg_.max_threads)
    return resource(fmt::format("threads: {} blocks x {} > max_threads {}", nb, threads, cfg_.max_threads));
  if (s.regs32 * nb > cfg_.registers)
    return resource(fmt::format("registers: {} per thread x {} threads x {} blocks > {}", lp.regs_per_thread, threads, nb,
                                cfg_.registers));
  std::string why = memory_limits(lp, s);
  if (!why.empty()) return resource(why);
  if (uint64_t(s.stride) * nb > smem_.size())
    return resource(fmt::format("shared memory: {} blocks x {} bytes > {} bytes", nb, s.stride, smem_.size()));
  return true;
}

// Zeroed register and predicate files of the given sizes (their capacity stays). No block is
// resident: no warp points into them, should they move.
void SimtCore::reset_files(size_t reg_slots, size_t pred_words) {
  regfile_.assign(reg_slots, 0);
  reg_rows_dirty_.assign((reg_slots + 31) / 32, 0);
  predfile_.assign(pred_words, 0);
  preds_clean_ = 0;
}

namespace {
// Zeroes v[base, base + n) for a block, where it may hold old values: entries from `clean` on are
// still as allocated (zero), so large fresh files are not written twice. The block writes its
// range: `clean` moves past it.
template <typename T>
void zero_for_block(std::vector<T>& v, size_t& clean, size_t base, size_t n) {
  if (base < clean) std::fill(v.begin() + ptrdiff_t(base), v.begin() + ptrdiff_t(std::min(base + n, clean)), T{0});
  clean = std::max(clean, base + n);
}
}  // namespace

// Kernel k's block `linear` in slot p.slot at placement p, from cycle `start`: its shared memory,
// zeroed registers, predicates and local memory, and its warps at the entry point.
void SimtCore::place_block(std::shared_ptr<const LaunchParams> k, const sm::BlockShape& s, const sm::Placement& p,
                           uint64_t linear, uint64_t start) {
  Block& b = blocks_[p.slot];
  b = Block{};
  b.kernel = std::move(k);
  b.lp = b.kernel.get();
  b.k = s;
  b.linear = linear;
  b.start = b.end = start;
  b.smem_base = p.smem_base;
  b.reg_base = p.reg_base;
  b.pred_base = p.pred_base;
  b.first_warp = p.first_warp;
  b.nwarps = b.live_warps = s.wpb;
  if (b.lp->local_bytes) b.local.assign(size_t(s.threads) * b.lp->local_bytes, 0);
  zero_for_block(predfile_, preds_clean_, p.pred_base, s.pred_words);
  init_shared(b);
  zero_block_regs(b);
  init_warps(p.slot);
  if (recording()) note_placement(b);
  live_warps_ += s.wpb;
  stats_.blocks++;
  b.stat = last_launch_ = record_occupancy(*b.lp, s);
  ++stats_.launches[b.stat].blocks_run;
}

// Block b's register rows zeroed where they may hold values (reg_rows_dirty_).
void SimtCore::zero_block_regs(const Block& b) {
  const size_t first = b.reg_base / 32, rows = b.k.reg_slots / 32;
  for (size_t g = first; g < first + rows; ++g)
    if (reg_rows_dirty_[g]) {
      std::fill_n(regfile_.data() + g * 32, 32, uint64_t{0});
      reg_rows_dirty_[g] = 0;
    }
}

// The launch's entry in stats_.launches, made at its first block on the SM with the kernel's
// occupancy limit.
uint32_t SimtCore::record_occupancy(const LaunchParams& lp, const sm::BlockShape& s) {
  auto& v = stats_.launches;
  for (size_t i = v.size(); i-- > 0;)
    if (v[i].launch_id == lp.launch_id) return uint32_t(i);
  const sm::OccupancyLimit l =
      sm::occupancy_limit(s, {cfg_.max_blocks, max_warps(), cfg_.max_threads, cfg_.registers, smem_.size()});
  SmStats::Launch e{lp.launch_id, l.blocks, l.blocks * s.wpb, l.limited_by, {}, 0, 0, {}};
  e.schedulers.resize(stats_.schedulers.size());
  v.push_back(std::move(e));
  return uint32_t(v.size() - 1);
}

// The block's shared memory: header (dimensions, linear index), parameters, zeroed user region.
void SimtCore::init_shared(const Block& b) {
  const LaunchParams& lp = *b.lp;
  uint8_t* s = smem_.data() + b.smem_base;
  std::memset(s, 0, b.k.stride);
  uint16_t hdr[6] = {uint16_t(lp.block[0]), uint16_t(lp.block[1]), uint16_t(lp.block[2]),
                     uint16_t(lp.grid[0]),  uint16_t(lp.grid[1]),  uint16_t(lp.grid[2])};
  std::memcpy(s, hdr, 12);
  uint32_t lin = uint32_t(b.linear);
  std::memcpy(s + 12, &lin, 4);
  if (!lp.params.empty()) std::memcpy(s + kBlockHeaderBytes, lp.params.data(), lp.params.size());
}

// The warps of the block in slot j, all at the entry point at the block's start.
void SimtCore::init_warps(unsigned j) {
  const Block& b = blocks_[j];
  const LaunchParams& lp = *b.lp;
  for (unsigned k = 0; k < b.nwarps; ++k) {
    Warp& w = warps_[b.first_warp + k];
    w = Warp{};
    w.id = b.first_warp + k;
    w.block = j;
    w.in_block = k;
    unsigned first = k * cfg_.warp_size;
    unsigned n = std::min(cfg_.warp_size, b.k.threads - first);
    w.live = n >= 32 ? ~0u : ((1u << n) - 1);
    w.ready = b.start;
    wake_warp(w);
    w.regs = regfile_.data() + b.reg_base + size_t(k) * lp.num_regs * 32;
    w.preds = predfile_.data() + b.pred_base + size_t(k) * std::max(lp.num_preds, 1u);
    w.groups[0] = Group{lp.entry, w.live};
    w.ngroups = 1;
  }
}

// FlexGripPlus timing: warp i's instruction through the pipeline (simt_core_flexgrip.cc).
void SimtCore::issue_flexgrip(int i) {
  if (now_ >= horizon_) sync_now();  // let simulated time reach the core before it goes past the horizon
  const uint64_t at = now_;
  issue_cycle_ = at;
  in_step_ = true;
  Warp& w = warps_[unsigned(i)];
  const unsigned gi = w.ngroups == 1 ? 0 : w.frontier();
  cur_pc_ = w.groups[gi].pc;
  if (recording()) note_frontier(w);
  step_flexgrip(w, gi, cur_pc_);
  note_issue(w);
  in_step_ = false;
  sched_[0].last = i;
  if (issue_log_) issue_log_->push_back(at);
  if (now_ - synced_ >= quantum_) sync_now();
}

// No warp can issue now: `picked` (a policy that waits for its warp, rr_strict) or the earliest
// ready warp sets when one can; with none, every live warp is at a barrier that never completes.
// False when the environment interrupted the wait (never in a batch).
bool SimtCore::wait_turn(int picked, bool batch) {
  if (picked >= 0) return wait_until(warps_[unsigned(picked)].ready, batch);
  const uint64_t t = next_ready();
  if (t != ~uint64_t{0}) return wait_until(std::max(now_, t), batch);
  const Warp* bw = nullptr;
  for (auto& w : warps_)
    if (w.state == Warp::Barrier) bw = &w;
  if (bw) cur_pc_ = bw->groups[0].pc;
  fail("barrier", "block cannot make progress: barrier never completes (warps exited or diverged)", bw, -1, 0);
  return true;
}

// The issue loop of a batch (run) and of concurrent blocks (run_blocks): the warp the policy picks
// issues an instruction, or time moves on to when one can (wait_turn).
bool SimtCore::run() {
  while (live_warps_ && !has_error_) {
    retire_due();
    if (!pipe_) {
      issue_cycle(true);
      continue;
    }
    const int i = policies_[0]->pick(issue_at_, sched_[0].last, now_);
    if (i >= 0 && warps_[i].ready <= now_) issue_flexgrip(i);
    else wait_turn(i, true);
  }
  if (pipe_) now_ = std::max(now_, fg_last_ + sm::kFgBatchEnd);  // the scheduler sees the last warp finish
  if (recording()) close_state_spans();  // every warp exited: no scheduler looks at them any more
  else for (unsigned s = 0; s < sched_.size(); ++s) count_until(s, now_);
  return !has_error_;
}

// Blocks arriving while the core runs: the core never runs past the first cycle at which one may
// arrive (next_arrival_check) without letting simulated time catch up and looking, so a block starts
// at the cycle it arrived, whatever else made the core sync (a stop at an instant, the quantum).
bool SimtCore::run_blocks() {
  arrivals_at_ = 0;  // look at once: blocks may have come while the core was away
  while (live_warps_ && !has_error_ && finished_.empty()) {
    if (now_ >= arrivals_at_) {
      sync_now();
      if (env_.work_waiting()) break;
      arrivals_at_ = next_arrival_check();
    }
    retire_due();
    if (!issue_cycle(false)) break;
  }
  for (unsigned s = 0; s < sched_.size(); ++s) count_until(s, now_);
  for (unsigned j : finished_) {
    const Block& b = blocks_[j];
    completed_.push_back(Completed{b.lp->launch_id, b.linear, b.start, b.end});
    release_block(j);  // its room is free for the next add_block
  }
  finished_.clear();
  return !has_error_;
}

// Every warp waits (memory latency, nanosleep, a strict turn): the core jumps to cycle t. A long jump
// lets simulated time follow: a batch syncs, otherwise the environment may end the wait early because
// work arrived for the core (false; now_ is where it ended).
bool SimtCore::wait_until(uint64_t t, bool batch) {
  t = std::min(t, next_completion());  // a load's data lands at its instant (stops see it then)
  if (batch ? t - synced_ < 1000 : t <= arrivals_at_) {  // (concurrent: nothing can arrive meanwhile)
    now_ = t;
    return true;
  }
  if (batch) {
    now_ = t;
    sync_now();
    return true;
  }
  now_ = synced_ = std::clamp(env_.idle(t), now_, t);
  return now_ == t && !env_.work_waiting();
}

// Where the environment cannot tell (a queued kernel waits for room any SM's completion may free), a
// grid of the core's own cycles: a block then starts at most kArrivalGrid cycles after it arrived.
uint64_t SimtCore::next_arrival_check() const {
  constexpr uint64_t kArrivalGrid = 1000;
  const uint64_t h = env_.no_arrival_before(now_);
  if (h != CoreEnv::kUnknown) return std::max(h, now_ + 1);
  return (now_ / kArrivalGrid + 1) * kArrivalGrid;
}

// Earliest cycle a ready warp may issue (~0: none is ready, every live warp is at a barrier).
uint64_t SimtCore::next_ready() const {
  uint64_t t = ~uint64_t{0};
  for (auto& w : warps_)
    if (w.state == Warp::Ready) t = std::min(t, w.ready);
  return t;
}

// Loads done before the horizon are written before simulated time may stop there, those done at
// or after it only once simulated time has passed it.
void SimtCore::sync_now() {
  retire(now_, horizon_);
  env_.sync(now_);
  synced_ = now_;
  retire(now_, ~uint64_t{0});
}

// Register and predicate slots of an instruction against the counts of kernel lp (the warp's).
bool SimtCore::validate(const Inst& in, uint64_t pc, const LaunchParams& lp) {
  auto bad = [&](const std::string& why) {
    fail("decode", fmt::format("invalid instruction at {:#x}: {}", pc, why), nullptr, -1, pc);
    return false;
  };
  if (in.guard >= 0 && uint32_t(in.guard) >= lp.num_preds) return bad(fmt::format("guard predicate {} out of range", in.guard));
  for (int i = 0; i < in.nops; ++i) {
    const Operand& o = in.ops[i];
    if ((o.kind == OpKind::Reg || (o.kind == OpKind::Mem && o.reg != kNoReg)) && o.reg >= lp.num_regs)
      return bad(fmt::format("register slot {} >= {}", o.reg, lp.num_regs));
    if (o.kind == OpKind::Pred && o.reg >= lp.num_preds)
      return bad(fmt::format("predicate slot {} >= {}", o.reg, lp.num_preds));
  }
  if (in.op == Opcode::Ld || in.op == Opcode::St || in.op == Opcode::Atom || in.op == Opcode::Red) {
    unsigned b = bits_of(in.type);
    if (b < 8) return bad("memory access without a data type");
    if (in.nops < in.vec + 1) return bad("missing memory operand");
    int mi = in.op == Opcode::Ld ? in.vec : in.op == Opcode::Atom ? 1 : 0;
    if (in.ops[mi].kind != OpKind::Mem) return bad("missing memory operand");
  }
  return true;
}

const Inst* SimtCore::fetch(Warp& w, uint64_t pc) {
  sm::InstructionBuffer::Error err;
  bool validated = false;
  // Fetch first: as one call's arguments, `validated` could be read before the fetch sets it.
  const Inst* in = ibuf_->fetch(pc, now_, stats_.fetches, err, validated);
  return fetched(w, pc, in, err, validated);
}

// The instruction a fetch returned, checked; nullptr after reporting why there is none.
const Inst* SimtCore::fetched(Warp& w, uint64_t pc, const Inst* in, const sm::InstructionBuffer::Error& err,
                              bool validated) {
  if (!in) {
    if (err.decode) fail("decode", fmt::format("undecodable instruction at {:#x}: {}", pc, err.why), &w, -1, pc);
    else fault_at(err.fault, w, -1, err.addr);
    return nullptr;
  }
  if (!validated) {  // register and predicate bounds of the warp's kernel, once per launch
    if (!validate(*in, pc, *blocks_[w.block].lp)) return nullptr;
    ibuf_->mark_validated(pc);
  }
  return in;
}

// The energy events of one warp instruction (docs/power.md): its issue, its lanes on their unit, its
// register reads and writes per active lane, and a shared-memory access (worked out once per decoded
// instruction). The lane cluster is the distribution unit's choice (cluster_distributor.h; by default the
// warp's slot modulo the clusters). Inline: it runs for every warp instruction.
inline void SimtCore::record_activity(const Warp& w, const Block& b, const Inst& in, uint64_t pc, InstClass cls,
                                      unsigned lanes) {
  const unsigned cluster = slot_modulus_           ? w.id % slot_modulus_
                           : picked_cluster_ >= 0 ? unsigned(picked_cluster_)
                                                  : dist_->next(w.id);
  // (With no active lane only the issue counts: instruction() reads no event then.)
  act_->instruction(now_, cluster, lanes, b.lp->launch_id, ibuf_->power_events(pc, in, cls));
}

// Every register row `in` names may be written by it (a deferred load's and bar.red's results
// later): marked before it runs, so the next block placed over the row finds it zeroed. Marking the
// rows a warp executes, not every row any decoded instruction names, leaves a block's other rows
// alone at the next placement.
inline void SimtCore::mark_rows(const Warp& w, const Inst& in) {
  uint8_t* dirty = reg_rows_dirty_.data() + size_t(w.regs - regfile_.data()) / 32;
  for (int i = 0; i < in.nops; ++i)
    if (in.ops[i].kind == isa::OpKind::Reg) dirty[in.ops[i].reg] = 1;
}

// The instruction's semantics: the lanes the guard enables, then the family handler of the opcode
// (exec.h). Control handlers move the group themselves; after the others it moves on to the next
// instruction. False when the warp stopped on an error.
bool SimtCore::execute(Warp& w, unsigned gi, const Inst& in, uint64_t pc, InstClass cls) {
  Group& g = w.groups[gi];
  uint32_t active = g.mask;
  if (in.guard >= 0) {
    uint32_t p = w.preds[in.guard];
    active &= in.guard_neg ? ~p : p;
  }
  // A full warp needs no count (without a popcnt instruction in the target, popcount is a library call).
  const unsigned lanes = active == ~0u ? 32u : unsigned(__builtin_popcount(active));
  ++stats_.warp_insts;
  stats_.thread_insts += lanes;
  const Block& b = blocks_[w.block];  // (looked up once for both)
  if (cfg_.statistics) {
    ++stats_.inst_class[size_t(cls)];
    SmStats::Launch& l = stats_.launches[b.stat];
    ++l.inst_class[size_t(cls)];
    l.thread_insts += lanes;
  }
  if (act_) record_activity(w, b, in, pc, cls, lanes);
  const bool rec = recording();
  const uint64_t t0 = rec ? inst_access_ps() : 0;  // its operands are read from here on
  if (rec) note_reads(w, in, cls, active, t0, t0);
  if (rec) snapshot_groups(w, groups_before_);
  fg_.active = active;
  mark_rows(w, in);
  const sm::OpEntry& op = ops_[size_t(in.op)];
  sm::Exec x{*this, w, in, g, gi, active, pc, pc + in.size};
  if (op.control) {
    op.fn(x);
    if (rec) note_late_reads(w, in, cls, active, t0);
    if (rec) note_groups(w, gi, groups_before_);
    if (observer_) notify_retired(w, in, active, true);
    return !x.halt;
  }
  deferred_ = nullptr;
  if (active) {
    if (in.type == DType::F64) lat_ = cfg_.lat.fp64;
    (op.fn_float && is_float(in.type) ? op.fn_float : op.fn)(x);
  }
  if (rec) note_late_reads(w, in, cls, active, t0);
  if (has_error_) return false;
  if (rec && active) note_writes(w, in, cls, active);
  if (observer_) notify_retired(w, in, active, false);
  w.move(gi, w.groups[gi].mask, x.next);
  if (rec) note_groups(w, gi, groups_before_);
  return true;
}

// The first destination of an instruction that has one: everything but stores, reductions, barriers,
// control, nop, nanosleep and printf (whose first operand is an address, a barrier id or a target).
void SimtCore::notify_retired(Warp& w, const Inst& in, uint32_t active, bool control) {
  const sm::InstKind k = sm::classify(in);
  RetiredInst r;
  r.seq = stats_.warp_insts;
  r.cycle = issue_cycle_;
  r.in = &in;
  r.cls = k.cls;
  r.unit = k.unit;
  r.warp = w.id;
  r.active = active;
  r.reg_base = uint64_t(w.regs - regfile_.data());
  r.num_regs = blocks_[w.block].lp->num_regs;
  r.entry = blocks_[w.block].lp->entry;
  const bool no_dest = control || k.cls == InstClass::Barrier || in.op == Opcode::St || in.op == Opcode::Red ||
                       in.op == Opcode::Nop || in.op == Opcode::Nanosleep || in.op == Opcode::Vprintf;
  const isa::Operand& d = in.ops[0];
  if (!no_dest && active && d.kind == isa::OpKind::Reg)
    r.values = deferred_ ? deferred_->vals[0] : w.regs + size_t(d.reg) * 32;
  if (!no_dest && active && d.kind == isa::OpKind::Pred) r.pred = &w.preds[d.reg];
  observer_->retired(r);
}

void SimtCore::set_activity(power::ActivityLog* log) {
  act_ = log;
  default_distributor();
}
void SimtCore::set_distributor(std::unique_ptr<sm::ClusterDistributor> d) {
  dist_ = std::move(d);
  default_distributor();
}
void SimtCore::default_distributor() {
  if (act_ && !dist_) dist_ = sm::make_slot_distributor(act_->clusters());
  slot_modulus_ = dist_ ? dist_->slot_modulus() : 0;
  cluster_free_.clear();
  if (dist_ && !slot_modulus_ && act_ && cfg_.timing != SmTiming::Flexgrip) {
    const unsigned n = std::max(act_->clusters(), 1u), lanes = std::max(cfg_.sps / n, 1u);
    cluster_free_.assign(n, 0);
    cluster_cycles_ = (cfg_.warp_size + lanes - 1) / lanes;
  }
}

// --- test access --------------------------------------------------------------------------------

uint64_t SimtCore::reg(unsigned b, unsigned tid, unsigned slot) const {
  const Warp& w = warps_.at(blocks_.at(b).first_warp + tid / cfg_.warp_size);
  return w.regs[size_t(slot) * 32 + tid % cfg_.warp_size];
}
bool SimtCore::pred(unsigned b, unsigned tid, unsigned slot) const {
  const Warp& w = warps_.at(blocks_.at(b).first_warp + tid / cfg_.warp_size);
  return (w.preds[slot] >> (tid % cfg_.warp_size)) & 1;
}
uint8_t* SimtCore::local(unsigned b, unsigned tid) {
  return blocks_.at(b).local.data() + size_t(tid) * blocks_.at(b).lp->local_bytes;
}

}  // namespace gpuvp
