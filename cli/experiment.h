#pragma once
// `gpuvp experiment check FILE`: reads an experiment file (platform/experiment_file.h) against the
// SMs of the configured GPU and prints what it holds. Nothing runs.
#include <string>

#include "platform/config/config.h"
#include "platform/run_outputs.h"

namespace gpuvp {

// Prints one line per benchmark; throws ConfigError naming the file and the field (exit 2).
// `gpuvp experiment check FILE`: the file checked against the configured GPU, its benchmarks printed.
int cmd_experiment_check(const Config& cfg, const std::string& file);
// `gpuvp experiment FILE`: every output checked before simulating, then the logs (and `outputs`) written.
int cmd_experiment_run(const Config& cfg, const std::string& file, const std::string& out_dir,
                       const RunOutputs& outputs = {});

}  // namespace gpuvp
