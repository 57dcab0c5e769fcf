#pragma once
// `gpuvp wear-study FILE.json --out DIR`: the wear-balancing study of docs/power.md ("Wear study").
#include <string>

#include "platform/config/config.h"

namespace gpuvp {

// Runs every point, prints the table, writes DIR/summary.json and DIR/summary.txt; ConfigError (exit 2)
// names the file and the key for bad input.
int cmd_wear_study(const Config& cfg, const std::string& file, const std::string& out_dir);

}  // namespace gpuvp
