#pragma once
// The fault models of the data-centric protection study (docs/reliability.md): permanent stuck-at
// faults on k random, pairwise non-adjacent bits of one random 32-bit word in each of n distinct
// 128-byte blocks of the application's data, the blocks chosen by a BlockSelector from the golden
// run's memory profile. One file per model: stuck_at_bits.cc, block_select_hot.cc,
// block_select_cold.cc, block_select_miss_weighted.cc.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "faultinj/fault_list.h"
#include "platform/mem_profile.h"

namespace gpuvp::fi {

// One faulty word of global memory: the bits of `mask` stuck at those of `values` (Memory::stick).
struct StuckWord {
  uint64_t addr = 0;
  uint32_t mask = 0, values = 0;
};
using StuckSet = std::vector<StuckWord>;  // the faults of one run

// Where the faulty blocks are drawn from.
enum class BlockChoice { Hot, Cold, MissWeighted };
const char* to_string(BlockChoice c);
BlockChoice parse_block_choice(const std::string& s);  // hot, cold, miss_weighted; throws naming the choices

// The block-choice interface: n distinct blocks per draw.
class BlockSelector {
 public:
  virtual ~BlockSelector() = default;
  // The blocks the selector draws from, and each one's weight (all 1 for a uniform choice).
  const std::vector<BlockRef>& candidates() const { return blocks_; }
  const std::vector<uint64_t>& weights() const { return weights_; }
  // n distinct candidates: successive draws with probability proportional to the weight among those
  // not drawn yet. Throws std::invalid_argument when fewer than n candidates have a weight.
  std::vector<BlockRef> draw(SplitMix64& rng, unsigned n) const;

 protected:
  std::vector<BlockRef> blocks_;
  std::vector<uint64_t> weights_;
};

// Uniform among the hot blocks (MemoryProfile::hot_blocks).
std::unique_ptr<BlockSelector> hot_block_selector(const MemoryProfile& p);
// Uniform among every other block of the application's objects.
std::unique_ptr<BlockSelector> cold_block_selector(const MemoryProfile& p);
// Proportional to each block's L1-missed accesses in the golden run (what reaches L2 and DRAM).
std::unique_ptr<BlockSelector> miss_weighted_block_selector(const MemoryProfile& p);
std::unique_ptr<BlockSelector> block_selector(BlockChoice c, const MemoryProfile& p);

// k pairwise non-adjacent bits of the low `width` bits, uniform over all such sets (k <= 8:
// rejection of adjacent draws; above, a direct draw). Throws std::invalid_argument when k is 0,
// above 16 or more than fit non-adjacent in `width`.
uint32_t non_adjacent_bits(SplitMix64& rng, unsigned k, unsigned width = 32);
// The stuck-at fault of one block: a uniform word of the block (inside its object), k non-adjacent
// bits, each stuck at 0 or 1 with probability 1/2. k in 1..16. Only bits inside the object: a last
// word partly past the object's end (size not a multiple of 4) offers only its bytes inside, and is
// not drawn when k non-adjacent bits do not fit there (unless it is the block's only word).
StuckWord stuck_at_bits(SplitMix64& rng, const MemoryProfile& p, const BlockRef& b, unsigned k);

// `runs` fault sets: per run `blocks` blocks from `sel`, one stuck word of `bits` bits in each.
std::vector<StuckSet> draw_stuck_sets(const MemoryProfile& p, const BlockSelector& sel, unsigned runs, unsigned blocks,
                                      unsigned bits, uint64_t seed);

}  // namespace gpuvp::fi
