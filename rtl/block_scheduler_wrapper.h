#pragma once
// RtlBlockScheduler: the Verilated rtl/block_scheduler.sv behind the pins of BlockDispatcher,
// with the timing of models/scheduler/block_scheduler.h. The policy and the prng seed are
// straps of the RTL, tied to the BlockSchedulerConfig values. Clock gating as in
// rtl/stall_arbiter_wrapper.h: the model is clocked only while edges change a flip-flop, and after
// an input change or a registry write; in IDLE and SCHEDULE_WAIT with stable inputs it sleeps.
//
// Every flip-flop is registered under <path>.<name> (gpu.sched.state, gpu.sched.num_blocks[3],
// ...), the names of the SystemC model; the RTL also has `prng` for every policy (the model
// registers it for the random policy only).
#include <systemc>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/scheduler/block_scheduler.h"
#include "rtl/flop_accesses.h"
#include "rtl/verilated_model.h"

namespace gpuvp {

class RtlBlockScheduler : public BlockDispatcher {
 public:
  RtlBlockScheduler(sc_core::sc_module_name name, const BlockSchedulerConfig& cfg, Registry& reg);
  SC_HAS_PROCESS(RtlBlockScheduler);

  const BlockSchedulerConfig& config() const { return cfg_; }
  uint64_t evaluations() const { return evaluations_; }
  // Phase entries (the model's SchedulerStats::phases, from the RTL's state and smp_reset flip-flops).
  const std::vector<PhaseMark>& phases() const { return phases_; }
  const rtl::VModel& model() const { return *m_; }
  void trace(sc_core::sc_trace_file* tf, const std::string& prefix) const;
  // Access recording of the flip-flops (docs/rtl.md "Access recording").
  const rtl::FlopAccesses& accesses() const { return *acc_; }

 private:
  void end_of_simulation() override;
  void process();
  void drive();
  void track_accesses();
  void wake() { wake_ev_.notify(sc_core::SC_ZERO_TIME); }

  BlockSchedulerConfig cfg_;
  unsigned n_;
  std::unique_ptr<rtl::VModel> m_;
  Registry& reg_;
  std::unique_ptr<rtl::FlopAccesses> acc_;
  // Inputs (top-level ports).
  rtl::Var i_rst_, i_en_, i_bpc_, i_gx_, i_gy_, i_gz_, i_bx_, i_by_, i_bz_, i_shmem_, i_dyn_, i_param_, i_done_;
  // Output flip-flops.
  std::vector<PhaseMark> phases_{{SchedPhase::Idle, 0}};
  SchedPhase phase_ = SchedPhase::Idle;  // the phase now, recorded or not
  rtl::Var o_state_;
  rtl::Var o_rdy_, o_kdone_, o_en_, o_reset_, o_bx_, o_by_, o_bz_, o_gx_, o_gy_, o_gz_, o_tpb_, o_shmem_;
  std::vector<rtl::Var> o_nb_, o_idx_;
  std::vector<uint64_t> snap_;
  sc_core::sc_event wake_ev_;
  EdgeTimer edge_;
  uint64_t evaluations_ = 0;
};

}  // namespace gpuvp
