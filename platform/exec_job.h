#pragma once
// A kernel launch described in JSON (a launch file, a campaign's "exec", or `gpuvp exec`'s command line
// turned into one): validated, then run as a host program that allocates, fills, launches, waits and
// reads every buffer back.
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "sw/runtime/runtime.h"

namespace gpuvp {
class Config;


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

// The bytes of an argument type (u8 i8 u16 i16 u32 i32 u64 i64 f32 f64), 0 for anything else.
unsigned exec_type_bytes(const std::string& type);

}  // namespace gpuvp
