#include "faultinj/sizing.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpuvp::fi {

uint64_t leveugle_sample_size(double population, double margin, double t, double p) {
  if (!(population >= 0) || !std::isfinite(population))
    throw std::invalid_argument(fmt::format("population {}: not a finite number >= 0", population));
  if (!(margin > 0)) throw std::invalid_argument(fmt::format("margin {}: not > 0", margin));
  if (!(t > 0)) throw std::invalid_argument(fmt::format("t {}: not > 0", t));
  if (!(p > 0 && p < 1)) throw std::invalid_argument(fmt::format("p {}: not in (0, 1)", p));
  if (population == 0) return 0;
  const double n = population / (1 + margin * margin * (population - 1) / (t * t * p * (1 - p)));
  // A result a rounding error above an integer is that integer, not the next one.
  const double up = std::ceil(n - 1e-9 * n);
  const double capped = std::min(up, population);
  if (capped >= 18446744073709551616.0) throw std::overflow_error(fmt::format("sample size {} exceeds 2^64", capped));
  return static_cast<uint64_t>(capped);
}

double t_for_confidence(double confidence) {
  if (std::fabs(confidence - 0.90) < 1e-9) return 1.645;
  if (std::fabs(confidence - 0.95) < 1e-9) return 1.96;
  if (std::fabs(confidence - 0.99) < 1e-9) return 2.576;
  throw std::invalid_argument(fmt::format("confidence {}: not one of 0.90, 0.95, 0.99", confidence));
}

}  // namespace gpuvp::fi
