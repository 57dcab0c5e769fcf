#pragma once
// `gpuvp deadline FILE.json`: runs an application set under each policy (docs/deadline.md) and
// prints per policy the applications meeting their deadlines by priority and the total lateness, then
// every application's completion under each policy; --out DIR writes DIR/deadline.json (and the
// blocks per SM over time, for scripts/plot_deadline.py).
#include <CLI/CLI.hpp>

#include <string>

#include "platform/config/config.h"

namespace gpuvp {

struct DeadlineArgs {
  std::string file, out;
};

// Declares the subcommand and its own options (the configuration options are the caller's).
CLI::App* add_deadline_command(CLI::App& app, DeadlineArgs& args);
int cmd_deadline(const Config& cfg, const DeadlineArgs& args);

}  // namespace gpuvp
