// The event-energy power model: P = (sum_c N_c E_c) / dt * (V/V0)^2 + P_static * (V/V0) while powered,
// less the static share of the lane clusters the distribution unit gates.
#include "models/power/power_model.h"

namespace gpuvp::power {

namespace {
class EventEnergyModel : public PowerModel {
 public:
  explicit EventEnergyModel(const EnergyTable& t) : t_(t) {}
  using PowerModel::power;

  double dynamic_j(const EventCounts& c) const override {
    // An event not counted would add exactly 0 (the energies are finite and not negative): skipped, most
    // are 0 in an interval. Counts stay below 2^63: the signed conversion (one instruction) is as exact.
    double pj = 0;
    for (size_t e = 0; e < size_t(Event::Count); ++e)
      if (c.n[e]) pj += double(int64_t(c.n[e])) * t_.pj[e];
    return pj * 1e-12 * t_.dyn_scale();
  }

  SmPower power(const IntervalActivity& a, double dt_s, double powered_s, unsigned gated_clusters,
                unsigned clusters) const override {
    SmPower p;
    if (dt_s <= 0) return p;
    p.dynamic_w = dynamic_j(a.events) / dt_s;
    // Gated (no block resident): neither static power nor, having issued nothing, dynamic power.
    const double on_s = t_.gating ? powered_s : dt_s;
    // A lane cluster the distribution unit gates draws none of its share (x 1 exactly with none gated).
    p.static_w = t_.static_w * t_.static_scale() * on_s / dt_s * t_.cluster_static(gated_clusters, clusters);
    return p;
  }

 private:
  EnergyTable t_;
};
}  // namespace

std::unique_ptr<PowerModel> make_power_model(const EnergyTable& t) { return std::make_unique<EventEnergyModel>(t); }

}  // namespace gpuvp::power
