#pragma once
// The platform's modules and the signals between them (platform.cc builds and wires them;
// platform_stats.cc and platform_trace.cc read them). Internal to platform/.
#include <atomic>
#include <systemc>

#include <memory>
#include <optional>
#include <vector>

#include "models/arbiter/arbitrated_port.h"
#include "models/arbiter/interleaved_router.h"
#include "models/common/error_sink.h"
#include "models/common/print_sink.h"
#include "models/common/launch_signals.h"
#include "models/config_block/config_block.h"
#include "models/copy_engine/copy_engine.h"
#include "models/host_bus/host_bus.h"
#include "models/l2/l2.h"
#include "models/memory/memory.h"
#include "models/power/power_accounting.h"
#include "models/scheduler/block_scheduler.h"
#include "models/common/unmapped_target.h"
#include "models/scheduler/concurrent_dispatcher.h"
#include "models/sm/sm.h"
#include "platform/config/config.h"
#include "models/memprot/data_objects.h"
#include "platform/host_port.h"
#include "platform/platform.h"
#include "rtl/block_scheduler_wrapper.h"
#include "rtl/stall_arbiter_wrapper.h"

namespace gpuvp {

class PlatformImpl : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(PlatformImpl);
  PlatformImpl(sc_core::sc_module_name name, const Config& c, const PlatformHooks& hooks);

  Config cfg;
  Registry reg;
  ErrorSink errors;
  PrintSink prints;  // device printf: the SMs add, the host port hands a kernel's lines to the runtime
  Clock clk;
  unsigned n;  // SMs
  rt::DeviceProps dev;

  std::unique_ptr<Memory> gmem, sysmem, cmem;
  std::unique_ptr<DataObjects> objects;  // allocations with names and protection (models/memprot)
  std::unique_ptr<L2Cache> l2;  // tk1, tx2: between the global and fetch arbiters and the memories; none on flexgrip
  std::unique_ptr<ConfigBlock> cfgblk;
  std::unique_ptr<ArbitratedTarget> arb_gmem_rd, arb_gmem_wr, arb_cmem, arb_sysmem, arb_cfg;
  // With l2.slice_ports, global memory's read (and write) port is a router in front of one arbiter
  // per L2 slice, arb_gmem_rd_s<k> (arb_gmem_rd and arb_gmem_wr are then null).
  struct SlicedPort {
    std::unique_ptr<InterleavedRouter> router;
    std::vector<std::unique_ptr<ArbitratedTarget>> slices;
  };
  SlicedPort gmem_rd_sliced, gmem_wr_sliced;
  std::unique_ptr<UnmappedTarget> no_cfg;  // the SMs' configuration sockets in the concurrent mode
  std::unique_ptr<BlockDispatcher> sched;  // the batch scheduler (null in the concurrent mode)
  BlockSchedulerConfig sched_cfg;
  bool concurrent = false;                 // scheduler.kind = concurrent
  std::unique_ptr<ConcurrentDispatcher> disp;
  std::unique_ptr<CopyEngine> ce;
  std::vector<std::unique_ptr<Sm>> sms;
  std::unique_ptr<power::PowerAccounting> power;  // power, temperature, wear (null: power.enabled = false)
  std::unique_ptr<HostBus> bus;
  std::unique_ptr<HostPort> host;
  // The Verilated cores in use (their flip-flops go to the VCD).
  RtlBlockScheduler* rtl_sched = nullptr;
  std::vector<RtlStallArbiter*> rtl_arbiters;

  // Configuration block -> scheduler.
  sc_core::sc_signal<bool> rst{"rst"}, en{"en"}, rdy{"rdy"}, kernel_done{"kernel_done"};
  LaunchConfigPins<Wire> launch_cfg{"c_"};
  // Scheduler -> SMs.
  sc_core::sc_vector<sc_core::sc_signal<uint32_t>> num_blocks, block_idx;
  sc_core::sc_vector<sc_core::sc_signal<bool>> smp_en, smp_reset, smp_done;
  LaunchDimsPins<Wire> launch_dims{"l_"};

  PlatformHooks hooks;
  std::vector<std::string> links;  // every link name, in wiring order
  std::vector<uint64_t> dispatches;  // instants (ps) at which the scheduler raised an smp_en
  bool keep_dispatches = false;      // Platform::record_markers: one entry per instant, asked for
  sc_core::sc_trace_file* vcd = nullptr;
  double host_seconds = 0;
  // Platform::limit_host_time: a CPU-time instant (process clock, s) the run stops at, set while it runs.
  // Atomic: the CUDA runtime sets it from the exiting thread while the simulation's thread runs. < 0: none.
  std::atomic<double> host_deadline{-1};
  std::atomic<double> deadline_s{0};  // the limit it was set from, for the timeout's message

  // Simulates until `end` (nullopt: until nothing is left); false when sim.host_timeout_s (or the limit
  // of limit_host_time) ran out first.
  bool run_until(const std::optional<sc_core::sc_time>& end);

  std::vector<ArbitratedTarget*> arbiters() const {
    std::vector<ArbitratedTarget*> all;
    for (ArbitratedTarget* a : {arb_gmem_rd.get(), arb_gmem_wr.get()})
      if (a) all.push_back(a);
    for (const SlicedPort* sp : {&gmem_rd_sliced, &gmem_wr_sliced})
      for (const auto& a : sp->slices) all.push_back(a.get());
    for (ArbitratedTarget* a : {arb_cmem.get(), arb_sysmem.get(), arb_cfg.get()}) all.push_back(a);
    return all;
  }

 private:
  void build_memories();
  void build_arbiters();
  // A port of global memory: one arbiter `name`, or with l2.slice_ports a router and an arbiter per slice.
  template <class Make>
  void build_gmem_port(const std::string& name, Make&& arb, std::unique_ptr<ArbitratedTarget>& single,
                       SlicedPort& sliced);
  template <class T>
  void link_gmem_port(const std::string& name, std::unique_ptr<ArbitratedTarget>& single, SlicedPort& sliced, T& next);
  template <class I>
  void link_gmem_requester(const std::string& name, I& init, unsigned i, std::unique_ptr<ArbitratedTarget>& single,
                           SlicedPort& sliced);
  void build_scheduler();
  void build_concurrent();
  void build_power();  // after the SMs  // the dispatcher and the copy engine, after the SMs
  void fill_props();
  void wire();
  void watch_dispatch();
  void note_dispatch();
  // Binds `init` to `target`, through the hooks' interposer for `name` if there is one.
  template <class I, class T>
  void link(const std::string& name, I& init, T& target) {
    links.push_back(name);
    Interposer ip = hooks.interpose ? hooks.interpose(name) : Interposer{};
    if (ip.in && ip.out) {
      init.bind(*ip.in);
      ip.out->bind(target);
    } else {
      init.bind(target);
    }
  }
};

}  // namespace gpuvp
