// Block choice "hot": uniform among the hot blocks of the golden run's profile.
#include "faultinj/mem_fault_model.h"

namespace gpuvp::fi {

namespace {
class HotBlocks : public BlockSelector {
 public:
  explicit HotBlocks(const MemoryProfile& p) {
    blocks_ = p.hot_blocks();
    weights_.assign(blocks_.size(), 1);
  }
};
}  // namespace

std::unique_ptr<BlockSelector> hot_block_selector(const MemoryProfile& p) { return std::make_unique<HotBlocks>(p); }

}  // namespace gpuvp::fi
