#pragma once
// `gpuvp aging-study FILE.json --out DIR`: the NBTI aging study of docs/power.md ("Aging study").
#include <string>

#include "platform/config/config.h"

namespace gpuvp {

// Runs every map and policy, prints the table, writes DIR/summary.json and DIR/summary.txt; ConfigError
// (exit 2) names the file and the key for bad input.
int cmd_aging_study(const Config& cfg, const std::string& file, const std::string& out_dir);

}  // namespace gpuvp
