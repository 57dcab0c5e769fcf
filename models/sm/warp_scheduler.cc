#include "models/sm/warp_scheduler.h"

namespace gpuvp::sm {

std::unique_ptr<WarpScheduler> make_warp_scheduler(WarpPolicy policy) {
  switch (policy) {
    case WarpPolicy::Gto: return make_gto_scheduler();
    case WarpPolicy::StrictRoundRobin: return make_strict_round_robin_scheduler();
    case WarpPolicy::RoundRobin:
    default: return make_round_robin_scheduler();
  }
}

}  // namespace gpuvp::sm
