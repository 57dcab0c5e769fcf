// "rr": round robin over the ready warps, starting after the one that issued last.
#include "models/sm/warp_scheduler.h"

namespace gpuvp::sm {

namespace {
class RoundRobinScheduler final : public WarpScheduler {
 public:
  int pick(const std::vector<Warp>& warps, int last, uint64_t now) const override {
    int n = int(warps.size());
    int i = last;
    for (int k = 0; k < n; ++k) {
      if (++i >= n) i = 0;
      if (can_issue(warps[i], now)) return i;
    }
    return -1;
  }
};
}  // namespace

std::unique_ptr<WarpScheduler> make_round_robin_scheduler() { return std::make_unique<RoundRobinScheduler>(); }

}  // namespace gpuvp::sm
