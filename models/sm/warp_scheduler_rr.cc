// "rr": round robin over the ready warps, starting after the one that issued last.
#include "models/sm/warp_scheduler.h"

namespace gpuvp::sm {

namespace {
class RoundRobinScheduler final : public WarpScheduler {
 public:
  int pick(const std::vector<Warp>& warps, int last, uint64_t now, WarpSet set) const override {
    // Slot by slot (no division per step): from the one after `last`, wrapping at the set's end.
    const int n = set.size(int(warps.size())), end = set.slot(n);
    int i = last >= 0 ? last : set.first - set.stride;
    for (int j = 0; j < n; ++j) {
      if ((i += set.stride) >= end) i = set.first;
      if (can_issue(warps[unsigned(i)], now)) return i;
    }
    return -1;
  }
};
}  // namespace

std::unique_ptr<WarpScheduler> make_round_robin_scheduler() { return std::make_unique<RoundRobinScheduler>(); }

}  // namespace gpuvp::sm
