#pragma once
// Experiment files in the format of cuda_scheduling_examiner (github.com/yalue/cuda_scheduling_examiner_mirror):
// benchmarks, each a kernel or a stream of kernels, run concurrently with their own release times and
// stream priorities (docs/user-guide.md, "Experiment files"). The reader checks the file against the
// SMs of a configuration, so that a runner gets only launches the platform takes. Every error is a
// ConfigError naming the file and the field's JSON path (benchmarks[1].block_count).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "platform/config/config.h"
#include "sw/runtime/runtime.h"

namespace gpuvp {

// The benchmark a filename picks by its base name (./bin/timer_spin.so: timer_spin).
enum class BenchmarkKind { TimerSpin, Multikernel };
const char* to_string(BenchmarkKind k);

// "8", "32x4" or "8x8x2": the dimensions as the user would write them.
std::string dims_text(const rt::Dim3& d);

// One kernel of a multikernel benchmark: spins for spin_ns in each of `blocks` blocks of `threads`.
struct SpinKernel {
  std::string name;
  uint64_t spin_ns = 0;
  uint32_t blocks = 1, threads = 1;
};

struct Benchmark {
  BenchmarkKind kind = BenchmarkKind::TimerSpin;
  std::string filename, log_name, label;
  rt::Dim3 block, grid;  // thread_count and block_count (a multikernel's kernels carry their own)
  uint64_t data_size = 0;
  uint64_t spin_ns = 0;             // timer_spin
  std::vector<SpinKernel> kernels;  // multikernel: in stream order
  double release_time = 0;          // seconds after the experiment starts
  int stream_priority = 0;          // -1 high, 0 low
  uint64_t max_iterations = 0;      // the benchmark's own, else the experiment's; 0: unlimited
  double max_time = 0;              // seconds, likewise
  // sm_partition: the SMs (bit i: SM i) every kernel of the benchmark runs on; 0: every SM.
  uint64_t sm_mask = 0;
};

// "SMs 0,2,3": the SMs of a mask, for messages and the check's lines.
std::string sm_list(uint64_t mask);

struct Experiment {
  std::string name;
  uint64_t max_iterations = 0;  // 0: unlimited
  double max_time = 0;          // seconds; 0: unlimited
  std::string base_result_directory = "./results";
  std::vector<Benchmark> benchmarks;
};

// Checks a parsed document against the SMs of `cfg`; `origin` names it in messages.
Experiment parse_experiment(const nlohmann::json& j, const Config& cfg, const std::string& origin);
// Parses JSON text, refusing nesting deeper than kMaxJsonDepth first (platform/config/json_text.h).
Experiment parse_experiment_text(const std::string& text, const Config& cfg, const std::string& origin);
// Reads and parses a file; messages name the path.
Experiment load_experiment(const std::string& path, const Config& cfg);

}  // namespace gpuvp
