#pragma once
// Helpers shared by the workloads: portable seeded random numbers (std::mt19937_64 is specified
// bit for bit by the standard, its distributions are not, so the mapping to values is ours),
// a comparison that counts mismatches and names the first one, and raw output capture.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sw/workloads/workload.h"

namespace gpuvp::wl {

class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed) {}
  uint64_t next() { return gen_(); }
  // Uniform in [0, 1) with 24 random bits: every value is an exact float.
  float unit() { return float(gen_() >> 40) * (1.0f / 16777216.0f); }
  float uniform(float lo, float hi) { return lo + (hi - lo) * unit(); }
  // Uniform integer in [lo, hi] (hi >= lo; the modulo bias is irrelevant at these sizes).
  int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(gen_() % uint64_t(hi - lo + 1)); }

 private:
  std::mt19937_64 gen_;
};

// Relative + absolute float tolerance: |got - expected| <= rel * scale + abs, where `scale` is the
// magnitude the error is relative to (|expected|, or the sum of |terms| for sums).
inline bool within(float got, double expected, double rel, double abs, double scale) {
  if (!std::isfinite(got)) return false;
  return std::fabs(double(got) - expected) <= rel * scale + abs;
}

// Counts mismatches of one or more output arrays and keeps a description of the first.
class Checker {
 public:
  template <typename T>
  void exact(const char* array, size_t i, T got, T expected) {
    if (got == expected) return;
    fail(fmt::format("{}[{}]: got {} expected {}", array, i, +got, +expected));
  }
  void near(const char* array, size_t i, float got, double expected, double rel, double abs, double scale) {
    if (within(got, expected, rel, abs, scale)) return;
    fail(fmt::format("{}[{}]: got {:.9g} expected {:.9g} (tolerance {:.3g})", array, i, got, expected,
                     rel * scale + abs));
  }
  void fail(std::string what) {
    if (mismatches_++ == 0) first_ = std::move(what);
  }
  uint64_t mismatches() const { return mismatches_; }
  // Fills ok / mismatches / message of `r` (output is left to the caller).
  void finish(Result& r) const {
    r.mismatches = mismatches_;
    r.ok = mismatches_ == 0;
    r.message = r.ok ? std::string("ok")
                     : fmt::format("{} mismatch{}, first: {}", mismatches_, mismatches_ == 1 ? "" : "es", first_);
  }

 private:
  uint64_t mismatches_ = 0;
  std::string first_;
};

template <typename T>
void append_bytes(std::vector<uint8_t>& out, const std::vector<T>& v) {
  size_t at = out.size();
  out.resize(at + v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data() + at, v.data(), v.size() * sizeof(T));
}

// Reads a size parameter that must be positive; throws std::invalid_argument naming it.
int64_t positive_param(const LaunchConfig& cfg, const std::string& key, int64_t def);

// Dimension helper: ceil(a / b).
inline uint32_t ceil_div(int64_t a, int64_t b) { return uint32_t((a + b - 1) / b); }

}  // namespace gpuvp::wl
