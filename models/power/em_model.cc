#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "models/power/em_model.h"

namespace gpuvp::power {

double EmModel::fresh_rate(double j, double t_k) const {
  const double t = ttf(j, t_k);
  return std::isinf(t) ? 0.0 : nominal_ / t;
}

double EmModel::rate(double j, double t_k) const {
  for (const RateMemo& m : memo_)
    if (m.t_k == t_k && m.j == j) return m.rate;  // the temperature first: it differs more often
  const double r = fresh_rate(j, t_k);
  memo_[memo_next_++ % memo_.size()] = {j, t_k, r};
  return r;
}

void EmModel::calibrate(const EmParams& p) {
  nominal_ = ttf(p.current_density(p.nominal_w), p.nominal_k);
  if (std::isinf(nominal_) || !(nominal_ > 0))
    throw std::invalid_argument(fmt::format(
        "em: the nominal point (em.nominal_w = {} W, em.nominal_k = {} K, current density {:.3g} A/m^2) never fails "
        "under em.model = {} (below the Blech limit): nothing to calibrate the lifetime to; raise em.nominal_w or "
        "narrow the segment (em.width_um, em.thickness_um)",
        p.nominal_w, p.nominal_k, p.current_density(p.nominal_w), p.model));
}

std::unique_ptr<EmModel> make_em_model(const EmParams& p) {
  return p.model == "nucleation" ? make_nucleation_model(p) : make_black_model(p);
}

}  // namespace gpuvp::power
