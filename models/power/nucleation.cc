// Korhonen void nucleation: G = e Z rho j / Omega, kappa = D0 exp(-Ea/(k_B T)) B Omega / (k_B T);
// the steady cathode stress sigma_T + G L / 2 below sigma_crit never nucleates a void (the Blech limit),
// else t_nuc = (pi / kappa) ((sigma_crit - sigma_T) / (2 G))^2.
#include <cmath>
#include <limits>

#include "models/power/em_model.h"

namespace gpuvp::power {

double nucleation_kappa(const EmParams& p, double t_k) {
  const double kt_j = kBoltzmannEv * kElectronCharge * t_k;  // k_B T in joules
  return p.d0 * std::exp(-p.ea_ev / (kBoltzmannEv * t_k)) * p.bulk * p.omega / kt_j;
}

double nucleation_g(const EmParams& p, double j) { return kElectronCharge * p.z * p.rho * j / p.omega; }

double nucleation_time(const EmParams& p, double j, double t_k) {
  const double g = nucleation_g(p, j);
  if (g <= 0 || p.sigma_t + g * p.length / 2 < p.sigma_crit) return std::numeric_limits<double>::infinity();
  const double x = (p.sigma_crit - p.sigma_t) / (2 * g);
  return M_PI / nucleation_kappa(p, t_k) * x * x;
}

namespace {
class NucleationModel : public EmModel {
 public:
  explicit NucleationModel(const EmParams& p) : p_(p) { calibrate(p); }
  double ttf(double j, double t_k) const override { return nucleation_time(p_, j, t_k); }

 private:
  EmParams p_;
};
}  // namespace

std::unique_ptr<EmModel> make_nucleation_model(const EmParams& p) { return std::make_unique<NucleationModel>(p); }

}  // namespace gpuvp::power
