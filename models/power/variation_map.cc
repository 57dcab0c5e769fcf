// Process variation (docs/power.md, "NBTI aging"): each cluster's Vth0 offset is an independent normal
// draw. The draw is written out (Box-Muller over SplitMix64) rather than taken from <random>, whose
// normal_distribution differs between standard libraries: a map must be the same on every host.
#include <cmath>

#include "models/power/nbti.h"

namespace gpuvp::power {

namespace {

uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double uniform01(uint64_t& s) { return (double(splitmix(s) >> 11) + 0.5) * 0x1.0p-53; }  // (0, 1)
constexpr double kSmallestUniform = 0.5 * 0x1.0p-53;  // uniform01 of 0

class NormalVariation final : public VariationMap {
 public:
  explicit NormalVariation(double sigma) : sigma_(sigma) {}

  std::vector<double> offsets(uint64_t seed, unsigned map, unsigned clusters) const override {
    uint64_t s = seed * 0x100000001b3ull + map;
    std::vector<double> out;
    for (unsigned c = 0; c < clusters; ++c) {
      const double u1 = uniform01(s), u2 = uniform01(s);
      out.push_back(sigma_ * std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2));
    }
    return out;
  }

 private:
  double sigma_;
};

}  // namespace

double max_variation_sigmas() { return std::sqrt(-2 * std::log(kSmallestUniform)); }

std::unique_ptr<VariationMap> make_normal_variation(const NbtiParams& p) {
  return std::make_unique<NormalVariation>(p.sigma_v);
}

}  // namespace gpuvp::power
