#pragma once
// `gpuvp exec`: run any PTX kernel without writing C++. Command-line arguments are turned into the
// same JSON launch description that --launch-file reads, so both forms share one executor
// (platform/exec_job.h).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "platform/run_outputs.h"

namespace CLI {
class App;
}

namespace gpuvp {
class Config;

struct ExecOptions {
  std::string ptx, kernel, grid = "1", block = "1", launch_file;
  std::vector<std::string> args;
  unsigned dyn_shmem = 0;
  unsigned blocks_per_core = 0;
  uint64_t print = 8;  // elements of each buffer to print after the run
  RunOutputs outputs;  // --stats, --timeline, --vcd
};

void add_exec_options(CLI::App* app, ExecOptions& o);
// The JSON launch description of command-line options (throws ConfigError naming the bad option).
nlohmann::json exec_description(const ExecOptions& o);
int cmd_exec(const Config& cfg, const ExecOptions& o);

}  // namespace gpuvp
