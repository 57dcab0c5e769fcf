// Waveforms (VCD) of the scheduler, the arbiters and the SM handshakes, under registry names.
#include <fmt/format.h>

#include "platform/platform.h"
#include "platform/platform_impl.h"

namespace gpuvp {

void Platform::trace_vcd(const std::string& path) {
  auto& p = *impl_;
  p.vcd = sc_core::sc_create_vcd_trace_file(path.c_str());
  p.vcd->set_time_unit(1, sc_core::SC_PS);  // tk1/tx2 clock periods are not whole nanoseconds
  auto t = [&](const auto& sig, const std::string& nm) { sc_core::sc_trace(p.vcd, sig, nm); };
  // The arbiters' pins, traced on the core's ports (the same for the model and an RTL core); the
  // transaction-level arbiters have none.
  for (auto* a : p.arbiters()) {
    if (!a->pin_core()) continue;
    StallArbiterCore& c = *a->pin_core();
    for (unsigned i = 0; i < c.size(); ++i) {
      std::string base = fmt::format("{}.", a->basename());
      t(c.req[i], base + fmt::format("req_{}", i));
      t(c.ack[i], base + fmt::format("ack_{}", i));
      t(c.grant[i], base + fmt::format("grant_{}", i));
      t(c.stall[i], base + fmt::format("stall_{}", i));
    }
  }
  t(p.en, "sched.en");
  t(p.rdy, "sched.rdy");
  t(p.kernel_done, "sched.kernel_done");
  t(p.launch_cfg.blocks_per_core, "sched.blocks_per_core");
  t(p.launch_cfg.grid_x, "sched.grid_x");
  t(p.launch_cfg.grid_y, "sched.grid_y");
  for (unsigned i = 0; i < p.n; ++i) {
    std::string sm = fmt::format("sm{}.", i);
    t(p.smp_en[i], sm + "smp_en");
    t(p.smp_reset[i], sm + "smp_reset");
    t(p.smp_done[i], sm + "smp_done");
    t(p.num_blocks[i], sm + "num_blocks");
    t(p.block_idx[i], sm + "block_idx");
  }
  // Internal flip-flops of the Verilated RTL, under their registry names.
  if (p.rtl_sched) p.rtl_sched->trace(p.vcd, p.rtl_sched->config().path + ".");
  for (RtlStallArbiter* a : p.rtl_arbiters) a->trace(p.vcd, a->path() + ".");
}

}  // namespace gpuvp
