#pragma once
// A sweep file (`gpuvp sweep FILE`, docs/user-guide.md "Sweeps"): a grid of points, each a preset, a set of
// configuration keys and a host program (a built-in workload, an exec launch file or an experiment file),
// and the statistics
// to tabulate. Read and checked whole before anything runs: every point's configuration is built and
// validated, every workload and launch file resolved.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpuvp {

struct SweepPoint {
  size_t index = 0;  // 1, 2, ... in grid order (the last axis varies fastest)
  std::vector<std::pair<std::string, nlohmann::json>> axis_values;  // axis column -> this point's value
  std::string preset;
  std::vector<std::pair<std::string, nlohmann::json>> sets;  // configuration keys, fixed ones first
  std::string workload, launch;  // a built-in workload (launch "": its first configuration) ...
  std::string exec;              // ... or a launch file (gpuvp exec --launch-file), resolved from the sweep file
  std::string experiment;        // ... or an experiment file (gpuvp experiment), resolved likewise
  uint64_t seed = 1;

  // What determines the point's run, as JSON: a resumed sweep compares it with the recorded one.
  nlohmann::json describe() const;
  // "sm.count=4 workload=matrixMul" for progress lines and messages.
  std::string label() const;
};

// A column of the result table: a statistics field by its path ("kernel_cycles", "sms[1].warp_insts",
// "arbiters[arb_gmem_rd].wait_cycles[0]": an index in brackets is a position or an element's "name").
struct SweepMetric {
  std::string name, path;
};

struct SweepSpec {
  std::string file, name;
  std::vector<std::string> columns;  // the axes' columns, in order
  std::vector<SweepMetric> metrics;  // the file's, after the defaults
  std::vector<SweepPoint> points;
  double timeout_s = 300;            // wall-clock seconds a point may take before it is killed
};

// Throws ConfigError "FILE: ..." naming the key, axis or point at fault.
SweepSpec read_sweep(const std::string& path);

// The value at `path` in a statistics document; nothing when a step is missing. "warp_ipc" is derived:
// warp_insts / kernel_cycles. Throws ConfigError for a path that is not well formed.
std::optional<nlohmann::json> metric_value(const nlohmann::json& stats, const std::string& path);
// Throws ConfigError "WHERE: ..." when `path` is not well formed.
void check_metric_path(const std::string& path, const std::string& where);

}  // namespace gpuvp
