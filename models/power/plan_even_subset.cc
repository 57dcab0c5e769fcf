// Even distribution over a fixed subset, the first `needed` clusters, the others gated: the second
// baseline (docs/power.md). It gates as the aging-aware policy does but ignores variation and aging.
#include "models/power/cluster_plan.h"

namespace gpuvp::power {

std::unique_ptr<ClusterPlanner> make_even_subset_planner();

namespace {
class EvenSubsetPlanner final : public ClusterPlanner {
 public:
  std::vector<unsigned> limits(const PlanInput& in) const override {
    std::vector<unsigned> l(in.offsets.size(), 0);
    for (size_t c = 0; c < l.size() && c < std::max(in.needed, 1u); ++c) l[c] = 1;
    return l;
  }
};
}  // namespace

std::unique_ptr<ClusterPlanner> make_even_subset_planner() { return std::make_unique<EvenSubsetPlanner>(); }

}  // namespace gpuvp::power
