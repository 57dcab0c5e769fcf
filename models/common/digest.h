#pragma once
// Digests of a memory computed from its storage (Registry::state_hash; fault injection's early stop).
#include <cstddef>
#include <cstdint>

#include "models/common/registry.h"

namespace gpuvp {

// The XOR of word_digest(i, v[i]) over v[0..n). Zero words add nothing and most of a register file or
// a shared memory is zero, so a cache line's worth of words that ORs to zero is skipped at once: early
// stop compares whole states at checkpoints, and reading such a memory word by word was most of a
// faulty run's host time.
template <typename T>
uint64_t digest_nonzero(const T* v, size_t n) {
  constexpr size_t kLine = 64 / sizeof(T);
  uint64_t h = 0;
  size_t i = 0;
  for (; i + kLine <= n; i += kLine) {
    T any = 0;
    for (size_t k = 0; k < kLine; ++k) any |= v[i + k];
    if (!any) continue;
    for (size_t k = 0; k < kLine; ++k) h ^= word_digest(i + k, v[i + k]);
  }
  for (; i < n; ++i) h ^= word_digest(i, v[i]);
  return h;
}

}  // namespace gpuvp
