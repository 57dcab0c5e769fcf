#pragma once
// Builds a platform from a configuration, wires it, and runs a host program on it.
// SystemC elaborates once per process: build one Platform per process.
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <tlm>

#include "models/cache/cache_core.h"
#include "models/common/registry.h"
#include "models/memprot/data_objects.h"
#include "models/sm/sm_config.h"
#include "platform/config/config.h"
#include "sw/runtime/host_interface.h"
#include "sw/runtime/runtime.h"

namespace gpuvp {

struct ArbiterStats {
  std::string name;
  std::vector<uint64_t> grants;         // per requester
  std::vector<uint64_t> stall_cycles;   // per requester: cycles its stall pin was high
  std::vector<uint64_t> wait_cycles;    // per requester: cycles waited beyond an uncontended request's
};

// One cache's counters (models/cache/cache_core.h, CacheStats; merges and stalls as timed).
struct CacheStatsEntry {
  std::string name;  // l1d, ccache, icache (per SM), l2
  CacheStats counters;
};

struct PlatformStats {
  double sim_seconds = 0;      // simulated time at the end of the host program
  uint64_t kernel_cycles = 0;  // GPU cycles inside kernels (scheduler out of IDLE)
  double host_seconds = 0;     // wall-clock time of run()
  std::vector<SmStats> sms;
  std::vector<double> sm_residency_fraction;  // time with a resident block / kernel time
  std::vector<ArbiterStats> arbiters;
  std::vector<std::vector<CacheStatsEntry>> sm_caches;  // per SM, the caches it has (none on flexgrip)
  std::vector<CacheStatsEntry> l2;                      // the L2, when there is one
  std::vector<rt::LaunchStats> launches;
  // Bytes the global memory (DRAM) served: over the run, and per launch (parallel to `launches`)
  // while it was in flight, from its start to its end.
  struct Bytes {
    uint64_t read = 0, write = 0;
  };
  Bytes dram;
  std::vector<Bytes> launch_dram;
  uint64_t thread_insts = 0;
  // Energy, temperature and wear (platform_power.cc; docs/statistics.md): "total", "em", "sms" (one
  // object per SM) and "launches" (launch id -> dynamic energy); null when power.enabled is false.
  nlohmann::json power;
  nlohmann::json to_json() const;
};

// The run did not finish within sim.timeout_ms of simulated time, or sim.host_timeout_s of host time.
class TimeoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class PlatformImpl;
class RetireObserver;  // models/sm/simt_core.h
namespace power {
class PowerAccounting;  // models/power/power_accounting.h
}

// A pass-through TLM module put on one link of the platform (fault injection's bus saboteur): the
// platform binds the link's initiator to `in` and `out` to the link's target.
struct Interposer {
  tlm::tlm_target_socket<32>* in = nullptr;
  tlm::tlm_initiator_socket<32>* out = nullptr;
};

struct PlatformHooks {
  // Asked once per link (names: Platform::link_names()) while the platform is wired; an empty
  // Interposer leaves the link as it is. The module must live as long as the platform.
  std::function<Interposer(const std::string& link)> interpose;
  // Arbiter models behind req/ack/grant/stall signals, as an RTL core is, so that trace_vcd can show
  // them; cycle-equal to, and slower than, the default transaction-level arbiters.
  bool arbiter_pins = false;
};

class Platform {
 public:
  explicit Platform(const Config& cfg, const PlatformHooks& hooks = {});
  ~Platform();

  Registry& registry();
  const rt::DeviceProps& props() const;
  const Config& config() const;

  // Waveforms of the scheduler, arbiters and SM handshakes; call before run(). The arbiters' pins
  // are traced when they have pins (arbiter.impl = rtl, or PlatformHooks::arbiter_pins).
  void trace_vcd(const std::string& path_without_extension);

  // Runs `host` in the host thread (it drives the GPU through the runtime) and returns when it
  // has returned and the simulation has stopped. Exceptions thrown by `host` are rethrown here.
  void run(const std::function<void(rt::Runtime&)>& host);

