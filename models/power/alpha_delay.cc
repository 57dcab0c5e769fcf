// Gate delay under a threshold shift, the alpha-power law (docs/power.md, "NBTI aging"): delay goes
// as 1 / (Vdd - Vth)^alpha, so relative to the nominal threshold dd/d = (1 - dVth/(Vdd - Vth0))^-alpha - 1.
#include <cmath>
#include <limits>

#include "models/power/nbti.h"

namespace gpuvp::power {

namespace {

class AlphaPowerDelay final : public DelayModel {
 public:
  explicit AlphaPowerDelay(const NbtiParams& p) : p_(p) {}

  double degradation(double dvth) const override {
    const double left = 1 - dvth / (p_.vdd - p_.vth0);
    if (left <= 0) return std::numeric_limits<double>::infinity();
    return std::pow(left, -p_.alpha) - 1;
  }

 private:
  NbtiParams p_;
};

}  // namespace

std::unique_ptr<DelayModel> make_alpha_power_delay(const NbtiParams& p) { return std::make_unique<AlphaPowerDelay>(p); }

}  // namespace gpuvp::power
