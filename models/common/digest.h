#pragma once
// Digests of state (Registry::state_hash; fault injection's early stop compares whole states at
// checkpoints): inline here so that the loops over a memory's words compile to straight code.
#include <cstddef>
#include <cstdint>

namespace gpuvp {

// splitmix64's finalizer: a bijection of 64-bit words that spreads every input bit over the output.
inline uint64_t digest_mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// word_digest (registry.h): 0 for a zero word; else one mix of the value and the index scrambled by an
// odd multiplier (a bijection, so two words of one memory never share a digest for the same value).
inline uint64_t word_digest_inline(uint64_t index, uint64_t value) {
  return value ? digest_mix(index * 0x9E3779B97F4A7C15ull ^ value) : 0;
}

// Timing digests (Registry::add_timing) fold one value after another, in order.
inline uint64_t digest_fold(uint64_t h, uint64_t v) { return digest_mix(h ^ digest_mix(v)); }

// An instant (ps or cycles) as a timing digest folds it: relative to `floor`, the earliest instant that
// can still change what the model does; anything before it is history, the same whatever it was (0).
inline uint64_t digest_instant(uint64_t t, uint64_t floor) { return t < floor ? 0 : t - floor + 1; }

// The XOR of word_digest(i, v[i]) over v[0..n). Zero words add nothing and most of a register file or
// a shared memory is zero, so a cache line's worth of words that ORs to zero is skipped at once.
template <typename T>
uint64_t digest_nonzero(const T* v, size_t n) {
  constexpr size_t kLine = 64 / sizeof(T);
  uint64_t h = 0;
  size_t i = 0;
  for (; i + kLine <= n; i += kLine) {
    T any = 0;
    for (size_t k = 0; k < kLine; ++k) any |= v[i + k];
    if (!any) continue;
    for (size_t k = 0; k < kLine; ++k) h ^= word_digest_inline(i + k, v[i + k]);
  }
  for (; i < n; ++i) h ^= word_digest_inline(i, v[i]);
  return h;
}

}  // namespace gpuvp
