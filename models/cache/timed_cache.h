#pragma once
// Timing around a CacheCore for callers that run ahead of simulated time and make blocking
// accesses that return a completion cycle (the SIMT core's b_transports, the L2's). One class for
// every cache of the platform: the SM's L1 data, constant and instruction caches and the L2.
//
// A miss is resolved at once: the missing sectors are read from the next level (a blocking call
// that returns the cycle the data is there, its fill time) and filled into the core immediately;
// the line is then "in flight" until its fill time. An access that finds the line in flight
// completes no earlier than the fill (an MSHR merge, counted as one); an access issued before the
// miss itself (another requester behind in time) waits as long as that miss did. MSHR occupancy is
// the number of lines in flight at the access's cycle: a miss that finds all MSHRs busy stalls
// until the earliest fill. Each access first takes a slot of its bank (line-interleaved, one tag
// lookup per bank per cycle), so bandwidth is structural. docs/caches.md ("Timing").
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/cache/cache_core.h"

namespace gpuvp {

// An access to the next level. `demand` is the part the requester asked for: the next level checks
// bounds on it only (a sector read past the end of an allocation is no error; demand_len 0: a
// write-back, checked when it was written).
struct NextAccess {
  uint64_t addr = 0;
  uint8_t* data = nullptr;
  unsigned len = 0;
  bool write = false;
  uint64_t at = 0;  // cycle it leaves
  uint64_t demand_addr = 0;
  unsigned demand_len = 0;
};

struct CacheTiming {
  unsigned latency = 1;  // cycles from the access (its bank slot) to the data on a hit; a miss leaves then
  unsigned banks = 1;    // line-interleaved banks, each one lookup per cycle
  // A write-back cache writes back only the bytes written of its dirty sectors, not whole sectors:
  // caches side by side that are not coherent (the SMs' L1s) must not overwrite each other's words
  // in a shared sector with the stale bytes they fetched (docs/caches.md, "Write-back L1").
  bool write_bytes = false;
};

class TimedCache {
 public:
  static constexpr uint64_t kFail = ~uint64_t{0};
  // Returns the cycle the access is done (a read's data there), or kFail (the next level refused it).
  using Next = std::function<uint64_t(const NextAccess&)>;

  TimedCache(const CacheGeometry& g, const CacheTiming& t, Next next);

  // [addr, addr + len) from cycle `at`, any length (split into lines, one after the other through
  // their banks); the demand range for bounds checks is the request itself unless given.
  uint64_t read(uint64_t addr, uint8_t* dst, unsigned len, uint64_t at) { return run(addr, dst, nullptr, len, at, addr, len); }
  uint64_t read(uint64_t addr, uint8_t* dst, unsigned len, uint64_t at, uint64_t demand_addr, unsigned demand_len) {
    return run(addr, dst, nullptr, len, at, demand_addr, demand_len);
  }
  uint64_t write(uint64_t addr, const uint8_t* src, unsigned len, uint64_t at) {
    return run(addr, nullptr, src, len, at, addr, len);
  }
  // Cycle the last access took its bank slot (after any MSHR stall): the cache accepts the next
  // access of the same requester from the cycle after.
  uint64_t accepted() const { return accepted_; }

  // Every line dropped (a kernel boundary for the non-coherent L1); dirty sectors are written back
  // (none in a write-through cache). Fills in flight are forgotten.
  void invalidate(uint64_t at);
  // Every dirty sector written back at `at`, the lines kept (clean): the end of a kernel, a
  // membar.gl, for a write-back L1 (nothing in a write-through cache).
  void write_back_all(uint64_t at);
  // Coherence for an outside access of [lo, hi) (host, copy engine, atomics at the memory): dirty
  // sectors of the lines it overlaps are written back at `at`; with `drop` the lines are dropped.
  void clean(uint64_t lo, uint64_t hi, bool drop, uint64_t at);
  // Bytes of [addr, addr + len) the cache holds (valid sectors) copied over dst: a debug read sees
  // what a timed read would.
  void overlay(uint64_t addr, uint8_t* dst, unsigned len) const;
  uint64_t overlay_changes() const { return core_.overlay_changes(); }  // CacheCore::overlay_changes

  // Registers the core's arrays under `prefix` (CacheCore::register_state, observed with `now_ps`) and
  // the timing below, for a cache clocked every `period_ps`; `on_write` runs after a write to the arrays
  // through the registry (a fault).
  void register_state(Registry& reg, const std::string& prefix, std::function<uint64_t()> now_ps, uint64_t period_ps,
                      std::function<void()> on_write = {});
  // What later accesses find beyond the arrays: the bank slots and fills in flight from `now_cycle`
  // less the slot window on (a requester behind in time up to it still finds them), relative to it,
  // and the bytes written of each line (Registry::add_timing).
  uint64_t timing_digest(uint64_t now_cycle) const;

  // The core's counters with the timing's merges and stalls.
  CacheStats stats() const;
  CacheCore& core() { return core_; }
  const CacheCore& core() const { return core_; }

 private:
  struct InFlight {
    uint64_t line = 0, issued = 0, ready = 0;
  };
  uint64_t run(uint64_t addr, uint8_t* dst, const uint8_t* src, unsigned len, uint64_t at, uint64_t daddr,
               unsigned dlen);
  uint64_t piece(const CacheRequest& r, uint64_t at, uint64_t daddr, unsigned dlen);
  uint64_t slot(uint64_t line, uint64_t at);
  const InFlight* in_flight(uint64_t line, uint64_t at);
  uint64_t mshr_free_at(uint64_t at);
  uint64_t fetch(const CacheAccess& a, uint64_t at, uint64_t daddr, unsigned dlen);
  void write_back(const CacheVictim& v, uint64_t at);
  void note(uint64_t line, uint64_t issued, uint64_t ready);
  void note_written(const CacheRequest& r, CacheOutcome o);
  void write_run(const CacheVictim& v, const std::vector<uint8_t>& data, unsigned first, unsigned n, uint64_t at);

  CacheCore core_;
  CacheTiming t_;
  Next next_;
  std::vector<uint64_t> bank_slots_;  // per bank, a ring of the cycles whose lookup slot is taken
  std::vector<InFlight> flight_;
  std::vector<uint8_t> line_buf_;
  // With write_bytes: per line address, a flag per byte written since the line was allocated (not
  // registered, like the MSHRs; a sector dirty without any, a fault's, is written back whole).
  std::unordered_map<uint64_t, std::vector<uint8_t>> written_;
  uint64_t accepted_ = 0;
  uint64_t merges_ = 0, stalls_ = 0;  // hits on lines in flight; misses that waited for an MSHR
};

// Calls f(first, count) for each run of consecutive set bits of `mask`.
template <typename F>
void for_each_run(uint32_t mask, F f) {
  while (mask) {
    const unsigned first = unsigned(__builtin_ctz(mask));
    unsigned n = 0;
    while (mask >> (first + n) & 1) ++n;
    f(first, n);
    mask &= ~(((n >= 32 ? 0u : (1u << n)) - 1u) << first);
  }
}

}  // namespace gpuvp
