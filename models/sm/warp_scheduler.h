#pragma once
// Warp scheduling policies of the SIMT core: which ready warp issues next. One file per policy
// (warp_scheduler_<policy>.cc); make_warp_scheduler maps SmConfig::warp_policy to one. A new
// policy is a new file, a WarpPolicy value and one line in the factory (warp_scheduler.cc).
#include <cstdint>
#include <memory>
#include <vector>

#include "models/sm/sm_config.h"
#include "models/sm/warp.h"

namespace gpuvp::sm {

// Per warp slot, Warp::issue_at(): a warp may issue at cycle `now` when its entry is at most `now`
// (it is not waiting at a barrier or exited and its previous instruction's latency has elapsed).
// The core keeps these beside its warps so that a policy scans one word per warp, not its record.
using IssueCycles = std::vector<uint64_t>;
constexpr uint64_t kNotReady = Warp::kNotReady;

// The warps of one warp scheduler of the SM: slots first, first + stride, ... (sm.schedulers; the
// whole SM with first 0, stride 1).
struct WarpSet {
  int first = 0, stride = 1;
  // Position of slot i in the set, and the number of slots of the set among n.
  int pos(int i) const { return (i - first) / stride; }
  int size(int n) const { return n > first ? (n - 1 - first) / stride + 1 : 0; }
  int slot(int k) const { return first + k * stride; }
};

class WarpScheduler {
 public:
  virtual ~WarpScheduler() = default;
  // Slot (index in `at`) of the warp of set `set` that issues next, or -1 when none can. A policy may
  // name a warp that is not ready at `now` (its `ready` is later): the core waits for it. `last` is
  // the warp of the set that issued last (-1 before the first issue).
  virtual int pick(const IssueCycles& at, int last, uint64_t now, WarpSet set = {}) const = 0;
};

// The policies (one file each) and the factory (unknown values: round robin).
std::unique_ptr<WarpScheduler> make_round_robin_scheduler();
std::unique_ptr<WarpScheduler> make_gto_scheduler();
std::unique_ptr<WarpScheduler> make_strict_round_robin_scheduler();
std::unique_ptr<WarpScheduler> make_warp_scheduler(WarpPolicy policy);

}  // namespace gpuvp::sm
