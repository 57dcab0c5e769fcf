#pragma once
// `gpuvp rta FILE.json`: the response-time analysis of tx2-scheduling.md (sw/analysis/rta.h) for a
// kernel set, with the block slots of the configured GPU.
#include <string>

#include "platform/config/config.h"

namespace gpuvp {

// Prints each kernel's start, completion and response time; throws ConfigError naming the file and
// the field for bad input (exit 2).
int cmd_rta(const Config& cfg, const std::string& file);

}  // namespace gpuvp
