// "rr_strict": the FlexGripPlus warp scheduler (warp_scheduler.vhd): warp ids in turn; a finished
// warp or one waiting at a barrier is skipped, but a warp whose instruction is still in the
// pipeline is waited for (the scheduler polls it) instead of letting a later ready warp go first.
#include "models/sm/warp_scheduler.h"

namespace gpuvp::sm {

namespace {
class StrictRoundRobinScheduler final : public WarpScheduler {
 public:
  int pick(const std::vector<Warp>& warps, int last, uint64_t) const override {
    int n = int(warps.size());
    int i = last;
    for (int k = 0; k < n; ++k) {
      if (++i >= n) i = 0;
      if (warps[i].state == Warp::Ready) return i;  // issues at warps[i].ready
    }
    return -1;
  }
};
}  // namespace

std::unique_ptr<WarpScheduler> make_strict_round_robin_scheduler() {
  return std::make_unique<StrictRoundRobinScheduler>();
}

}  // namespace gpuvp::sm
