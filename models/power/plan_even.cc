// Even distribution over every cluster, none gated: the baseline (docs/power.md).
#include "models/power/cluster_plan.h"

namespace gpuvp::power {

std::unique_ptr<ClusterPlanner> make_even_planner();

namespace {
class EvenPlanner final : public ClusterPlanner {
 public:
  std::vector<unsigned> limits(const PlanInput& in) const override { return std::vector<unsigned>(in.offsets.size(), 1); }
};
}  // namespace

std::unique_ptr<ClusterPlanner> make_even_planner() { return std::make_unique<EvenPlanner>(); }

}  // namespace gpuvp::power
