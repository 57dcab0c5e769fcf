#pragma once
// `gpuvp exec`: run any PTX kernel without writing C++. Command-line arguments are turned into the
// same JSON launch description that --launch-file reads, so both forms share one executor.
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "sw/runtime/runtime.h"

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
};

struct ExecBuffer {
  std::string type;
  uint64_t count = 0;
  std::vector<uint8_t> bytes;  // initial contents; after run(), what the kernel left there
  std::string file;            // init "file": where the initial contents came from
  std::string dump;
  rt::DevPtr ptr = 0;
};

// Where a launch description came from. One rule for its paths (ptx, buffer `file` inputs, `dump`
// outputs): a relative path is relative to `base_dir`, the folder of the file that holds the
// description ("" for the command line: the current directory).
struct ExecSource {
  std::string origin;    // a launch file, a campaign file's "exec", "exec": names it in messages
  std::string base_dir;
  std::string file;      // that file, when there is one (an input no dump may overwrite)
  bool outputs = true;   // dumps allowed (a campaign compares the buffers and writes no file)
};

// A validated launch description (--launch-file or the command line's) and the host program that
// runs it; fault-injection campaigns run exec launches through it too.
struct ExecJob {
  std::string ptx_path, text, kernel;
  rt::Dim3 grid, block;
  uint32_t dyn_shmem = 0, blocks_per_core = 0;
  std::vector<ExecBuffer> bufs;
  struct Arg {
    int buf = -1;                // a buffer's index (passed as its pointer), or -1 for a scalar
    std::vector<uint8_t> bytes;  // a scalar's value
    rt::ArgKind kind = rt::ArgKind::Int;
  };
  std::vector<Arg> args;  // in parameter order
  std::string origin;     // where the description came from (a launch file, "exec"), for messages
  rt::LaunchStats launch;                                     // after run()

  // Validates `desc`; throws ConfigError naming the source and the field.
  static ExecJob parse(const nlohmann::json& desc, const ExecSource& src);
  // The host program: allocate and fill the buffers, launch, wait, copy every buffer back.
  void run(rt::Runtime& rt);
  // Every buffer's bytes after the run, in argument order.
  std::vector<uint8_t> output() const;
};

void add_exec_options(CLI::App* app, ExecOptions& o);
// The JSON launch description of command-line options (throws ConfigError naming the bad option).
nlohmann::json exec_description(const ExecOptions& o);
int cmd_exec(const Config& cfg, const ExecOptions& o);

}  // namespace gpuvp
