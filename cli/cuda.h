#pragma once
// `gpuvp cuda [options] -- PROGRAM [ARGS]`: runs an unmodified nvcc-built CUDA program on the platform
// with the project's libcudart.so.13 loaded in its place (docs/cuda.md).
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gpuvp {

struct CudaOptions {
  std::string preset;  // empty: GPUVP_PRESET, else tx2
  std::vector<std::string> files, sets;
  std::string stats, timeline, vcd;
  std::string library_dir;  // where libcudart.so.13 is; default: found from the gpuvp executable
  double poll_ns = 0;       // 0: the library's default
  std::vector<std::string> command;  // the program and its arguments
};

// Adds the subcommand to `app`; it fills `o`.
CLI::App* add_cuda_command(CLI::App& app, CudaOptions& o);
// `gpuvp cuda [options] PROGRAM ARGS` without "--": puts "--" before the program (the first word that is
// neither an option of `cuda` nor an option's value), so that the program's own options stay its.
void split_program_args(const CLI::App& cuda, std::vector<std::string>& args);
// Runs the program and waits for it; prints the platform's summary after it. Returns the program's
// exit status (128 + signal when a signal ended it); throws ConfigError for bad options (exit 2).
int cmd_cuda(const CudaOptions& o);

}  // namespace gpuvp
