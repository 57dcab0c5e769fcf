#pragma once
// The DRAM data bus as a bandwidth server exact over time (docs/validation.md, "DRAM model").
//
// Transfers are served one after the other in the order they are offered (first come, first served):
// a transfer of B bytes offered at `a` starts at max(a, the instant the bus is next free) and occupies
// the bus for exactly B / bandwidth. Nothing is rounded per transfer: while the bus stays busy, the
// instant it frees is computed from the start of the busy period and the bytes served since, so N
// back-to-back transfers of B bytes end N * B / bandwidth after the first started (to the picosecond,
// rounded up once). Who rounds to a clock edge does so once, at the end of its own access.
#include <systemc>

#include <cstdint>

namespace gpuvp {

class DramBus {
 public:
  struct Slot {
    sc_core::sc_time start, end;  // the transfer's first and last instant on the bus (end rounded up to 1 ps)
  };

  explicit DramBus(double bytes_per_ns = 1.0) : ps_per_byte_(1000.0 / bytes_per_ns) {}

  // Serves `bytes` offered at `arrival` (calls come in arrival order, or queue as if they had).
  Slot reserve(const sc_core::sc_time& arrival, uint64_t bytes);
  // When the bus is next free (rounded up to 1 ps).
  sc_core::sc_time free_at() const { return ps(exact_free()); }
  uint64_t bytes() const { return bytes_; }
  // Time the bus has been busy, in ps (exact: the bytes served at the bandwidth).
  double busy_ps() const { return double(bytes_) * ps_per_byte_; }

 private:
  double exact_free() const { return double(origin_) + double(period_bytes_) * ps_per_byte_; }
  static sc_core::sc_time ps(double t);

  double ps_per_byte_;
  uint64_t origin_ = 0;        // ps: the start of the current busy period
  uint64_t period_bytes_ = 0;  // bytes served since origin_
  uint64_t bytes_ = 0;         // all bytes served
};

}  // namespace gpuvp
