#pragma once
// How the host sets up an SM's instruction distribution unit before a kernel (docs/power.md,
// "Aging-aware instruction distribution"): which lane clusters work and how many warp instructions of
// each round each one receives (its counter's limit; 0: the cluster is power-gated). One interface,
// one file per policy: plan_even.cc (every cluster, equal shares), plan_even_subset.cc (a fixed subset,
// equal shares) and plan_aging_aware.cc (aging-aware cluster formation and distribution ratio).
#include <memory>
#include <string>
#include <vector>

#include "models/power/nbti.h"

namespace gpuvp::power {

struct PlanInput {
  std::vector<double> offsets;  // each cluster's Vth0 offset from variation (V), its current delay's cause
  unsigned needed = 1;          // clusters the kernel's design-time profile says it uses
  double duty = 0.5;            // stress duty of each working cluster when shares are equal
  double horizon_s = 0;         // how long the kernel's activity is taken to last (aging estimate)
  unsigned round = 10;          // warp instructions per distribution round (the sum of the limits)
  // Aging so far (a plan made again as aging accumulates): each cluster's stress in duty-seconds over
  // the `elapsed_s` seconds aged before this plan (empty: none, every cluster fresh).
  std::vector<double> stress_s{};
  double elapsed_s = 0;
};

// NBTI shift of a cluster of Vth0 offset `offset` that has had `stress_s` duty-seconds over `elapsed_s`
// seconds and then runs at `duty` for `horizon_s` more: the power law at the time-averaged duty over
// the whole time (with a constant duty, exactly the shift of that duty; a cluster gated after working
// recovers in part, as D(a) has it). `elapsed_s` 0: `duty` over `horizon_s`.
double history_shift(const NbtiModel& m, const NbtiParams& p, double offset, double stress_s, double elapsed_s,
                     double duty, double horizon_s);

class ClusterPlanner {
 public:
  virtual ~ClusterPlanner() = default;
  // Each cluster's limit per round (0: gated).
  virtual std::vector<unsigned> limits(const PlanInput& in) const = 0;
};

// "even", "even-subset" or "aging-aware"; std::invalid_argument for another name.
std::unique_ptr<ClusterPlanner> make_cluster_planner(const std::string& name, const NbtiParams& p);
const std::vector<std::string>& cluster_planners();

// Limits of `weights` scaled to a round of `round` instructions: each positive weight gets at least one,
// the rest in proportion (largest remainders first) until the limits sum to `round`.
std::vector<unsigned> round_limits(const std::vector<double>& weights, unsigned round);

// The parts of the aging-aware policy, exposed for their hand-worked tests.
// Cluster formation: the clusters ordered by current delay (fastest first), the `needed` fastest working.
// `dvth`: each cluster's threshold above nominal now (variation plus aging so far).
std::vector<bool> form_clusters(const std::vector<double>& dvth, unsigned needed);
// Each cluster's threshold above nominal now: its offset plus the aging of `in.stress_s` so far.
std::vector<double> current_dvth(const NbtiParams& p, const PlanInput& in);
// Distribution ratio: each working cluster's duty such that all end near the average delay that equal
// shares would leave after the horizon (more work to the younger ones), scaled to shares summing to 1.
std::vector<double> distribution_ratio(const NbtiParams& p, const PlanInput& in, const std::vector<bool>& working);

}  // namespace gpuvp::power
