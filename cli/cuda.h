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
  std::string preset = "tx2";
  std::vector<std::string> files, sets;
  std::string stats, timeline, vcd;
  std::string library_dir;  // where libcudart.so.13 is; default: found from the gpuvp executable
  double poll_ns = 0;       // 0: the library's default
  std::vector<std::string> command;  // the program and its arguments
};

// Adds the subcommand to `app`; it fills `o`.
CLI::App* add_cuda_command(CLI::App& app, CudaOptions& o);
// Runs the program and waits for it; prints the platform's summary after it. Returns the program's
// exit status (128 + signal when a signal ended it); throws ConfigError for bad options (exit 2).
int cmd_cuda(const CudaOptions& o);

}  // namespace gpuvp
