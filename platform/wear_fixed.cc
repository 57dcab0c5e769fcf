// fixed: rotate every T / R, T the run time of the longest application, R the rotations asked for:
// at T/R, 2T/R, ..., R T/R, so exactly R times over a run of length T (the first interval ending at or
// after each instant rotates).
#include <stdexcept>

#include "platform/wear_policy.h"

namespace gpuvp {

namespace {
class FixedPolicy : public WearPolicy {
 public:
  FixedPolicy(unsigned rotations, double longest_s) : r_(rotations), period_(longest_s / rotations) {}
  bool rotate(double t_s, const std::vector<uint64_t>&) override {
    if (done_ >= r_ || t_s < period_ * (done_ + 1)) return false;
    ++done_;
    return true;
  }

 private:
  unsigned r_;
  double period_;
  unsigned done_ = 0;
};
}  // namespace

std::unique_ptr<WearPolicy> make_fixed_policy(unsigned rotations, double longest_s) {
  if (rotations == 0) throw std::invalid_argument("wear policy fixed: rotations must be at least 1");
  if (!(longest_s > 0)) throw std::invalid_argument("wear policy fixed: the longest application's time must be > 0");
  return std::make_unique<FixedPolicy>(rotations, longest_s);
}

}  // namespace gpuvp
