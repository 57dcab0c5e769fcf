#pragma once
// What the per-kernel and per-instruction-class AVF tables group a run by (docs/campaigns.md, "Per kernel
// and per instruction class"), worked out from the golden run alone, so every run of a fault (a watchdog
// timeout, a death, a replay) gets the same answer.
#include <string>
#include <vector>

#include "faultinj/engine.h"
#include "faultinj/store.h"

namespace gpuvp::fi {

// The launch whose execution window [start_ps, end_ps] holds `ps` (its index in launch order; the
// earliest launch when concurrent ones overlap), -1 when none does.
int launch_at(const std::vector<LaunchSpan>& launches, uint64_t ps);

// A fault's launch (-1: none) and instruction class (InstClass, -1: none); small, kept for every pending fault.
struct FaultContext {
  int32_t launch = -1;
  int16_t cls = -1;
  int32_t alloc = -1;  // a register-file word: its allocation in GoldenRun::reg_allocs (reg_map.h)
  uint64_t word = 0;   // and the word
};

class RunContexts {
 public:
  explicit RunContexts(const GoldenRun& g);
  // launch: the launch running at the fault's instant (a time trigger's time_ps, an event's instant in
  // the golden run, an instruction-output fault's instruction issue); none for a rate-mode run (several
  // instants) or an event the golden run never had. cls: an instruction-output fault's instruction
  // class, none for every other fault.
  FaultContext of(const Fault& f) const;
  // RunRecord::kernel: "launch K (name)", "" for none.
  std::string kernel(const FaultContext& c) const;
  // RunRecord::inst_class: inst_class_name ("int", "fp32", ...), "" for none.
  static std::string inst_class(const FaultContext& c);
  // A register-file word's warp, lane and PTX register (reg_map.h) into the record; unchanged for none.
  void reg_place(const FaultContext& c, RunRecord& r) const;

 private:
  const GoldenRun& g_;
  std::vector<uint64_t> transactions_;
};

}  // namespace gpuvp::fi
