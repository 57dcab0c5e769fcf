// The counter-based distribution unit of the aging-aware technique: each cluster has a counter limited
// by its share of a round; a warp instruction goes to the first working cluster whose counter is below
// its limit, and that counter increments; when every counter has reached its limit all are reset.
// "Available" is the cluster's lanes being free (pick, for lane instructions); next() serves the
// instructions of other units, whose cluster is their activity only.
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

  unsigned gated_clusters() const override { return unsigned(std::count(limit_.begin(), limit_.end(), 0u)); }

  int pick(unsigned, const std::vector<uint64_t>& free_at, uint64_t now, uint64_t& wait) override {
    wait = ~uint64_t{0};
    for (size_t c = 0; c < limit_.size(); ++c) {
      if (count_[c] >= limit_[c]) continue;
      if (free_at[c] <= now) return int(take(c));
      wait = std::min(wait, free_at[c]);
    }
    return -1;
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
