// "rr_strict": the FlexGripPlus warp scheduler (warp_scheduler.vhd): warp ids in turn; a finished
// warp or one waiting at a barrier is skipped, but a warp whose instruction is still in the
// pipeline is waited for (the scheduler polls it) instead of letting a later ready warp go first.
#include "models/sm/warp_scheduler.h"

namespace gpuvp::sm {

namespace {
class StrictRoundRobinScheduler final : public WarpScheduler {
 public:
  int pick(const IssueCycles& at, int last, uint64_t, WarpSet set) const override {
    const int n = set.size(int(at.size()));
    int k = last >= 0 ? set.pos(last) : -1;
    for (int j = 0; j < n; ++j) {
      if (++k >= n) k = 0;
      if (at[unsigned(set.slot(k))] != kNotReady) return set.slot(k);  // Ready: issues at its ready
    }
    return -1;
  }
};
}  // namespace

std::unique_ptr<WarpScheduler> make_strict_round_robin_scheduler() {
  return std::make_unique<StrictRoundRobinScheduler>();
}

}  // namespace gpuvp::sm
