#pragma once
// A table of words whose digest follows every change, so that Registry::state_hash (fault
// injection's early stop) costs nothing per word however large the cache (as gpu.gmem does).
// The digest is computed on its first request and only then followed: a run that never asks for
// it (no fault campaign) does not pay two hashes per cache store on its hot path.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "models/common/registry.h"

namespace gpuvp {

template <typename T>
class HashedTable {
 public:
  HashedTable(size_t n, T init) : v_(n, init) {}
  T operator[](size_t i) const { return v_[i]; }
  void set(size_t i, T v) {
    if (v == v_[i]) return;
    ++changes_;
    if (followed_) digest_ ^= word_digest(i, v_[i]) ^ word_digest(i, v);
    v_[i] = v;
  }
  // Writes n bytes from src at byte offset `byte` of the table. Before the digest is followed no
  // word needs looking at: one copy (the cache's fills and stores of whole sectors are the hot path).
  void write_bytes(size_t byte, const uint8_t* src, size_t n) {
    if (!followed_) {
      ++changes_;
      std::memcpy(reinterpret_cast<uint8_t*>(v_.data()) + byte, src, n);
      return;
    }
    for (size_t i = byte / sizeof(T); i * sizeof(T) < byte + n; ++i) {
      T word = v_[i];
      const size_t lo = std::max(byte, i * sizeof(T)), hi = std::min(byte + n, (i + 1) * sizeof(T));
      std::memcpy(reinterpret_cast<uint8_t*>(&word) + (lo - i * sizeof(T)), src + (lo - byte), hi - lo);
      set(i, word);
    }
  }
  size_t size() const { return v_.size(); }
  // Grows at every change of the contents (not only then): equal counts, the same contents.
  uint64_t changes() const { return changes_; }
  const T* data() const { return v_.data(); }
  uint64_t digest() const {
    if (!followed_) {
      for (size_t i = 0; i < v_.size(); ++i) digest_ ^= word_digest(i, v_[i]);
      followed_ = true;
    }
    return digest_;
  }

 private:
  std::vector<T> v_;
  uint64_t changes_ = 0;
  mutable uint64_t digest_ = 0;
  mutable bool followed_ = false;  // digest_ is up to date and set() keeps it so
};

}  // namespace gpuvp
