#pragma once
// The SM's instruction distribution unit (docs/power.md, "Aging-aware instruction distribution"):
// which lane cluster executes each warp instruction, so whose activity (and NBTI stress) it is. Under
// the slot policy a warp's cluster is its scheduler's lanes, timed as they always are; under the
// counter policies a lane instruction waits for its cluster (pick): a gated cluster or a small limit
// takes throughput away, as it would in the SM. One interface, one file per policy:
// distribution_slot.cc (a warp's slot modulo the clusters, the scheduler whose lanes run it) and
// distribution_counters.cc (a counter per cluster up to its limit per round: even distribution with
// every limit 1, the aging-aware ratio with the host's limits).
#include <memory>
#include <string>
#include <vector>

#include "models/common/params.h"

namespace gpuvp::sm {

class ClusterDistributor {
 public:
  virtual ~ClusterDistributor() = default;
  // The cluster of the next warp instruction, issued by warp slot `warp`.
  virtual unsigned next(unsigned warp) = 0;
  // n when next(warp) is always warp % n (the slot policy), else 0: the SM then works the cluster out
  // inline instead of calling next() for every warp instruction (docs/power.md, "Cost").
  virtual unsigned slot_modulus() const { return 0; }
  // Clusters that receive nothing (limit 0): power-gated for as long as the unit is set, so they draw no
  // static power (power.cluster_static_share).
  virtual unsigned gated_clusters() const { return 0; }
  // The cluster of the next lane instruction at cycle `now`, the clusters' lanes being busy until
  // free_at[c]: one it may take now (and the choice counts), or -1 with `wait` the first cycle one may.
  virtual int pick(unsigned warp, const std::vector<uint64_t>& free_at, uint64_t now, uint64_t& wait) {
    const unsigned c = next(warp);  // stateless for the slot policy, the only one without its own
    wait = free_at[c];
    return free_at[c] <= now ? int(c) : -1;
  }
};

std::unique_ptr<ClusterDistributor> make_slot_distributor(unsigned clusters);
// Counters with these limits per cluster (0: gated, receives nothing); std::invalid_argument when no
// limit is positive.
std::unique_ptr<ClusterDistributor> make_counter_distributor(std::vector<unsigned> limits);

// distribution.policy and distribution.limits (docs/configuration.md) for an SM of `clusters` clusters.
std::unique_ptr<ClusterDistributor> make_distributor(const Params& p, unsigned clusters);
// "4:3:3:0" -> {4, 3, 3, 0}; std::invalid_argument naming `key` when malformed.
std::vector<unsigned> parse_limits(const std::string& text, const std::string& key);

}  // namespace gpuvp::sm
