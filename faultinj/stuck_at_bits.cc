// Fault model: permanent stuck-at on k random, pairwise non-adjacent bits of one random word of a
// block (multi-bit faults that SECDED cannot correct; adjacent bits excluded as the study does).
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "faultinj/mem_fault_model.h"

namespace gpuvp::fi {

namespace {
// k distinct bits of the low `width`, uniform.
uint32_t distinct_bits(SplitMix64& rng, unsigned k, unsigned width) {
  uint32_t m = 0;
  while (unsigned(__builtin_popcount(m)) < k) m |= 1u << rng.uniform(width);
  return m;
}
}  // namespace

uint32_t non_adjacent_bits(SplitMix64& rng, unsigned k, unsigned width) {
  if (width == 0 || width > 32) throw std::invalid_argument(fmt::format("a word of {} bits: expected 1..32", width));
  if (k == 0 || k > 16 || k > (width + 1) / 2)
    throw std::invalid_argument(fmt::format("{} stuck bits: expected 1..{} (pairwise non-adjacent in {} bits)", k,
                                            std::min(16u, (width + 1) / 2), width));
  // Rejection of adjacent sets leaves every valid set equally likely; it is kept for k <= 8 so that
  // the fault sets of a seed stay those of the published tables. For larger k almost every draw
  // would be rejected: there, k distinct positions p_0 < ... < p_{k-1} of width + 1 - k and bits
  // p_i + i, a one-to-one map onto the non-adjacent sets, so the same uniform distribution.
  if (k <= 8)
    for (;;) {
      const uint32_t m = distinct_bits(rng, k, width);
      if ((m & (m >> 1)) == 0) return m;
    }
  uint32_t p = distinct_bits(rng, k, width + 1 - k), m = 0;
  for (unsigned i = 0; p; ++i, p &= p - 1) m |= 1u << (unsigned(__builtin_ctz(p)) + i);
  return m;
}

StuckWord stuck_at_bits(SplitMix64& rng, const MemoryProfile& p, const BlockRef& b, unsigned k) {
  const ObjectProfile& o = p.objects[b.object];
  const uint64_t start = b.block * kProfileBlockBytes;
  const uint64_t bytes = std::min(o.size, start + kProfileBlockBytes) - start;
  // Only bits inside the object: a last word partly past its end offers the bits of its bytes inside,
  // and is drawn only when k non-adjacent bits fit in them.
  auto width = [bytes](uint64_t word) { return unsigned(std::min<uint64_t>(32, 8 * (bytes - 4 * word))); };
  uint64_t words = (bytes + 3) / 4;
  if (words > 1 && (width(words - 1) + 1) / 2 < k) --words;
  StuckWord w;
  const uint64_t word = rng.uniform(words);
  w.addr = o.base + start + 4 * word;
  w.mask = non_adjacent_bits(rng, k, width(word));
  w.values = uint32_t(rng.next()) & w.mask;
  return w;
}

}  // namespace gpuvp::fi
