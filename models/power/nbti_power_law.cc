// NBTI threshold shift, the power law of Joshi et al. as the public OldSpot tool uses it
// (docs/power.md, "NBTI aging"). D(a) is the long-term share of the shift that stress/recovery cycles
// of duty a leave (the rest recovers while the transistor is relaxed); a cluster at duty 0 does not age.
#include <cmath>

#include "models/power/em_model.h"
#include "models/power/nbti.h"

namespace gpuvp::power {

namespace {

class PowerLawNbti final : public NbtiModel {
 public:
  explicit PowerLawNbti(const NbtiParams& p) : p_(p) {}

  double shift(double vth0, double duty, double t_s) const override {
    if (duty <= 0 || t_s <= 0) return 0;
    const double a = std::min(duty, 1.0);
    const double d = std::pow(a / (1 + std::sqrt((1 - a) / 2)), 1.0 / 6);
    const double v = std::pow(std::max(p_.vdd - vth0, 0.0), p_.g);
    const double kt = kBoltzmannEv * p_.temp_k;
    return d * p_.k * v * (p_.a * std::exp(-p_.e1_ev / kt) * std::pow(t_s, 1.0 / 6) + p_.b * std::exp(-p_.e2_ev / kt));
  }

 private:
  NbtiParams p_;
};

}  // namespace

std::unique_ptr<NbtiModel> make_power_law_nbti(const NbtiParams& p) { return std::make_unique<PowerLawNbti>(p); }

}  // namespace gpuvp::power
