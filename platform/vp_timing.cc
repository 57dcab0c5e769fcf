// Issue-to-next-issue cycles of one warp instruction with W warps per SM (docs/vulnerable-period.md):
//   step = max(round, own)
// round: the cycles the warp waits for its turn, W warps per SM times the issue cycles of one warp
//   instruction, shared by the schedulers (issue timing), or W times the packets of a warp through
//   the slowest pipeline stage (flexgrip timing);
// own: the instruction's unit cycles and class latency (issue timing) or its pipeline time
//   (flexgrip), plus for global and constant accesses the memory's latency and the transfer of
//   every SM's resident warps' data before it (the concurrent accesses the configuration implies).
// That is when the warp's next instruction may issue and when the result is there, except after a
// global or constant load with a scoreboard (sm.max_pending_loads > 0): the warp issues again after
// the unit's cycles and lat.alu, and only a reader of the load's result waits for the data.
#include "platform/vp_timing.h"

#include <algorithm>
#include <cmath>

#include "models/sm/class_latency.h"
#include "models/sm/flexgrip_pipeline.h"
#include "models/sm/sm_config.h"

namespace gpuvp {

namespace {

struct Memory {
  double latency = 0, bytes_per_cycle = 1;
};

struct Machine {
  SmConfig sm;
  unsigned sms = 1, warps = 1;
  Memory gmem, cmem;
};

Memory global_memory(const Config& c) {
  const double mhz = c.f("gpu.clock_mhz");
  Memory m{double(c.i("gmem.latency")) + c.f("gmem.latency_ns") * mhz / 1000, double(c.i("gmem.bytes_per_cycle"))};
  if (c.s("gmem.model") == "dram") m.bytes_per_cycle = c.f("gmem.bandwidth_gbps") * 1000 / mhz;
  return m;
}

// Latency plus the transfer of every resident warp's access on the port before this one.
double memory_cycles(const Machine& m, const isa::Inst& in) {
  const isa::Space sp = in.mod.space;
  if (sp == isa::Space::Shared || sp == isa::Space::Local || sp == isa::Space::Param) return 0;
  const Memory& mem = sp == isa::Space::Const ? m.cmem : m.gmem;
  const double bytes = double(m.sm.warp_size) * std::max(1u, isa::bits_of(in.type) / 8) * in.vec;
  return mem.latency + double(m.sms) * m.warps * bytes / mem.bytes_per_cycle;
}

bool memory_op(const isa::Inst& in) {
  return in.op == isa::Opcode::Ld || in.op == isa::Opcode::St || in.op == isa::Opcode::Atom ||
         in.op == isa::Opcode::Red;
}

// A global or constant load the scoreboard (sm.max_pending_loads) lets the warp run past.
bool scoreboarded(const Machine& m, const isa::Inst& in) {
  const isa::Space sp = in.mod.space;
  return m.sm.max_pending_loads > 0 && in.op == isa::Opcode::Ld &&
         (sp == isa::Space::Global || sp == isa::Space::Const || sp == isa::Space::Generic);
}

ptx::vp::Step issue_step(const Machine& m, const isa::Inst& in) {
  const unsigned lanes = std::max(1u, m.sm.sps / m.sm.schedulers);
  const unsigned issue = (m.sm.warp_size + lanes - 1) / lanes;
  const double round = std::ceil(double(m.warps) / m.sm.schedulers) * issue;
  const double unit = sm::unit_cycles(in, m.sm);
  double own = unit + sm::class_latency(in, m.sm.lat);
  if (memory_op(in)) own += memory_cycles(m, in);
  const double result = std::max(round, own);
  // Past a scoreboarded load the warp issues again after address generation (docs/sm.md, Scoreboard).
  if (scoreboarded(m, in)) return {std::max(round, unit + m.sm.lat.alu), result};
  return {result, result};
}

ptx::vp::Step flexgrip_step(const Machine& m, const isa::Inst& in) {
  const unsigned packets = std::max(1u, m.sm.warp_size / m.sm.sps);
  const sm::FgCosts c = sm::flexgrip_costs(in, packets, m.sm.fold_operands);
  if (c.folded) return {0, 0};
  unsigned through = 0, slowest = 0;
  for (unsigned s = 0; s < sm::kFgStages; ++s) {
    through += c.first.o[s];
    slowest = std::max(slowest, c.rest.o[s]);
  }
  double own = through + double(packets - 1) * (slowest + 1);
  if (memory_op(in)) own += memory_cycles(m, in);
  const double step = std::max(double(m.warps) * packets * (slowest + 1), own);
  return {step, step};
}

}  // namespace

ptx::vp::StepCycles vp_step_cycles(const Config& cfg, unsigned warps) {
  Machine m;
  m.sm = SmConfig::from(cfg.params("sm", "gpu.sm0"));
  m.sms = unsigned(cfg.i("sm.count"));
  m.warps = std::max(1u, warps);
  m.gmem = global_memory(cfg);
  m.cmem = {double(cfg.i("cmem.latency")), double(cfg.i("cmem.bytes_per_cycle"))};
  if (m.sm.timing == SmTiming::Flexgrip) return [m](const isa::Inst& in) { return flexgrip_step(m, in); };
  return [m](const isa::Inst& in) { return issue_step(m, in); };
}

}  // namespace gpuvp
