// Fault model: permanent stuck-at on k random, pairwise non-adjacent bits of one random word of a
// block (multi-bit faults that SECDED cannot correct; adjacent bits excluded as the study does).
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "faultinj/mem_fault_model.h"

namespace gpuvp::fi {

uint32_t non_adjacent_bits(SplitMix64& rng, unsigned k) {
  if (k == 0 || k > 16) throw std::invalid_argument(fmt::format("{} stuck bits: expected 1..16", k));
  for (;;) {  // k distinct bits, uniform; rejecting adjacent sets leaves every valid set equally likely
    uint32_t m = 0;
    while (unsigned(__builtin_popcount(m)) < k) m |= 1u << rng.uniform(32);
    if ((m & (m >> 1)) == 0) return m;
  }
}

StuckWord stuck_at_bits(SplitMix64& rng, const MemoryProfile& p, const BlockRef& b, unsigned k) {
  const ObjectProfile& o = p.objects[b.object];
  const uint64_t start = b.block * kProfileBlockBytes;
  const uint64_t words = (std::min(o.size, start + kProfileBlockBytes) - start + 3) / 4;
  StuckWord w;
  w.addr = o.base + start + 4 * rng.uniform(words);
  w.mask = non_adjacent_bits(rng, k);
  w.values = uint32_t(rng.next()) & w.mask;
  return w;
}

}  // namespace gpuvp::fi
