#pragma once
// Runs an application set (deadline_apps.h) under each of its policies on one platform, one policy
// after the other in one simulation (the GPU idle between them; each policy's times count from its own
// start), and reports per application release, completion, deadline, met or missed and lateness
// (docs/deadline.md).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "platform/config/config.h"
#include "platform/deadline_apps.h"

namespace gpuvp::deadline {

struct AppResult {
  std::string name;
  Priority priority = Priority::Low;
  uint64_t release_ns = 0, completion_ns = 0, deadline_ns = 0;  // deadline: absolute (release + relative)
  bool met = false;
  uint64_t lateness_ns = 0;  // completion - deadline when missed, else 0
};

// One block as it ran: its application, kernel, (sub-)kernel launch, grid index, SM and times.
struct BlockRun {
  size_t app = 0, kernel = 0;
  uint64_t launch = 0, block = 0;
  unsigned sm = 0;
  uint64_t start_ns = 0, end_ns = 0;
};

// One (sub-)kernel launch: what the policy asked for, when (scenario ns), on which SMs.
struct LaunchRun {
  size_t app = 0, kernel = 0;
  uint64_t launch = 0, first = 0, last = 0;
  uint32_t set = 0;  // SM set (0: every SM)
  uint64_t call_ns = 0, done_ns = 0;
};

struct PolicyResult {
  std::string policy;
  std::vector<AppResult> apps;  // in the set's order
  unsigned met[3] = {0, 0, 0}, total[3] = {0, 0, 0};  // by priority
  uint64_t total_lateness_ns = 0;
  std::vector<LaunchRun> launches;
  std::vector<BlockRun> blocks;
  // SM-set creations and changes (scenario ns of the call, set, its SMs from then on), in call order.
  struct SetChange {
    uint64_t at_ns;
    uint32_t set;
    uint64_t sms;
  };
  std::vector<SetChange> set_changes;
  unsigned met_total() const { return met[0] + met[1] + met[2]; }
};

// The SMs set `set` may have held for a block of a launch called at `call_ns` that started at
// `start_ns`: its SMs at the call and after every change up to the start (0: every SM).
uint64_t allowed_sms(const PolicyResult& r, uint32_t set, uint64_t call_ns, uint64_t start_ns);

// With set.measure_profiles, the kernels' measured E(K, n) are written into `set` first.
std::vector<PolicyResult> run_set(const Config& cfg, AppSet& set);

nlohmann::json to_json(const AppSet& set, const std::vector<PolicyResult>& results);
// Per policy: met / total by priority and total lateness; then per application and policy.
std::string summary_table(const std::vector<PolicyResult>& results);

}  // namespace gpuvp::deadline
