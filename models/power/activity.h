#pragma once
// What consumes energy in an SM, counted per sample interval of the SM's own clock (docs/power.md).
// SMs run ahead of simulated time, so an event is filed under the interval of the SM's local cycle at
// which it happens, not under the simulated instant at which the core reaches it; an interval is read
// (drained) only once simulated time has passed its end, when no SM can still add to it.
#include <array>
#include <cstdint>
#include <algorithm>
#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>
#include <utility>

namespace gpuvp::power {

enum class Event : uint8_t {
  WarpInst = 0,  // a warp instruction issued: fetch from the instruction buffer, decode, schedule
  Int,           // thread-instructions (active lanes) on the integer ALU (also moves, warp-level, other)
  Fp32,          // ... on the fp32 unit
  Fp64,          // ... on the fp64 unit
  Sfu,           // ... on the special function unit
  Ldst,          // ... on the load-store unit (address generation of every memory instruction)
  Control,       // ... branch and control (branches, calls, barriers)
  RegRead,       // register-file reads, per active lane (source register operands)
  RegWrite,      // register-file writes, per active lane (destination registers)
  Shared,        // shared, parameter and local memory accesses (one per warp instruction)
  L1dRead,       // L1 data cache reads (accesses, hit or miss)
  L1dWrite,      // L1 data cache writes
  ConstCache,    // constant cache accesses
  ICache,        // instruction cache accesses
  Offchip,       // transactions leaving the SM (misses, uncached accesses) toward the L2 or memory
  Count
};
const char* event_name(Event e);  // "warp_inst", "int", ... (statistics keys)

inline constexpr unsigned kMaxClusters = 8;  // lane clusters per SM (warp-size lanes each)

struct EventCounts {
  std::array<uint64_t, size_t(Event::Count)> n{};
  uint64_t& operator[](Event e) { return n[size_t(e)]; }
  uint64_t operator[](Event e) const { return n[size_t(e)]; }
  EventCounts& operator+=(const EventCounts& o) {
    for (size_t i = 0; i < n.size(); ++i) n[i] += o.n[i];
    return *this;
  }
  EventCounts& operator-=(const EventCounts& o) {
    for (size_t i = 0; i < n.size(); ++i) n[i] -= o.n[i];
    return *this;
  }
};

// One sample interval of one SM.
struct IntervalActivity {
  EventCounts events;
  uint64_t issue_cycles = 0;    // distinct cycles in which the SM issued at least one warp instruction
  uint64_t powered_cycles = 0;  // cycles with at least one resident block (the SM is not gated)
  // Per lane cluster: warp instructions and thread-instructions it executed (the NBTI stress of its lanes).
  std::array<uint64_t, kMaxClusters> cluster_warp_insts{}, cluster_thread_insts{};
  bool counted = false;  // any event counted (the log asks for every interval it holds when it looks for activity)
  uint64_t idle_cycles() const { return powered_cycles > issue_cycles ? powered_cycles - issue_cycles : 0; }
};

// The open intervals of a log, oldest first: a ring over one array that only grows (a deque would
// allocate and free a block for every interval, each being larger than its block size). References
// stay valid until the next push().
class IntervalRing {
 public:
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  IntervalActivity& operator[](size_t i) { return buf_[(head_ + i) & mask_]; }
  const IntervalActivity& operator[](size_t i) const { return buf_[(head_ + i) & mask_]; }
  IntervalActivity& front() { return (*this)[0]; }
  IntervalActivity& push() {  // a new, empty interval at the back
    if (n_ == buf_.size()) grow();
    IntervalActivity& a = (*this)[n_++];
    a = IntervalActivity{};
    return a;
  }
  void pop_front(size_t k = 1) {  // drops the k oldest (k <= size())
    head_ = (head_ + k) & mask_;
    n_ -= k;
  }

 private:
  void grow();
  std::vector<IntervalActivity> buf_ = std::vector<IntervalActivity>(8);  // a power of two
  size_t mask_ = 7;  // buf_.size() - 1, kept: the size is no power of two in bytes, a division each time
  size_t head_ = 0, n_ = 0;
};

class ActivityLog {
 public:
  ActivityLog(uint64_t interval_cycles, unsigned clusters);

