#pragma once
// `gpuvp profile-memory` and `gpuvp mem-campaign`: the memory profiler and the memory-fault
// campaigns of the data-centric protection study (docs/reliability.md).
#include <cstdint>
#include <string>

#include "faultinj/engine.h"
#include "platform/config/config.h"

namespace CLI {
class App;
}

namespace gpuvp {

// What runs: a workload (and launch) or a launch description file.
struct MemJobOptions {
  std::string workload = "vectorAdd", launch, launch_file;
  uint64_t seed = 1;
  void add(CLI::App* app);
  fi::JobFactory factory(const Config& c) const;
};

struct ProfileOptions {
  double hot_share = 0.1;
  std::string csv, json;
  void add(CLI::App* app);
};

struct MemCampaignCliOptions {
  unsigned runs = 1000, blocks = 1, bits = 2, workers = 2;
  std::string choice = "miss_weighted", protect_hot = "none", output_type = "u8", json;
  uint64_t fault_seed = 1;
  double hot_share = 0.1, max_share = -1, rel = -1, abs = -1;
  void add(CLI::App* app);
};

int cmd_profile_memory(const Config& c, const MemJobOptions& job, const ProfileOptions& o);
int cmd_mem_campaign(Config c, const MemJobOptions& job, const MemCampaignCliOptions& o);

}  // namespace gpuvp
