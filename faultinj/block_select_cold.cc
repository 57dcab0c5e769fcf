// Block choice "cold": uniform among the blocks that are not hot (accessed or not).
#include <cstddef>

#include "faultinj/mem_fault_model.h"

namespace gpuvp::fi {

namespace {
class ColdBlocks : public BlockSelector {
 public:
  explicit ColdBlocks(const MemoryProfile& p) {
    const std::vector<BlockRef> r = p.ranked();
    blocks_.assign(r.begin() + std::ptrdiff_t(p.hot_blocks().size()), r.end());  // hot blocks are a prefix of ranked()
    weights_.assign(blocks_.size(), 1);
  }
};
}  // namespace

std::unique_ptr<BlockSelector> cold_block_selector(const MemoryProfile& p) { return std::make_unique<ColdBlocks>(p); }

}  // namespace gpuvp::fi
