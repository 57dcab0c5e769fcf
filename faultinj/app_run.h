#pragma once
// Campaigns on applications (docs/campaigns.md): the runs of a CUDA host program through the
// project's libcudart.so.13 (`gpuvp cuda`). The golden run records the exit status, standard output,
// the named output files and the figures the library reports (GPUVP_FAULT_REPORT: execution window,
// clock, registry). A faulty run is the application forked by the library at the injection instant
// inside its CUDA calls (GPUVP_FORK_PLAN, cudart/fork_plan.h), or a fresh process that gets its fault
// in the environment (GPUVP_FAULT, platform/armed_flip.h), which the library arms in its platform.
// Every run starts in a fresh folder of its own holding a copy of application.workdir's contents (the
// forked runs: a copy of their golden process's folder at their instants), so no run sees what another
// changed there, and the original folder stays as it was.
//
// A run is killed, with its whole process group, when it passes its wall-time limit (Timeout: a hang;
// also a run the library stopped at the engine's simulated-time bound, timeout_factor x the golden end);
// one that dies of a signal is a DUE (DueKind::Died); one whose exit status differs from the golden
// run's, or that gets a device error the golden run did not, is a DUE; otherwise the outputs decide
// (the campaign's output check: Masked, Tolerable or SDC).
#include <functional>
#include <string>
#include <vector>

#include "faultinj/campaign_file.h"
#include "faultinj/engine.h"

namespace gpuvp::fi {

// The golden run; throws CampaignError naming the campaign file and key when the program cannot run
// (application.command[0] missing or not executable, application.workdir not a folder) or its run is
// unusable (killed, no kernel).
GoldenRun run_app_golden(const CampaignSpec& spec, const std::string& base_dir);

// Runs `faults`, calling `on_result` as each run ends; returns how they ran (the report's "Faulty runs").
// With application.fork (the default), `workers` golden processes fork them at their instants
// (cudart/fork_plan.h); the runs of an application that cannot be forked (another thread), and all of
// them without application.fork, are fresh processes, at most `workers` at a time.
std::string run_app_faults(const CampaignSpec& spec, const std::string& base_dir, const GoldenRun& golden,
                           const std::vector<Fault>& faults, unsigned workers,
                           const std::function<void(const RunResult&)>& on_result);

}  // namespace gpuvp::fi
