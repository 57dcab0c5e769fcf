#include "platform/cli_experiment.h"
#include "platform/text.h"

#include <fmt/format.h>

#include "platform/config/json_text.h"
#include "platform/experiment_file.h"

namespace gpuvp {

namespace {

// Names and labels are the user's: quoted, escaped and cut short.
std::string quoted(const std::string& s) { return json_shown(nlohmann::json(s)); }

std::string launches(const Benchmark& b) {
  if (b.kind == BenchmarkKind::TimerSpin)
    return fmt::format("grid {} x block {}, spin {} ns", dims_text(b.grid), dims_text(b.block), b.spin_ns);
  std::string out = "kernels";
  for (size_t k = 0; k < b.kernels.size(); ++k) {
    const SpinKernel& s = b.kernels[k];
    out += fmt::format("{} {} (grid {} x block {}, {} ns)", k ? "," : "", quoted(s.name), s.blocks, s.threads, s.spin_ns);
  }
  return out;
}

// The limits a benchmark sets for itself, when not the experiment's.
std::string own_limits(const Benchmark& b, const Experiment& e) {
  std::string out;
  if (b.max_iterations != e.max_iterations) out += fmt::format(", max_iterations {}", b.max_iterations);
  if (b.max_time != e.max_time) out += fmt::format(", max_time {} s", b.max_time);
  return out;
}

}  // namespace

int cmd_experiment_check(const Config& cfg, const std::string& file) {
  const Experiment e = load_experiment(file, cfg);
  print_out("{}: experiment {} on {}: {} benchmark{}, max_iterations {}, max_time {} s (0: unlimited), results in {}\n",
             file, quoted(e.name), cfg.name(), e.benchmarks.size(), e.benchmarks.size() == 1 ? "" : "s",
             e.max_iterations, e.max_time, quoted(e.base_result_directory));
  for (size_t i = 0; i < e.benchmarks.size(); ++i) {
    const Benchmark& b = e.benchmarks[i];
    print_out("  [{}] {} {}: release {} s, priority {} ({}), {}{}\n", i, to_string(b.kind), quoted(b.label),
               b.release_time, b.stream_priority, b.stream_priority < 0 ? "high" : "low", launches(b), own_limits(b, e));
  }
  return 0;
}

}  // namespace gpuvp
