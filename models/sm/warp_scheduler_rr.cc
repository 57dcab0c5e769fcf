// "rr": round robin over the ready warps, starting after the one that issued last.
#include "models/sm/warp_scheduler.h"

namespace gpuvp::sm {

namespace {
class RoundRobinScheduler final : public WarpScheduler {
 public:
  int pick(const std::vector<Warp>& warps, int last, uint64_t now, WarpSet set) const override {
    const int n = set.size(int(warps.size()));
    int k = last >= 0 ? set.pos(last) : -1;
    for (int j = 0; j < n; ++j) {
      if (++k >= n) k = 0;
      if (can_issue(warps[set.slot(k)], now)) return set.slot(k);
    }
    return -1;
  }
};
}  // namespace

std::unique_ptr<WarpScheduler> make_round_robin_scheduler() { return std::make_unique<RoundRobinScheduler>(); }

}  // namespace gpuvp::sm