  uint64_t interval_cycles() const { return len_; }
  unsigned clusters() const { return clusters_; }
  // The interval holding SM cycle `cycle` (cycles before the first undrained interval go to it).
  IntervalActivity& at(uint64_t cycle) {
    if (cycle - cur_start_ >= len_) seek(cycle);
    return *cur_;
  }
  // Counted in the interval of `cycle`, for the launch last issued from (issue()).
  void add(uint64_t cycle, Event e, uint64_t n = 1) {
    IntervalActivity& a = at(cycle);
    count(a, e, n);
    a.counted |= n != 0;
  }
  // A warp instruction of `lanes` active lanes, executed by lane cluster `cluster`, issued at `cycle`,
  // of kernel launch `launch`: counted in its interval, for that launch.
  void issue(uint64_t cycle, unsigned cluster, unsigned lanes, uint64_t launch);
  // What one warp instruction costs besides its issue: `lanes` thread-instructions on `unit`, its
  // register reads and writes per active lane, and (`shared`) one on-chip memory access.
  struct InstEvents {
    Event unit = Event::Int;
    unsigned reads = 0, writes = 0;
    bool shared = false;
  };
  // issue() and the instruction's events in one step: the hot path of every warp instruction, one
  // interval lookup for all of them (with no active lane only the issue counts).
  void instruction(uint64_t cycle, unsigned cluster, unsigned lanes, uint64_t launch, const InstEvents& e) {
    IntervalActivity& a = issue_at(cycle, cluster, lanes, launch);
    if (!lanes) return;
    count(a, e.unit, lanes);
    count(a, Event::RegRead, uint64_t(e.reads) * lanes);
    count(a, Event::RegWrite, uint64_t(e.writes) * lanes);
    count(a, Event::Shared, e.shared ? 1 : 0);
  }
  // Events per kernel launch (per-kernel energy); launch 0 holds what came before any instruction.
  std::unordered_map<uint64_t, EventCounts> by_launch() const;
  // The SM holds a block from `cycle` on (true) or none (false): powered time per interval.
  void set_powered(uint64_t cycle, bool on);

  // Intervals fully before interval index `end`, oldest first, handed to `f(index, activity)` and dropped.
  template <class F>
  void drain(uint64_t end, F&& f) {
    while (first_ < end) {
      if (q_.empty()) q_.push();
      drained_ += q_.front().events;
      q_.front().powered_cycles = powered_in(first_ * len_, (first_ + 1) * len_);
      f(first_, q_.front());
      q_.pop_front();
      ++first_;
    }
    drop_spans();
    cur_start_ = first_ * len_;
    cur_ = q_.empty() ? &q_.push() : &q_.front();
  }
  uint64_t first_open() const { return first_; }  // index of the oldest interval not drained
  // Events of the intervals drained (those skipped, steady, have none).
  const EventCounts& drained() const { return drained_; }
  uint64_t end_open() const;  // one past the newest interval with anything counted
  // The first interval with anything counted or any powered time; ~0 when it holds nothing (every
  // interval from first_open() on is idle until it counts again).
  uint64_t first_active() const;
  // One past the last interval from first_open() on that is steady: nothing counted and the SM powered
  // throughout every one of them or throughout none (its power is the same in each). first_open() when
  // the oldest interval is not steady; ~0 when it stays steady as far as anything is known.
  uint64_t steady_end() const;
  bool powered_at(uint64_t cycle) const;  // a block resident at SM cycle `cycle`
  // Drops the intervals before `end`, all steady (steady_end() >= end): a long stretch of constant
  // power, idle or a block resident issuing nothing, costs nothing per interval.
  void skip_steady(uint64_t end);
  // Called when more than `limit` intervals are held (the owner drains what simulated time allows),
  // so that a long run keeps a bounded log.
  void on_overflow(size_t limit, std::function<void()> f) {
    limit_ = limit;
    overflow_ = std::move(f);
  }

 private:
  void seek(uint64_t cycle);
  // Into the interval only: the launch's share is taken from the intervals' sums when the launch
  // changes (switch_launch), so that an event costs one addition rather than two.
  static void count(IntervalActivity& a, Event e, uint64_t n) { a.events[e] += n; }
  // Counts the issue; the interval it went to.
  IntervalActivity& issue_at(uint64_t cycle, unsigned cluster, unsigned lanes, uint64_t launch) {
    if (launch != launch_id_) switch_launch(launch);
    IntervalActivity& a = at(cycle);
    count(a, Event::WarpInst, 1);
    a.counted = true;
    a.issue_cycles += cycle != last_issue_ ? 1 : 0;  // dual issue: two instructions, one issue cycle
    last_issue_ = cycle;
    a.cluster_warp_insts[cluster] += 1;
    a.cluster_thread_insts[cluster] += lanes;
    return a;
  }
  void switch_launch(uint64_t launch);
  EventCounts counted_so_far() const;  // every event counted, drained or not
  // Powered cycles in [from, to): resident-block spans, not filed per interval, so that a block resident
  // for hours is two numbers rather than an entry per interval.
  uint64_t powered_in(uint64_t from, uint64_t to) const;
  void drop_spans();  // spans ended before first_open()
  uint64_t first_counted() const;  // the first interval with anything counted (~0: none)

  uint64_t len_;
  unsigned clusters_;
  IntervalRing q_;  // intervals first_, first_ + 1, ...
  uint64_t first_ = 0;
  IntervalActivity* cur_;
  uint64_t cur_start_ = 0;
  uint64_t last_issue_ = ~uint64_t{0};
  bool powered_ = false;
  uint64_t powered_since_ = 0;
  std::deque<std::pair<uint64_t, uint64_t>> spans_;  // ended resident-block spans [from, to), cycles
  // Events per launch up to the last launch change; those since belong to launch_id_ and are
  // counted_so_far() - at_switch_.
  std::unordered_map<uint64_t, EventCounts> launches_;
  uint64_t launch_id_ = 0;
  EventCounts drained_, at_switch_;  // events of the intervals drained; counted_so_far() at the change
  size_t limit_ = ~size_t{0};
  std::function<void()> overflow_;
};

}  // namespace gpuvp::power
