#pragma once
// Transistor aging of an SM's lane clusters (docs/power.md, "NBTI aging"): a seeded process-variation
// map (each cluster's threshold voltage Vth0), the NBTI threshold shift under a stress duty, and the
// alpha-power delay that both cause. One interface, one file each: variation_map.cc (normal draw),
// nbti_power_law.cc (Joshi et al. power law, the constants of the public OldSpot tool), alpha_delay.cc.
#include <cstdint>
#include <memory>
#include <vector>

#include "models/common/params.h"

namespace gpuvp::power {

struct NbtiParams {
  double vdd = 1.1, vth0 = 0.5;  // supply and nominal threshold voltage (V)
  double temp_k = 350;           // temperature the clusters age at (fixed)
  // Age at the SM's temperature from the thermal model instead (the caller sets temp_k to it: aging_temp_k).
  bool thermal = false;
  // dVth = D(a) K [A V^g exp(-E1/kT) t^(1/6) + B V^g exp(-E2/kT)], V = Vdd - Vth0 (65 nm constants).
  double k = 0.027e-12, a = 5.5e12, b = 8e11, g = 4.5, e1_ev = 0.08, e2_ev = 0.03;
  double alpha = 1.3;            // alpha-power law exponent of the delay
  double sigma_v = 0.02;         // process variation: standard deviation of a cluster's Vth0 (V)
  double fail = 0.05;            // delay degradation at which a cluster misses timing
  static NbtiParams from(const Params& p);  // nbti.*, checked
  // std::invalid_argument naming the keys when a cluster's threshold could leave (0, vdd).
  void check() const;
};

// The largest |offset| / sigma_v a variation map draws: Box-Muller's radius at its smallest uniform, 2^-54.
double max_variation_sigmas();

// Threshold-voltage offsets of one variation map: cluster c's Vth0 is vth0 + offsets[c].
class VariationMap {
 public:
  virtual ~VariationMap() = default;
  // The offsets (V) of `clusters` clusters of map number `map` of the series seeded by `seed`: the same
  // arguments give the same offsets on every host.
  virtual std::vector<double> offsets(uint64_t seed, unsigned map, unsigned clusters) const = 0;
};
std::unique_ptr<VariationMap> make_normal_variation(const NbtiParams& p);

class NbtiModel {
 public:
  virtual ~NbtiModel() = default;
  // Threshold shift (V) of a cluster of threshold `vth0` stressed with duty `duty` (0 ... 1) for `t_s`
  // seconds. Duty 0 (a power-gated or never-used cluster) gives no shift: it does not age.
  virtual double shift(double vth0, double duty, double t_s) const = 0;
};
std::unique_ptr<NbtiModel> make_power_law_nbti(const NbtiParams& p);

// The temperature SM `sm`'s clusters age at: nbti.temp_k when fixed; under nbti.temperature = thermal,
// the SM's mean temperature over a run repeated without end, given every SM's mean power over it (W)
// and the thermal network (`steady_k`: power::steady_temps of those powers, lateral coupling included):
// in the periodic state the mean temperature is the steady state of the mean power (docs/power.md,
// "Wear study").
double aging_temp_k(const NbtiParams& p, const std::vector<double>& steady_k, unsigned sm);

class DelayModel {
 public:
  virtual ~DelayModel() = default;
  // Relative delay increase dd/d of a cluster whose threshold is `dvth` (V) above the nominal Vth0
  // (variation plus aging; negative: faster than nominal). Infinite once the threshold reaches Vdd.
  virtual double degradation(double dvth) const = 0;
};
std::unique_ptr<DelayModel> make_alpha_power_delay(const NbtiParams& p);

}  // namespace gpuvp::power
