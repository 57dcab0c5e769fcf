#pragma once
// RtlStallArbiter: the Verilated rtl/stall_arbiter.sv behind the pins of StallArbiterCore, with
// the timing of models/arbiter/stall_arbiter.h (an input that changes in [(k-1)T, kT) is sampled
// at edge k; outputs computed at edge k change at kT).
//
// Clock gating: the Verilated model is clocked only at edges that can change it. The process
// sleeps until an input changes or a flip-flop is written through the registry, then clocks the
// model at the next edge strictly after now; it keeps clocking while an edge changed a
// flip-flop, and sleeps again after the first edge that changed none (a Moore machine whose
// state and inputs did not change at an edge does not change at the next one either). Skipped
// edges are edges at which an always-clocked RTL would not change anything: cycle-exact.
//
// Every flip-flop (enumerated from Verilator's netlist) is registered under <path>.<name>.
//
// Access recording, as the model records it (stall_arbiter.h): `state` and `grant` are read at every
// instant (read_always); `last` and `stall` have the fates the probes find at each evaluated edge
// (rtl/flop_accesses.h: nothing outside the design reacts to `stall` but the pins' statistics).
#include <systemc>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/arbiter/stall_arbiter.h"
#include "rtl/flop_accesses.h"
#include "rtl/verilated_model.h"

namespace gpuvp {

class RtlStallArbiter : public StallArbiterCore {
 public:
  RtlStallArbiter(sc_core::sc_module_name name, unsigned n, const Clock& clock, Registry& reg, const std::string& path,
                  bool sequential = false);
  SC_HAS_PROCESS(RtlStallArbiter);

  uint64_t evaluations() const { return evaluations_; }  // edges the Verilated model was clocked
  const rtl::VModel& model() const { return *m_; }
  const std::string& path() const { return path_; }
  // Adds every flip-flop to a VCD (as <prefix><name>).
  void trace(sc_core::sc_trace_file* tf, const std::string& prefix) const;

 private:
  void process();
  void drive();
  void wake() { wake_ev_.notify(sc_core::SC_ZERO_TIME); }
  void end_of_simulation() override;

  unsigned n_;
  Clock clock_;
  std::string path_;
  std::unique_ptr<rtl::VModel> m_;
  rtl::Var req_in_, ack_in_, seq_in_, grant_ff_, stall_ff_;
  std::vector<uint64_t> snap_;
  sc_core::sc_event wake_ev_;
  EdgeTimer edge_;
  uint64_t evaluations_ = 0;
  Registry& reg_;
  std::unique_ptr<rtl::FlopAccesses> acc_;
};

// Traces the flip-flops of a Verilated model into a VCD file.
void trace_flops(sc_core::sc_trace_file* tf, const rtl::VModel& m, const std::string& prefix);
// Registers the flip-flops of a Verilated model under <path>.<name>; a write calls on_write.
void register_flops(Registry& reg, const rtl::VModel& m, const std::string& path, std::function<void()> on_write);

}  // namespace gpuvp
