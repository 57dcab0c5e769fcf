// "gto": greedy then oldest: the warp that issued last while it is ready, else the oldest ready
// warp (lowest slot).
#include "models/sm/warp_scheduler.h"

namespace gpuvp::sm {

namespace {
class GtoScheduler final : public WarpScheduler {
 public:
  int pick(const IssueCycles& at, int last, uint64_t now, WarpSet set) const override {
    if (last >= 0 && at[unsigned(last)] <= now) return last;
    for (int i = set.first, n = int(at.size()); i < n; i += set.stride)
      if (at[unsigned(i)] <= now) return i;
    return -1;
  }
};
}  // namespace

std::unique_ptr<WarpScheduler> make_gto_scheduler() { return std::make_unique<GtoScheduler>(); }

}  // namespace gpuvp::sm
