// uniform: the balance an ideal scheduler reaches, every SM wearing at the same rate. Applications
// keep their partitions (so their SM counts, so their speed: the run is the baseline's), and the wear
// is taken as spread evenly over every SM: cr is a time average, so perfect balance gives every SM the
// mean of the measured cr_k, and the GPU's normalised cr is mean_k cr_k / max_k cr_k of the baseline.
// (The dispatcher's own placement over every SM is not it: most-room placement with ties to the
// lowest SM loads SM 0 with the odd block of every launch.)
#include <numeric>

#include "platform/wear_policy.h"

namespace gpuvp {

namespace {
class UniformPolicy : public WearPolicy {
 public:
  bool rotate(double, const std::vector<uint64_t>&) override { return false; }
  std::vector<double> balance(std::vector<double> cr) const override {
    if (cr.empty()) return cr;
    const double mean = std::accumulate(cr.begin(), cr.end(), 0.0) / double(cr.size());
    return std::vector<double>(cr.size(), mean);
  }
};
}  // namespace

std::unique_ptr<WearPolicy> make_uniform_policy() { return std::make_unique<UniformPolicy>(); }

}  // namespace gpuvp
