// Parameters of the instruction distribution unit (distribution.*) and how the SM reads them.
#include <stdexcept>

#include "models/sm/cluster_distributor.h"

namespace gpuvp::sm {

namespace {
using P = ParamDef;
const bool declared = declare_params({
    "distribution", "gpu.distribution", "",
    {
        P::String("distribution.policy", "slot", {"slot", "even", "ratio"},
                  "Which lane cluster executes each warp instruction (docs/power.md; needs power.enabled): slot (the "
                  "warp's slot modulo the clusters, the schedulers' timing), even (a counter per cluster, every limit "
                  "1), ratio (counters up to distribution.limits per round); under even and ratio a lane instruction "
                  "waits for its cluster's lanes"),
        P::String("distribution.limits", "", {},
                  "Warp instructions per round of each lane cluster for the ratio policy, one per cluster, colon "
                  "separated (\"4:3:3:0\": cluster 3 power-gated, receives nothing)"),
    },
});
}  // namespace

std::vector<unsigned> parse_limits(const std::string& text, const std::string& key) {
  std::vector<unsigned> out;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t end = std::min(text.find(':', at), text.size());
    const std::string part = text.substr(at, end - at);
    if (part.empty() || part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument(key + ": '" + text + "' is not whole numbers separated by ':' (e.g. 4:3:3:0)");
    out.push_back(unsigned(std::stoul(part)));
    at = end + 1;
  }
  return out;
}

std::unique_ptr<ClusterDistributor> make_distributor(const Params& p, unsigned clusters) {
  (void)declared;
  const std::string policy = p.s("policy");
  if (policy == "slot") return make_slot_distributor(clusters);
  if (policy == "even") return make_counter_distributor(std::vector<unsigned>(clusters, 1));
  const std::string key = "distribution.limits";
  const std::vector<unsigned> limits = parse_limits(p.s("limits"), key);
  if (limits.size() != clusters)
    throw std::invalid_argument(key + ": '" + p.s("limits") + "' has " + std::to_string(limits.size()) +
                                " limits, the SM has " + std::to_string(clusters) + " lane clusters (power.clusters)");
  try {
    return make_counter_distributor(limits);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(key + ": " + e.what());
  }
}

}  // namespace gpuvp::sm