  // The same run in steps, so that a caller can stop at an instant, look or fork, and go on:
  // start() sets the host program; advance_to(t) simulates up to instant t (SMs running ahead of
  // simulated time synchronise at t) and returns false once the host program has finished;
  // finish() runs to the end and reports as run() does, with `limit_ms` (> 0) instead of
  // sim.timeout_ms as the simulated-time bound.
  void start(const std::function<void(rt::Runtime&)>& host);
  bool advance_to(uint64_t t_ps);
  void finish(double limit_ms = 0);
  // Allowed before finish(); limit_host_time(s) may then be called while it runs (from the host program):
  // the run stops with a timeout once `s` more seconds of CPU time have passed. The CUDA runtime's
  // session bounds a program's exit this way, its run before that having no host-time limit.
  void watch_host_time() { limit_host_time(0); }
  void limit_host_time(double s);
  bool finished() const;

  // Links an Interposer may be put on: gpu.smN.{imem,cfg,cmem,gmem_rd,gmem_wr}, gpu.arb_*.out, gpu.host.
  std::vector<std::string> link_names() const;
  // Kernel execution windows so far (scheduler leaving IDLE to kernel_done), in ps.
  std::vector<std::pair<uint64_t, uint64_t>> kernel_windows() const;
  // Scheduler phases so far (configuration, dispatch, wait, exchange, idle) with the instant (ps) each
  // began, from the scheduler's state (the model's or the RTL's flip-flops); after record_markers().
  std::vector<std::pair<std::string, uint64_t>> scheduler_phases() const;
  // A hash of the platform's state at this instant: every registered value, the timing digest, the
  // host's reads, what the kernels printed. Two runs with equal hashes at the same instant go on identically.
  uint64_t state_hash() const;
  // What the models' futures depend on beyond their registered values (Registry::timing_digest at this
  // instant): the SMs' cycles, the arbiters' handshakes, the DRAM bus, the caches' slots and fills, the
  // dispatcher's inputs, the copy engine's copy, the host's kernel windows. Part of state_hash.
  uint64_t timing_digest() const;
  // Keeps the fault-campaign markers from now on (call before run): dispatch instants and scheduler
  // phases. Off by default: a huge grid must not grow memory per block or batch.
  void record_markers();
  // Instants (ps) at which the scheduler dispatched a batch (an smp_en rose); after record_markers().
  std::vector<uint64_t> dispatch_times() const;
  // Records the instant (ps) each warp instruction of SM `sm` issues, from now on (fault triggers).
  void record_issues(unsigned sm);
  std::vector<uint64_t> issue_times(unsigned sm) const;
  // Shows every warp instruction SM `sm` executes to `o`, right after it executed, in the SM's own
  // time (instruction-output faults); nullptr: off. Throws std::out_of_range for an SM that is not there.
  void set_retire_observer(unsigned sm, RetireObserver* o);
  // Warp instructions SM `sm` executed so far (RetiredInst::seq of the last one).
  uint64_t warp_insts(unsigned sm) const;
  // The clock period of the GPU, in ps.
  uint64_t clock_period_ps() const;
  // The application's allocations with their names and protection (models/memprot/data_objects.h);
  // set its `observer` before run() to profile the memory accesses (platform/mem_profile.h).
  DataObjects& data_objects();
  // A permanent stuck-at fault in global memory's cells (Memory::stick): the bits of `mask` of the
  // word at `addr` hold those of `values`.
  void stick_global(uint64_t addr, uint32_t mask, uint32_t values);

  PlatformStats stats() const;
  // Power, temperature and wear after the run (every interval closed); nullptr when power.enabled is false.
  const power::PowerAccounting* power() const;
  // Keeps the power trace (PowerAccounting::trace(), a row per SM per interval) for the outputs that
  // show it; call before run(). Without it the statistics are the same but no row is kept.
  void record_power_trace();
  // Every block of every kernel, in start order; kept only after record_timeline() (before run()).
  void record_timeline();
  std::vector<BlockRecord> timeline() const;

 private:
  std::unique_ptr<PlatformImpl> impl_;
  // Throws ConfigError naming each protect.* name no allocation of the finished program had.
  void check_protected_names() const;
};

// Chrome trace-event JSON (Perfetto / chrome://tracing) of the block timeline.
nlohmann::json timeline_trace_events(const std::vector<BlockRecord>& blocks, const std::vector<rt::LaunchStats>& launches);

}  // namespace gpuvp
