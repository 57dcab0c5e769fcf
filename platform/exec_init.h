#pragma once
// Buffer initialisation of `gpuvp exec` (buf:TYPE:COUNT:rand=SEED), shared with tests that compute
// reference results from the same inputs: std::mt19937_64(seed), one draw per element; f32/f64
// elements are (r >> 11) / 2^53 in [0, 1) (rounded to float for f32), integer elements are the low
// bytes of r (little-endian).
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace gpuvp::exec {

// Element size of an exec buffer/scalar type (u8 i8 u16 i16 u32 i32 u64 i64 f32 f64), 0 if unknown.
inline unsigned type_size(const std::string& t) {
  if (t == "u8" || t == "i8") return 1;
  if (t == "u16" || t == "i16") return 2;
  if (t == "u32" || t == "i32" || t == "f32") return 4;
  if (t == "u64" || t == "i64" || t == "f64") return 8;
  return 0;
}

// `count` elements of `type` from seed `seed`, as the bytes the buffer starts with.
inline std::vector<uint8_t> random_bytes(const std::string& type, uint64_t count, uint64_t seed) {
  unsigned es = type_size(type);
  std::vector<uint8_t> b(count * es);
  std::mt19937_64 rng(seed);
  for (uint64_t k = 0; k < count; ++k) {
    uint64_t r = rng();
    double u = static_cast<double>(r >> 11) / 9007199254740992.0;  // [0, 1)
    if (type == "f32") {
      float f = static_cast<float>(u);
      std::memcpy(b.data() + k * 4, &f, 4);
    } else if (type == "f64") {
      std::memcpy(b.data() + k * 8, &u, 8);
    } else {
      std::memcpy(b.data() + k * es, &r, es);
    }
  }
  return b;
}

// Typed view of random_bytes for tests: random<float>("f32", n, seed).
template <typename T>
std::vector<T> random_values(const std::string& type, uint64_t count, uint64_t seed) {
  auto b = random_bytes(type, count, seed);
  std::vector<T> v(count);
  if (count) std::memcpy(v.data(), b.data(), b.size());
  return v;
}

}  // namespace gpuvp::exec
