#pragma once
// The DRAM data bus as a bandwidth server exact over time (docs/validation.md, "DRAM model").
//
// A transfer of B bytes offered at `a` occupies the bus for exactly B / bandwidth, in the first gap
// from `a` on that is long enough (first come, first served in time: a transfer offered earlier in
// simulated time than one reserved before it, as a temporally decoupled requester or an L2 posting a
// write-back at a fill still ahead does, uses the idle bus before that one instead of queueing behind
// it). Nothing is rounded per transfer: a busy period is kept as its start and the bytes served in
// it, so N back-to-back transfers of B bytes end N * B / bandwidth after the first started (to the
// picosecond, rounded up once). Who rounds to a clock edge does so once, at the end of its own access.
#include <systemc>

#include <cstdint>
#include <map>

namespace gpuvp {

class DramBus {
 public:
  struct Slot {
    sc_core::sc_time start, end;  // the transfer's first and last instant on the bus (end rounded up to 1 ps)
  };

  explicit DramBus(double bytes_per_ns = 1.0) : ps_per_byte_(1000.0 / bytes_per_ns) {}

  // Serves `bytes` offered at `arrival` (no earlier than the current simulated time).
  Slot reserve(const sc_core::sc_time& arrival, uint64_t bytes);
  // When the bus is free of every transfer reserved so far (rounded up to 1 ps).
  sc_core::sc_time free_at() const;
  uint64_t bytes() const { return bytes_; }
  // The busy periods not over at `now` (ps), relative to it: what a transfer offered from now on
  // queues behind (Registry::add_timing through the memory).
  uint64_t timing_digest(uint64_t now) const;
  // Time the bus has been busy, in ps (exact: the bytes served at the bandwidth).
  double busy_ps() const { return double(bytes_) * ps_per_byte_; }

 private:
  using Periods = std::map<uint64_t, uint64_t>;  // busy periods: start (ps) -> bytes served from it
  double end_of(const Periods::value_type& p) const { return double(p.first) + double(p.second) * ps_per_byte_; }
  static sc_core::sc_time ps(double t);

  double ps_per_byte_;
  Periods busy_;       // disjoint, in time order; those over before the current time are dropped
  uint64_t bytes_ = 0;  // all bytes served
};

}  // namespace gpuvp
