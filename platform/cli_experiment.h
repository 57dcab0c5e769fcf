#pragma once
// `gpuvp experiment check FILE`: reads an experiment file (platform/experiment_file.h) against the
// SMs of the configured GPU and prints what it holds. Nothing runs.
#include <string>

#include "platform/config/config.h"

namespace gpuvp {

// Prints one line per benchmark; throws ConfigError naming the file and the field (exit 2).
int cmd_experiment_check(const Config& cfg, const std::string& file);

}  // namespace gpuvp
