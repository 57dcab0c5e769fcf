// "rr": round robin over the ready warps, starting after the one that issued last.
#include "models/sm/warp_scheduler.h"

namespace gpuvp::sm {

namespace {
class RoundRobinScheduler final : public WarpScheduler {
 public:
  int pick(const IssueCycles& at, int last, uint64_t now, WarpSet set) const override {
    // From the slot after `last` to the set's end, then from its first slot up to `last`: two plain
    // runs without a wrap test or division per step.
    const int end = set.slot(set.size(int(at.size())));
    int from = last >= 0 ? last + set.stride : set.first;
    if (from >= end) from = set.first;
    const int i = first_ready(at, from, end, set.stride, now);
    return i >= 0 ? i : first_ready(at, set.first, from, set.stride, now);
  }

 private:
  static int first_ready(const IssueCycles& at, int from, int to, int stride, uint64_t now) {
    for (int i = from; i < to; i += stride)
      if (at[unsigned(i)] <= now) return i;
    return -1;
  }
};
}  // namespace

std::unique_ptr<WarpScheduler> make_round_robin_scheduler() { return std::make_unique<RoundRobinScheduler>(); }

}  // namespace gpuvp::sm
