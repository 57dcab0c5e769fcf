// Black's equation: TTF = A j^-n exp(Ea / (k_B T)); A cancels in the calibrated rate, so it is 1 here.
#include <cmath>
#include <limits>
#include <utility>

#include "models/power/em_model.h"

namespace gpuvp::power {

namespace {
class BlackModel : public EmModel {
 public:
  explicit BlackModel(const EmParams& p) : p_(p) { calibrate(p); }
  double ttf(double j, double t_k) const override {
    if (j <= 0) return std::numeric_limits<double>::infinity();
    // j^-n for the last two current densities: a wait's wake-ups alternate between an active and an
    // idle power, each the same from one wake-up to the next, while the temperature moves.
    if (j != pow_j_[0]) {
      std::swap(pow_j_[0], pow_j_[1]);
      std::swap(pow_v_[0], pow_v_[1]);
      if (j != pow_j_[0]) pow_j_[0] = j, pow_v_[0] = std::pow(j, -p_.n);
    }
    return pow_v_[0] * std::exp(p_.ea_ev / (kBoltzmannEv * t_k));
  }

 private:
  EmParams p_;
  mutable double pow_j_[2] = {-1, -1}, pow_v_[2] = {0, 0};
};
}  // namespace

std::unique_ptr<EmModel> make_black_model(const EmParams& p) { return std::make_unique<BlackModel>(p); }

}  // namespace gpuvp::power
