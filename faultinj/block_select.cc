#include <fmt/format.h>

#include <stdexcept>

#include "faultinj/mem_fault_model.h"

namespace gpuvp::fi {

namespace {
constexpr const char* kChoices[] = {"hot", "cold", "miss_weighted"};
}

const char* to_string(BlockChoice c) { return kChoices[static_cast<int>(c)]; }

BlockChoice parse_block_choice(const std::string& s) {
  for (int i = 0; i < 3; ++i)
    if (s == kChoices[i]) return static_cast<BlockChoice>(i);
  throw std::invalid_argument(fmt::format("block choice '{}' unknown (one of hot, cold, miss_weighted)", s));
}

std::vector<BlockRef> BlockSelector::draw(SplitMix64& rng, unsigned n) const {
  std::vector<uint64_t> w = weights_;
  uint64_t total = 0, nonzero = 0;
  for (uint64_t x : w) total += x, nonzero += x != 0;
  if (nonzero < n)
    throw std::invalid_argument(fmt::format("{} faulty blocks asked for, {} blocks to choose from", n, nonzero));
  std::vector<BlockRef> out;
  for (unsigned k = 0; k < n; ++k) {
    uint64_t r = rng.uniform(total), i = 0;
    while (r >= w[i]) r -= w[i++];
    out.push_back(blocks_[i]);
    total -= w[i];
    w[i] = 0;  // distinct blocks
  }
  return out;
}

std::unique_ptr<BlockSelector> block_selector(BlockChoice c, const MemoryProfile& p) {
  switch (c) {
    case BlockChoice::Hot: return hot_block_selector(p);
    case BlockChoice::Cold: return cold_block_selector(p);
    case BlockChoice::MissWeighted: return miss_weighted_block_selector(p);
  }
  throw std::invalid_argument("block choice");
}

std::vector<StuckSet> draw_stuck_sets(const MemoryProfile& p, const BlockSelector& sel, unsigned runs, unsigned blocks,
                                      unsigned bits, uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<StuckSet> sets(runs);
  for (auto& s : sets)
    for (const BlockRef& b : sel.draw(rng, blocks)) s.push_back(stuck_at_bits(rng, p, b, bits));
  return sets;
}

}  // namespace gpuvp::fi
