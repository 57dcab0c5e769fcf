#pragma once
// Application sets for deadline-aware scheduling (docs/deadline.md): event-driven applications, each
// a sequence of kernels (timer-spin kernels, launch descriptions, built-in workloads) run in order, with a priority, a deadline relative to its release
// and a release instant; listed one by one or drawn by a seeded generator. Every error is a ConfigError
// naming the file and the key's JSON path (applications[2].kernels[0].blocks).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "platform/config/config.h"
#include "platform/exec_job.h"

namespace gpuvp::deadline {

enum class Priority { High = 0, Medium = 1, Low = 2 };
const char* to_string(Priority p);

enum class KernelKind { Spin, Ptx, Workload };

// A kernel: a timer-spin kernel (`blocks` blocks of `threads` threads, each spinning spin_ns of
// %globaltimer), a launch description (`exec`: PTX file, kernel, grid, block, arguments and buffers), or
// a built-in workload (`workload` in its launch configuration `size`, inputs from `seed`). A workload's
// blocks and threads are known once its host program has run (deadline_run.cc fills them in).
// profile_ns[n-1]: its execution time E(K, n) on n SMs, given in the file, measured or computed (exec_ns).
struct Kernel {
  KernelKind kind = KernelKind::Spin;
  uint32_t blocks = 1, threads = 32;
  uint64_t spin_ns = 0;
  std::shared_ptr<const ExecJob> exec;
  std::string workload, size;
  uint64_t seed = 1;
  std::string where;     // "FILE: applications[0].kernels[1]", for errors found when it runs
  std::string identity;  // what besides the configuration decides E(K, n): the profile cache's key hashes it
  std::vector<uint64_t> profile_ns;
};

struct App {
  std::string name;
  Priority priority = Priority::Low;
  uint64_t release_ns = 0;
  uint64_t deadline_ns = 0;  // relative to the release
  std::vector<Kernel> kernels;
};

struct AppSet {
  std::vector<App> apps;  // in release order (ties: file or draw order)
  uint64_t decision_ns = 0;  // host time one decision of a policy costs
  std::vector<std::string> policies;  // to run, in order (default: every policy)
  // E(K, n) of kernels without profile_us: measured on the platform before the policies run (true),
  // or computed as waves x spin (false).
  bool measure_profiles = false;
};

// Blocks of `k` one SM of `cfg` holds at once (threads and block slots; the timer-spin kernel's small
// shared memory and registers never bind first on the presets).
uint32_t blocks_per_sm(const Kernel& k, const Config& cfg);
// E(K, n): its profile if the file gave one, else waves x spin (ceil(blocks / (n x per SM)) x spin_ns),
// which is what the platform measures for a timer-spin kernel up to the blocks' fixed costs of a few µs.
uint64_t exec_ns(const Kernel& k, unsigned n, const Config& cfg);

AppSet parse_apps(const nlohmann::json& j, const Config& cfg, const std::string& origin);
AppSet load_apps(const std::string& path, const Config& cfg);

}  // namespace gpuvp::deadline
