#include "models/scheduler/concurrent_dispatcher.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "models/common/digest.h"
#include "models/common/log.h"

namespace gpuvp {

namespace {
uint64_t simulated_ps() { return sc_core::sc_time_stamp().value(); }

const bool declared = declare_params({
    "scheduler", "gpu.sched", "",
    {
        ParamDef::String("scheduler.kind", "batch", {"batch", "concurrent"},
                         "batch: the FlexGripPlus batch scheduler, one kernel at a time; concurrent: the TX2 "
                         "queue rules, several kernels and streams at once (docs/concurrent-kernels.md)"),
        ParamDef::Int("scheduler.dispatch_cycles", 1, 0, 1000000,
                      "Concurrent dispatcher: cycles between two block assignments (0: all that fit at once)"),
        ParamDef::Int("scheduler.work_slots", 64, 1, 4096,
                      "Concurrent dispatcher: kernels, copies and event operations in flight (a full table "
                      "makes the host wait)"),
        ParamDef::Int("scheduler.events", 64, 1, 65536, "Concurrent dispatcher: events the host can record"),
        ParamDef::Int("scheduler.sm_sets", 64, 1, 65536,
                      "Concurrent dispatcher: SM sets kernels can be confined to (set 0: every SM; "
                      "docs/concurrent-kernels.md, \"SM sets and sub-kernels\")"),
    },
});
}  // namespace

ConcurrentDispatcherConfig ConcurrentDispatcherConfig::from(const Params& p, unsigned num_sms, const Clock& clk,
                                                            const SmLimits& lim) {
  (void)declared;
  ConcurrentDispatcherConfig c;
  c.num_sms = num_sms;
  c.clock = clk;
  c.limits = lim;
  c.slots = unsigned(p.i("work_slots"));
  c.events = unsigned(p.i("events"));
  c.dispatch_cycles = unsigned(p.i("dispatch_cycles"));
  c.sm_sets = unsigned(p.i("sm_sets"));
  c.path = p.instance();
  return c;
}

ConcurrentDispatcher::ConcurrentDispatcher(sc_core::sc_module_name name, const ConcurrentDispatcherConfig& cfg,
                                           Registry& reg)
    : sc_module(name),
      cfg_(cfg),
      queues_(reg, cfg.path, cfg.slots, cfg.events, simulated_ps),
      room_(reg, cfg.path, cfg.num_sms, cfg.limits),
      sms_(cfg.num_sms, nullptr),
      work_(cfg.slots),
      timer_(cfg.clock),
      set_sms_(cfg.sm_sets, all_sms()) {
  set_sms_.add(reg, cfg.path + ".sm_set.sms", cfg.num_sms, simulated_ps, [this] { wake(); });
  reg.add_timing(cfg.path, [this](uint64_t now) { return timing_digest(now); });
  SC_METHOD(edge);
  sensitive << timer_.event();
  dont_initialize();
  // A fault written into the tables is seen at the next edge, as a flip-flop's would be.
  // Access recording: those the dispatcher compares at the edge a flip wakes it for (a waiting
  // kernel's block goes out at once) are read at every instant (read_always); the SM sets too, but
  // only while a kernel of theirs is in an EE queue (note_set_reads); the other tables report their
  // reads (every edge's queue walks, the SMs' horizon questions) and writes as they happen
  // (work_queues.h).
  for (const char* t : {".work.state", ".work.assigned", ".work.completed", ".work.blocks", ".used_threads",
                        ".used_smem", ".used_regs", ".used_blocks"}) {
    reg.at_mut(cfg.path + t).on_write = [this] { wake(); };
    read_always(reg.at_mut(cfg.path + t));
  }
}

// An input is taken at the first edge after it came, in the order edge() sorts them: its instant, what
// it is and what it carries. A submission's kernel is the host's (the same in every run of a program);
// its order, range and SM set say which.
uint64_t ConcurrentDispatcher::timing_digest(uint64_t now) const {
  uint64_t h = digest_fold(staged_submissions_, digest_instant(next_assign_, cfg_.clock.cycle(sc_core::sc_time::from_value(now))));
  for (const Input& in : inputs_) {
    h = digest_fold(digest_fold(h, in.at - now), uint64_t(in.what) | uint64_t(in.sm) << 8 | uint64_t(in.slot) << 32);
    h = digest_fold(digest_fold(h, in.block.linear), in.block.slot);
    h = digest_fold(digest_fold(h, in.sub.order), in.sub.first_block ^ uint64_t(in.sub.sm_set) << 48);
    h = digest_fold(h, in.sms);
  }
  return h;
}

void ConcurrentDispatcher::wake() { timer_.request(); }

BlockNeeds ConcurrentDispatcher::needs(const KernelDesc& k) const {
  BlockNeeds b;
  b.threads = k.threads();
  b.smem = k.smem_per_block;
  b.regs = k.regs_per_thread * b.threads;
  return b;
}

uint64_t ConcurrentDispatcher::no_assignment_before_ps() const {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const uint64_t next_edge = cfg_.clock.next_edge(now).value();
  if (!inputs_.empty()) return next_edge;  // taken at the next edge; anything may follow
  if (queues_.head_kernel() >= 0) {
    if (pick().first < 0) return kUnknown;  // waits for room
    return std::max<uint64_t>(next_edge, cfg_.clock.at_cycle(next_assign_).value());
  }
  if (queues_.kernel_waiting()) return kUnknown;  // behind work in its stream: a completion releases it
  if (!host_lookahead) return next_edge;
  return std::max<uint64_t>(next_edge, cfg_.clock.edge_at_or_after(sc_core::sc_time::from_value(host_lookahead())).value());
}

std::string ConcurrentDispatcher::never_fits(const KernelDesc& k) const {
  const BlockNeeds b = needs(k);
  if (room_.capacity(b) > 0) return "";
  const SmLimits& l = cfg_.limits;
  return fmt::format("a block of {} threads, {} bytes of shared memory and {} registers does not fit an SM "
                     "({} threads, {} bytes, {} registers)",
                     b.threads, b.smem, b.regs, l.threads, l.smem, l.regs);
}

bool ConcurrentDispatcher::submit(const Submission& s) {
  if (queues_.free_slots() <= staged_submissions_) return false;
  ++staged_submissions_;
  inputs_.push_back(Input{sc_core::sc_time_stamp().value(), Input::Submit, 0, {}, 0, s, 0});
  wake();
  return true;
}

void ConcurrentDispatcher::block_done(unsigned sm, const BlockWork& w) {
  inputs_.push_back(Input{sc_core::sc_time_stamp().value(), Input::Block, sm, w, 0, {}, 0});
  wake();
}

void ConcurrentDispatcher::copy_done(uint32_t slot) {
  inputs_.push_back(Input{sc_core::sc_time_stamp().value(), Input::Copy, 0, {}, slot, {}, 0});
  wake();
}

void ConcurrentDispatcher::take(const Input& in) {
  switch (in.what) {
    case Input::Submit: {
      --staged_submissions_;
      const int slot = queues_.submit(in.sub.item);  // G1 (a slot was kept for it)
      if (slot >= 0) work_[size_t(slot)] = in.sub;
      break;
    }
    case Input::Block: {
      const auto& k = work_[in.block.slot].kernel ? work_[in.block.slot].kernel : in.block.kernel;
      room_.give(in.sm, needs(*k));
      if (queues_.block_completed(int(in.block.slot))) done(int(in.block.slot));
      break;
    }
    case Input::Copy:
      queues_.copy_completed(int(in.slot));
      done(int(in.slot));
      break;
    case Input::SetSms: set_sms_.set(in.slot, in.sms); break;
  }
}

// A work item left the table: tell the host which one (its tag; the rest is the submitter's own
// description, not read from the table), free the slot.
void ConcurrentDispatcher::done(int slot) {
  WorkItem w = work_[slot].item;
  w.tag = queues_.tag(slot);
  if (on_done) on_done(w, sc_core::sc_time_stamp().value());
  work_[slot] = Submission{};
  freed_.notify(sc_core::SC_ZERO_TIME);
}

void ConcurrentDispatcher::settle_and_report() {
  for (uint64_t tag : queues_.settle()) {  // records and waits
    WorkItem w;
    w.kind = WorkItem::Record;
    w.tag = tag;
    if (on_done) on_done(w, sc_core::sc_time_stamp().value());
    freed_.notify(sc_core::SC_ZERO_TIME);
  }
}

uint64_t ConcurrentDispatcher::all_sms() const {
  return cfg_.num_sms >= 64 ? ~uint64_t{0} : (uint64_t{1} << cfg_.num_sms) - 1;
}

uint64_t ConcurrentDispatcher::sm_set(uint32_t set) const {
  if (set == 0 || set >= set_sms_.size()) return all_sms();
  const uint64_t m = set_sms_.get(set) & all_sms();
  return m ? m : all_sms();  // (a fault that empties a set must not make its kernels unrunnable)
}

void ConcurrentDispatcher::set_sm_set(uint32_t set, uint64_t sms) {
  if (set == 0 || set >= set_sms_.size())
    throw std::invalid_argument(fmt::format("SM set {}: sets are 1 to {} (scheduler.sm_sets; set 0 is every SM)",
                                            set, set_sms_.size() - 1));
  if (sms == 0 || (sms & ~all_sms()))
    throw std::invalid_argument(fmt::format("SM set {}: SM mask {:#x} names no SM or an SM beyond the GPU's {}",
                                            set, sms, cfg_.num_sms));
  inputs_.push_back(Input{sc_core::sc_time_stamp().value(), Input::SetSms, 0, {}, set, {}, sms});
  wake();
}

// X1 per SM: walking the EE queues in dispatch order, a kernel that cannot place a block keeps the
// kernels behind it off its SMs (so with every kernel on every SM this is X1 and A2 exactly), while
// kernels confined to other SMs go on (spatial multitasking: disjoint SM sets run side by side).
std::pair<int, int> ConcurrentDispatcher::pick() const {
  uint64_t held = 0;
  for (int k : queues_.engine_kernels()) {
    if (!work_[k].kernel) return {-1, -1};  // (no descriptor: a fault revived a free slot)
    const uint64_t set = sm_set(work_[k].sm_set);
    if (const int sm = room_.place(needs(*work_[k].kernel), set & ~held); sm >= 0) return {k, sm};
    held |= set;
    if (held == all_sms()) break;
  }
  return {-1, -1};
}

bool ConcurrentDispatcher::assign_one() {
  const auto [k, sm] = pick();
  if (k < 0) return false;
  const KernelDesc& kd = *work_[k].kernel;
  BlockWork b;
  b.kernel = work_[k].kernel;
  b.linear = work_[k].first_block + queues_.next_block(k);
  b.slot = uint32_t(k);
  room_.take(unsigned(sm), needs(kd));
  queues_.block_assigned(k);
  ++dispatched_;
  log::debug(name(), "block {} of launch {} to sm {}", b.linear, kd.launch_id, sm);
  if (on_assign) on_assign(unsigned(sm), b);
  if (b.linear < kd.grid_blocks() && sms_[size_t(sm)]) sms_[size_t(sm)]->assign(b);
  else block_done(unsigned(sm), b);  // a block index a fault pushed past the grid: nothing to run
  return true;
}

void ConcurrentDispatcher::edge() {
  if (!timer_.take()) return;
  const uint64_t now_ps = sc_core::sc_time_stamp().value();
  std::vector<Input> later;
  // Sampled together at this edge: by instant, completions before submissions, submissions in the
  // host's thread and call order.
  auto key = [](const Input& in) {
    return std::make_tuple(in.at, in.what == Input::Submit, in.what == Input::Submit ? in.sub.order : 0);
  };
  std::stable_sort(inputs_.begin(), inputs_.end(), [&](const Input& a, const Input& b) { return key(a) < key(b); });
  for (auto& in : inputs_) {
    if (in.at < now_ps) take(in);
    else later.push_back(std::move(in));  // came in this instant: the next edge samples it
  }
  inputs_.swap(later);
  if (!inputs_.empty()) wake();
  settle_and_report();
  const uint64_t now = cfg_.clock.cycle(sc_core::sc_time_stamp());
  if (now >= next_assign_) {
    while (assign_one()) {
      if (cfg_.dispatch_cycles == 0) continue;
      next_assign_ = now + cfg_.dispatch_cycles;
      break;
    }
  }
  // Another block may be waiting for the next assignment slot.
  if (now < next_assign_ && queues_.head_kernel() >= 0)
    timer_.request_at(cfg_.clock.at_cycle(next_assign_));
  if (const int c = queues_.head_copy(); c >= 0 && ce_ && work_[c].copy) {
    queues_.copy_started(c);
    ce_->start_copy(uint32_t(c), work_[c].copy);
  }
  if (set_sms_.recording()) note_set_reads(now_ps);
}

// A flip of an SM set wakes the dispatcher, whose next edge reads the set (pick) if a kernel of that
// set is in an EE queue: while one is, the set is read at every instant. One span of reads from the edge
// the first such kernel is there to the edge the last one left (G3); pick's own reads are reported by
// set_sms_. A kernel that joins and leaves within one edge leaves only those.
void ConcurrentDispatcher::note_set_reads(uint64_t now) {
  std::vector<uint32_t> used;
  for (unsigned k = 0; k < queues_.slots(); ++k)
    if (queues_.state(int(k)) == WorkQueues::InEE && work_[k].kernel && work_[k].sm_set > 0 &&
        work_[k].sm_set < set_sms_.size())
      used.push_back(work_[k].sm_set);
  for (auto it = set_read_from_.begin(); it != set_read_from_.end();) {
    if (std::find(used.begin(), used.end(), it->first) != used.end()) {
      ++it;
      continue;
    }
    set_sms_.note_reads(it->first, it->second, now);
    it = set_read_from_.erase(it);
  }
  for (uint32_t s : used) set_read_from_.emplace(s, now);  // (an open span keeps its start)
}

}  // namespace gpuvp
