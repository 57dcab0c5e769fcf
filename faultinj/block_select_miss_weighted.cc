// Block choice "miss_weighted": each block with probability proportional to its L1-missed accesses
// in the golden run (the accesses that reach L2 and DRAM, where the faults are).
#include "faultinj/mem_fault_model.h"

namespace gpuvp::fi {

namespace {
class MissWeighted : public BlockSelector {
 public:
  explicit MissWeighted(const MemoryProfile& p) {
    for (const BlockRef& b : p.ranked()) {
      if (p.at(b).l1_misses == 0) continue;
      blocks_.push_back(b);
      weights_.push_back(p.at(b).l1_misses);
    }
  }
};
}  // namespace

std::unique_ptr<BlockSelector> miss_weighted_block_selector(const MemoryProfile& p) {
  return std::make_unique<MissWeighted>(p);
}

}  // namespace gpuvp::fi
