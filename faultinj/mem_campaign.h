#pragma once
// Memory-fault campaigns of the data-centric protection study (docs/reliability.md): the golden
// run's memory profile, fault sets drawn by the fault models (mem_fault_model.h), and one faulty run
// per set through the campaign engine (forked at the first kernel's start, classified by the output
// check). Protection is the job's configuration (protect.duplicate / protect.triplicate).
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "faultinj/engine.h"
#include "faultinj/mem_fault_model.h"

namespace gpuvp::fi {

// The fault target a memory-fault job applies itself: fault `index` is stuck set `index`.
constexpr const char* kStuckTarget = "gpu.gmem:stuck";

// `inner` whose faults on kStuckTarget install a stuck set (Platform::stick_global); its single
// "output" buffer retyped to `output_type` (f32 for a workload whose output is floats) so that the
// output checks compare elements.
std::unique_ptr<Job> with_stuck_sets(std::unique_ptr<Job> inner, std::shared_ptr<const std::vector<StuckSet>> sets,
                                     std::string output_type = "u8");

// The memory profile of one fault-free run of the job (simulated in a child process).
MemoryProfile profile_job(const JobFactory& make, double hot_share = 0.1);

struct MemCampaignOptions {
  unsigned workers = 2;
  OutputCheckSpec check;
  std::string output_type = "u8";
};

struct MemCampaignResult {
  std::array<uint64_t, kOutcomeCount> outcomes{};
  std::array<uint64_t, kDueKindCount> by_due{};  // the DUEs by kind: DueKind::Detected, a duplicated
                                                 // object's copies differed; the others, any other error
  uint64_t golden_cycles = 0;   // kernel cycles of the fault-free run
  double wall_seconds = 0;      // golden run and faulty runs
  std::vector<RunResult> runs;  // by fault set
};

// A DUE raised by duplication (DueKind::Detected).
inline bool detected_error(const RunResult& r) { return r.outcome == Outcome::DUE && r.due == DueKind::Detected; }

// One run per stuck set of `make`'s job; protection as its configuration says.
MemCampaignResult run_mem_campaign(const JobFactory& make, const std::vector<StuckSet>& sets,
                                   const MemCampaignOptions& opt);

}  // namespace gpuvp::fi
