#pragma once
// Streaming multiprocessor: SMP controller (block-scheduler.md handshake), warp scheduler,
// SIMT core, shared memory. Instructions are fetched from system memory through `imem` and
// decoded here, so a fault in system memory is a fault in the program.
//
// Port contract (the platform wires these; see platform/platform.cc):
//   smp_en, smp_reset, num_blocks, block_idx  <- block scheduler (per-SM outputs)
//   dims (block_x/y/z, grid_x/y/z, ...)         <- block scheduler (latched launch outputs, shared by all SMs)
//   smp_done                                   -> block scheduler
//   imem    -> system memory arbiter   (instruction fetch)
//   cfg     -> configuration block arbiter (entry address, parameter words, kernel resources at smp_en)
//   cmem    -> constant memory arbiter
//   gmem_rd -> global memory read-port arbiter
//   gmem_wr -> global memory write-port arbiter (stores; atomics use gmem_rd then gmem_wr... see sm.cc)
// All TLM transactions use absolute addresses (sw/isa/address_map.h).
// In the concurrent-kernel mode (SmConfig::concurrent) the SM takes blocks one at a time from the
// dispatcher (assign) and reports each block's completion to it; smp_en stays low.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <memory>
#include <string>
#include <vector>

#include "models/cache/cache_core.h"
#include "models/common/error_sink.h"
#include "models/common/gpu_work.h"
#include "models/common/launch_signals.h"
#include "models/common/print_sink.h"
#include "models/common/registry.h"
#include "models/sm/cluster_distributor.h"
#include "models/sm/sm_config.h"

namespace gpuvp {

class RetireObserver;  // simt_core.h
class DataObjects;     // models/memprot
namespace power {
class ActivityLog;  // models/power/activity.h
}

class SmCore;  // SMP controller state + CoreEnv over the sockets around a SimtCore (sm.cc, simt_core.h)

class Sm : public sc_core::sc_module, public BlockTarget {
 public:
  sc_core::sc_in<bool> smp_en{"smp_en"};
  sc_core::sc_in<bool> smp_reset{"smp_reset"};
  sc_core::sc_in<uint32_t> num_blocks{"num_blocks"};
  sc_core::sc_in<uint32_t> block_idx{"block_idx"};
  LaunchDimsPins<InPin> dims;  // latched launch dimensions from the block scheduler
  sc_core::sc_out<bool> smp_done{"smp_done"};

  tlm_utils::simple_initiator_socket<Sm> imem{"imem"};
  tlm_utils::simple_initiator_socket<Sm> cfg{"cfg"};
  tlm_utils::simple_initiator_socket<Sm> cmem{"cmem"};
  tlm_utils::simple_initiator_socket<Sm> gmem_rd{"gmem_rd"};
  tlm_utils::simple_initiator_socket<Sm> gmem_wr{"gmem_wr"};

  // `path` is the registry prefix, e.g. "gpu.sm0"; the SM registers its controller state and
  // shared memory (path + ".smem") there. Lines the threads print go to `prints` (nullptr: dropped).
  Sm(sc_core::sc_module_name name, const SmConfig& cfg, Registry& reg, ErrorSink& errors, const std::string& path,
     PrintSink* prints = nullptr);
  ~Sm() override;

  const SmConfig& config() const;
  // Concurrent mode: where completions go, and a block to start now (from the dispatcher).
  // `h` (may be null) says until when no block can arrive, so the SM may run ahead that far.
  void connect_dispatcher(BlockDoneSink& d, const ConcurrentHorizon* h = nullptr);
  void assign(const BlockWork& w) override;
  // Simulated instant (ps) the SM must not run ahead of (temporal decoupling): at that instant its
  // registered state is its state then. ~0: no horizon.
  void set_horizon(uint64_t ps);
  // Records the instant (ps) each warp instruction issues, from now on.
  void record_issues(bool on);
  std::vector<uint64_t> issue_times() const;
  // Shows every warp instruction the SM executes to `o` (SimtCore::set_retire_observer; nullptr: off).
  void set_retire_observer(RetireObserver* o);
  const SmStats& stats() const;
  // Per cache the SM has (l1d, ccache, icache; none on flexgrip), its counters.
  std::vector<std::pair<std::string, CacheStats>> cache_stats() const;
  // Keeps a BlockRecord per finished block (on by default; the platform keeps them for a timeline only).
  void record_blocks(bool on);
  // The platform's data objects: the memory profiler's hooks and the protected objects' copies.
  void set_data_objects(DataObjects* d);
  const std::vector<BlockRecord>& block_records() const;
  // Counts what consumes energy into `log` from now on (models/power/activity.h; nullptr: off).
  void set_activity(power::ActivityLog* log);
  // The instruction distribution unit choosing each warp instruction's lane cluster (models/sm/cluster_distributor.h).
  void set_distributor(std::unique_ptr<sm::ClusterDistributor> d);

 private:
  void controller_thread();  // SMP controller (SC_THREAD)
  void reset_method();       // smp_reset (SC_METHOD)
  std::unique_ptr<SmCore> core_;
};

}  // namespace gpuvp
