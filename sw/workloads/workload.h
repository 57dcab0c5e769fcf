#pragma once
// A workload: a kernel from sw/kernels, a seeded input generator, launch configurations, a CPU
// reference and a comparison. It runs as a host program on the simulated platform through the
// runtime API only.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sw/runtime/runtime.h"

namespace gpuvp::wl {

// A named launch configuration; `params` are workload-specific sizes (n, blocks, threads, width...).
struct LaunchConfig {
  std::string name;
  std::map<std::string, int64_t> params;
  uint32_t blocks_per_core = 0;  // 0: the runtime chooses from the SM's resources
  int64_t get(const std::string& key, int64_t def) const {
    auto it = params.find(key);
    return it == params.end() ? def : it->second;
  }
};

struct Result {
  bool ok = false;
  std::string message;          // on mismatch: the first wrong element, its value and the expected one
  std::vector<uint8_t> output;  // the raw output buffer(s), for golden-run comparisons
  uint64_t mismatches = 0;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::string name() const = 0;         // "vectorAdd"
  virtual std::string description() const = 0;
  virtual std::string kernel_source() const = 0; // basename in sw/kernels, e.g. "vectorAdd" (.cu / .ptx)
  // At least three configurations; the first is the default.
  virtual std::vector<LaunchConfig> configs() const = 0;
  // Generates inputs from `seed`, allocates, copies, launches, copies back and compares with the
  // CPU reference. Throws rt::RuntimeError / DeviceError as the runtime does.
  virtual Result run(rt::Runtime& rt, const LaunchConfig& cfg, uint64_t seed) const = 0;
};

const std::vector<std::unique_ptr<Workload>>& all();
const Workload* find(const std::string& name);  // nullptr when unknown
// Finds the named configuration of a workload; throws std::invalid_argument listing the known names.
LaunchConfig config_named(const Workload& w, const std::string& name);
// The named workload; std::invalid_argument "NAME: unknown workload (known: ...)" otherwise.
const Workload& find_or_throw(const std::string& name);
// The named launch configuration, the first for "", as config_named otherwise.
LaunchConfig launch_or_default(const Workload& w, const std::string& name);

}  // namespace gpuvp::wl
