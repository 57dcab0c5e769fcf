#pragma once
// Helpers of the RTL equivalence tests: a seeded random source and a registry comparison.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "models/common/registry.h"

namespace gpuvp::test {

struct Rng {
  std::mt19937_64 g;
  explicit Rng(uint64_t seed) : g(seed) {}
  uint64_t bits(unsigned w) { return w >= 64 ? g() : g() & ((uint64_t{1} << w) - 1); }
  uint64_t below(uint64_t n) { return n ? g() % n : 0; }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(g) < p; }
};

// Every target of the model's registry must exist in the RTL's and hold the same value.
class RegistryPairs {
 public:
  RegistryPairs(const Registry& model, const Registry& rtl) {
    for (const Target* t : model.all()) {
      if (!rtl.contains(t->name)) {
        error_ = t->name + " is missing in the RTL registry";
        continue;
      }
      const Target& r = rtl.at(t->name);
      if (r.width != t->width) error_ = fmt::format("{}: width {} in the model, {} in the RTL", t->name, t->width, r.width);
      pairs_.emplace_back(t, &r);
    }
  }
  // Names or widths that differ ("" when the model's targets all exist in the RTL, same widths).
  const std::string& layout_error() const { return error_; }
  // The first mismatch ("" when equal).
  std::string diff() const {
    if (!error_.empty()) return error_;
    for (auto& [m, r] : pairs_) {
      uint64_t a = m->get(0), b = r->get(0);
      if (a != b) return fmt::format("{}: model {:#x} rtl {:#x}", m->name, a, b);
    }
    return "";
  }
  size_t size() const { return pairs_.size(); }

 private:
  std::vector<std::pair<const Target*, const Target*>> pairs_;
  std::string error_;
};

}  // namespace gpuvp::test
