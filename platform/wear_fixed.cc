// fixed: R rotations evenly inside the run, T the run time of the longest application: at T/(R+1),
// 2T/(R+1), ..., R T/(R+1) (the first interval ending at or after each instant rotates). Not at T/R,
// ..., T: the R-th would fall at the run's very end, after the last interval the host asks about.
#include <stdexcept>

#include "platform/wear_policy.h"

namespace gpuvp {

namespace {
class FixedPolicy : public WearPolicy {
 public:
  FixedPolicy(unsigned rotations, double longest_s) : r_(rotations), longest_s_(longest_s) {}
  bool rotate(double t_s, const std::vector<uint64_t>&) override {
    // k T / (R + 1) computed as one quotient: T = 1, R = 4, k = 3 gives 0.6 exactly as 192 / 320 does.
    if (done_ >= r_ || t_s < longest_s_ * (done_ + 1) / (r_ + 1)) return false;
    ++done_;
    return true;
  }

 private:
  unsigned r_;
  double longest_s_;
  unsigned done_ = 0;
};
}  // namespace

std::unique_ptr<WearPolicy> make_fixed_policy(unsigned rotations, double longest_s) {
  if (rotations == 0) throw std::invalid_argument("wear policy fixed: rotations must be at least 1");
  if (!(longest_s > 0)) throw std::invalid_argument("wear policy fixed: the longest application's time must be > 0");
  return std::make_unique<FixedPolicy>(rotations, longest_s);
}

}  // namespace gpuvp
