// Black's equation: TTF = A j^-n exp(Ea / (k_B T)); A cancels in the calibrated rate, so it is 1 here.
#include <cmath>
#include <limits>

#include "models/power/em_model.h"

namespace gpuvp::power {

namespace {
class BlackModel : public EmModel {
 public:
  explicit BlackModel(const EmParams& p) : p_(p) { calibrate(p); }
  double ttf(double j, double t_k) const override {
    if (j <= 0) return std::numeric_limits<double>::infinity();
    return std::pow(j, -p_.n) * std::exp(p_.ea_ev / (kBoltzmannEv * t_k));
  }

 private:
  EmParams p_;
};
}  // namespace

std::unique_ptr<EmModel> make_black_model(const EmParams& p) { return std::make_unique<BlackModel>(p); }

}  // namespace gpuvp::power
