#pragma once
// Runs an experiment file (experiment_file.h) on the platform, as cuda_scheduling_examiner runs it on a
// board: one host thread per benchmark, each with its own stream of its priority, released at its
// release time; every iteration copies data_size bytes in, runs its kernels (the timerSpin PTX on the
// simulated SMs), copies them out and reads back the times and SM ids thread 0 of each block
// recorded. Each benchmark's log is written in the examiner's output shape (docs/concurrent-kernels.md).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "platform/config/config.h"
#include "platform/experiment_file.h"
#include "platform/run_outputs.h"

namespace gpuvp {

struct ExperimentRun {
  std::vector<nlohmann::json> logs;  // per benchmark, in file order
  double simulated_s = 0;            // from the scenario start to the last benchmark's end
  double host_s = 0;                 // host time the simulation took
};

// Runs `e` on a platform of `cfg`; `origin` names the file in messages. Throws ConfigError for an
// experiment that cannot end (no iteration or time limit), DeviceError/RuntimeError as a run would.
// `outputs` (checked by the caller before) are written once the run has ended.
// Refuses (ConfigError naming the benchmark) an experiment whose logs, kept in memory until it ends,
// could grow past 1 GiB: run_experiment calls it, and `experiment check` too.
void refuse_unbounded_logs(const Experiment& e, double launch_latency_ns, const std::string& origin);

ExperimentRun run_experiment(const Experiment& e, const Config& cfg, const std::string& origin,
                             const RunOutputs& outputs = {});

// `gpuvp experiment FILE`: runs it, writes the logs under base_result_directory (or `out_dir`), prints
// one line per benchmark. Exit status 0, or 2 for a bad file (named), 1 for a failed run.
}  // namespace gpuvp
