// The counter-based distribution unit of the aging-aware technique: each cluster has a counter limited
// by its share of a round; a warp instruction goes to the first working cluster whose counter is below
// its limit, and that counter increments; when every counter has reached its limit all are reset.
// Clusters are always available here (the unit decides whose activity an instruction is, not its
// timing), so "first available" is the first by index.
#include <algorithm>
#include <stdexcept>

#include "models/sm/cluster_distributor.h"

namespace gpuvp::sm {

namespace {
class CounterDistributor final : public ClusterDistributor {
 public:
  explicit CounterDistributor(std::vector<unsigned> limits) : limit_(std::move(limits)), count_(limit_.size(), 0) {}

  unsigned next(unsigned) override {
    size_t c = 0;
    while (count_[c] >= limit_[c]) ++c;  // one is below: take() resets every counter once all are full
    return take(c);
  }

 private:
  unsigned take(size_t c) {
    ++count_[c];
    bool full = true;
    for (size_t i = 0; i < limit_.size(); ++i) full = full && count_[i] >= limit_[i];
    if (full) std::fill(count_.begin(), count_.end(), 0u);
    return unsigned(c);
  }

  std::vector<unsigned> limit_, count_;
};
}  // namespace

std::unique_ptr<ClusterDistributor> make_counter_distributor(std::vector<unsigned> limits) {
  bool any = false;
  for (unsigned l : limits) any = any || l > 0;
  if (!any) throw std::invalid_argument("the distribution unit needs at least one cluster with a positive limit");
  return std::make_unique<CounterDistributor>(std::move(limits));
}

}  // namespace gpuvp::sm
