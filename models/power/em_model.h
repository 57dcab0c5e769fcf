#pragma once
// Electromigration of each SM's supply segment (docs/power.md, "Electromigration"). One interface,
// one file per model: black.cc (Black's equation) and nucleation.cc (Korhonen stress build-up).
// Both are calibrated so that the nominal operating point lasts the nominal lifetime TTF_N: published
// absolute lifetimes disagree by orders of magnitude, only ratios are robust.
#include <array>
#include <memory>
#include <string>

#include "models/common/params.h"

namespace gpuvp::power {

inline constexpr double kBoltzmannEv = 8.617e-5;  // eV/K
inline constexpr double kElectronCharge = 1.602176634e-19;  // C

struct EmParams {
  std::string model = "black";  // "black" | "nucleation"
  double ttf_years = 10;        // nominal lifetime TTF_N
  double vdd = 1.0;             // supply voltage: I = P / Vdd
  double width_um = 500, thickness_um = 1;  // the SM's supply segment
  double nominal_w = 4.0, nominal_k = 353.15;  // nominal per-SM power and temperature
  double n = 2, ea_ev = 0.86;   // Black: current exponent, activation energy
  // Nucleation (copper): effective charge number, resistivity (ohm m), atomic volume (m^3), bulk modulus
  // (Pa), diffusivity prefactor (m^2/s), critical and thermal stress (Pa), segment length (m).
  double z = 10, rho = 3e-8, omega = 1.66e-29, bulk = 1e11, d0 = 7.56e-5;
  double sigma_crit = 400e6, sigma_t = 0, length = 100e-6;
  double area_m2() const { return width_um * 1e-6 * thickness_um * 1e-6; }
  double current_density(double p_w) const { return p_w / vdd / area_m2(); }  // A/m^2
  static EmParams from(const Params& p);  // em.*
};

class EmModel {
 public:
  virtual ~EmModel() = default;
  // Time to failure (s) under current density j (A/m^2) at temperature t_k, uncalibrated model units
  // (infinity: the segment never fails).
  virtual double ttf(double j, double t_k) const = 0;
  // One (j, T) and its rate (j < 0: empty).
  struct RateMemo {
    double j = -1, t_k = -1, rate = 0;
  };
  // Wear rate relative to the nominal point: TTF_N / TTF(j, T) (0 when it never fails), worked out
  // afresh: for temperatures that do not come back (a thermal transient's).
  double fresh_rate(double j, double t_k) const;
  // The same, remembering the last few (j, T) asked (SMs at the same point share one).
  double rate(double j, double t_k) const;
  // The same, remembered in the caller's `m`: a caller asking again and again for one point (an SM's
  // steady state at every wake-up of a long wait) keeps its own, which other points never evict.
  double rate(double j, double t_k, RateMemo& m) const {
    if (m.t_k != t_k || m.j != j) m = {j, t_k, fresh_rate(j, t_k)};
    return m.rate;
  }
  double nominal_ttf() const { return nominal_; }

 protected:
  void calibrate(const EmParams& p);  // nominal_ = ttf at the nominal point (after construction)
  double nominal_ = 1;

 private:
  mutable std::array<RateMemo, 4> memo_{};
  mutable unsigned memo_next_ = 0;
};

// Korhonen nucleation, exposed for its worked values.
double nucleation_kappa(const EmParams& p, double t_k);            // m^2/s
double nucleation_g(const EmParams& p, double j);                  // stress gradient e Z rho j / Omega (Pa/m)
double nucleation_time(const EmParams& p, double j, double t_k);  // s (infinity below the Blech limit)

std::unique_ptr<EmModel> make_black_model(const EmParams& p);
std::unique_ptr<EmModel> make_nucleation_model(const EmParams& p);
std::unique_ptr<EmModel> make_em_model(const EmParams& p);  // by p.model

// Consumption rate of one SM over the intervals seen: cr = sum_i dp_i r_i / sum_i dp_i, with r_i the
// rate of interval i; `consumed_s` is the nominal lifetime consumed (sum_i dp_i r_i), the aging sensor's value.
struct EmAccumulator {
  double consumed_s = 0, elapsed_s = 0;
  void add(double dt_s, double rate) {
    consumed_s += dt_s * rate;
    elapsed_s += dt_s;
  }
  double cr() const { return elapsed_s > 0 ? consumed_s / elapsed_s : 0.0; }
};

}  // namespace gpuvp::power
